// Package codec frames RemotingCommands and serializes their headers in both of
// RocketMQ's forms: JSON (serialize type 0, every client's default) and ROCKETMQ binary
// (serialize type 1). It is pure: it takes and returns bytes; encoders append to the
// caller's buffer.
//
// Frame (all integers big-endian; Java: RemotingCommand#encodeHeader, NettyDecoder):
//
//	+-------------+--------------------------------+----------------+-----------+
//	| int32 total | int32 type<<24 | headerLength  | header bytes   | body      |
//	+-------------+--------------------------------+----------------+-----------+
//	  total = 4 + headerLength + bodyLength (it does not count its own 4 bytes)
//
// ROCKETMQ header (Java: RocketMQSerializable):
//
//	int16 code | int8 language | int16 version | int32 opaque | int32 flag |
//	int32 remarkLen | remark | int32 extLen | { int16 kLen | k | int32 vLen | v }*
//
// A decoded Command owns its bytes: Decode copies the frame once into a buffer that the
// command's strings and body point into, and JSON escapes are undone in place.
package codec
