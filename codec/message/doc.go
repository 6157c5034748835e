// Package message is the RocketMQ message record: the bytes of one message as the
// CommitLog stores it, which are also the bytes a pull, query or view response carries.
// It is pure: bytes in, bytes out; no logging, no goroutines. It imports only compat.
//
// Stored record (Java: CommitLog#calMsgLength, MessageExtEncoder#encode,
// MessageDecoder#decode). All integers are big-endian. Offsets are for IPv4 born and
// store hosts; each IPv6 host (sysFlag 0x10 born, 0x20 store) is 20 bytes instead of 8
// and shifts everything after it by 12.
//
//	off size field
//	  0   4  TOTALSIZE        whole record, this field included; must equal the field sum
//	  4   4  MAGICCODE        0xDAA320A7 (MagicMessage); 0xCBD43194 (MagicBlank) = end of file
//	  8   4  BODYCRC          crc32(IEEE) of the stored body & 0x7FFFFFFF
//	 12   4  QUEUEID
//	 16   4  FLAG             the producer's int flag
//	 20   8  QUEUEOFFSET      ConsumeQueue index; 0 for PREPARED and ROLLBACK records
//	 28   8  PHYSICALOFFSET   this record's global CommitLog offset
//	 36   4  SYSFLAG          see the SysFlag constants
//	 40   8  BORNTIMESTAMP    producer clock, ms
//	 48   8  BORNHOST         4 (16) bytes IP + int32 port
//	 56   8  STORETIMESTAMP   broker clock at append, ms
//	 64   8  STOREHOST        4 (16) bytes IP + int32 port
//	 72   4  RECONSUMETIMES
//	 76   8  PREPAREDTXOFFSET
//	 84 4+b  BODYLENGTH, BODY
//	    1+t  TOPICLENGTH (one byte, <= 127), TOPIC
//	    2+p  PROPERTIESLENGTH (int16, <= 32767), PROPERTIES
//
// The fixed part is 91 bytes for two IPv4 hosts (RecordSize). The end-of-file blank is
// int32 remaining ‖ int32 0xCBD43194.
//
// Batch element of a SEND_BATCH_MESSAGE body (Java: MessageDecoder#encodeMessage):
//
//	int32 TOTALSIZE ‖ int32 MAGIC (0) ‖ int32 BODYCRC (0) ‖ int32 FLAG ‖
//	int32 BODYLEN ‖ BODY ‖ int16 PROPLEN ‖ PROPERTIES
//
// Properties are "k\x01v\x02k\x01v" (Java 4.9.1+ drops the trailing \x02; older Java and
// the Go client keep it). Offset message ids are upper-case hex of
// storeHost IP ‖ int32 port ‖ int64 physical offset: 32 chars for IPv4, 56 for IPv6.
package message
