package message

// Record magic codes (Java: MessageDecoder#MESSAGE_MAGIC_CODE, CommitLog#BLANK_MAGIC_CODE).
const (
	// MagicMessage starts every stored message record (0xDAA320A7, Java -626843481).
	MagicMessage uint32 = 0xDAA320A7
	// MagicBlank marks the end-of-file blank that fills a CommitLog file's tail (0xCBD43194).
	MagicBlank uint32 = 0xCBD43194
	// MagicMessageV2 is 5.x's record with a 2-byte topic length; 4.x never writes it.
	MagicMessageV2 uint32 = 0xDAA320AB
)

// Message sysFlag bits (Java: MessageSysFlag).
const (
	FlagCompressed             int32 = 0x1
	FlagMultiTags              int32 = 0x2
	TransactionNotType         int32 = 0x0
	TransactionPrepared        int32 = 0x4
	TransactionCommit          int32 = 0x8
	TransactionRollback        int32 = 0xC
	FlagBornHostV6             int32 = 0x10
	FlagStoreHostV6            int32 = 0x20
	FlagNeedUnwrap             int32 = 0x40
	FlagInnerBatch             int32 = 0x80
	CompressionLZ4             int32 = 0x100
	CompressionZSTD            int32 = 0x200
	CompressionZLIB            int32 = 0x300
	CompressionTypeMask        int32 = 0x700
	transactionMask                  = TransactionRollback
	hostV6Mask                       = FlagBornHostV6 | FlagStoreHostV6
	maxTopicLength                   = 127
	maxPropertiesLength              = 32767
	recordFixedSizeV4V4              = 91
	blankRecordSize                  = 8
	propertySeparator                = 0x02
	nameValueSeparator               = 0x01
	batchElementFixedSize            = 22
	offsetMsgIDBytesV4               = 16
	offsetMsgIDBytesV6               = 28
	bodyOffset                       = 84 // BODYLENGTH position with two IPv4 hosts
	storeTimestampOffsetV4Born       = 56
)

// TransactionType returns the transaction bits of a sysFlag (Java: MessageSysFlag#getTransactionValue).
func TransactionType(sysFlag int32) int32 { return sysFlag & transactionMask }

// Message property keys (Java: MessageConst).
const (
	PropertyKeys                           = "KEYS"
	PropertyTags                           = "TAGS"
	PropertyWaitStoreMsgOK                 = "WAIT"
	PropertyDelayTimeLevel                 = "DELAY"
	PropertyRetryTopic                     = "RETRY_TOPIC"
	PropertyRealTopic                      = "REAL_TOPIC"
	PropertyRealQueueID                    = "REAL_QID"
	PropertyTransactionPrepared            = "TRAN_MSG"
	PropertyProducerGroup                  = "PGROUP"
	PropertyMinOffset                      = "MIN_OFFSET"
	PropertyMaxOffset                      = "MAX_OFFSET"
	PropertyBuyerID                        = "BUYER_ID"
	PropertyOriginMessageID                = "ORIGIN_MESSAGE_ID"
	PropertyTransferFlag                   = "TRANSFER_FLAG"
	PropertyCorrectionFlag                 = "CORRECTION_FLAG"
	PropertyMQ2Flag                        = "MQ2_FLAG"
	PropertyReconsumeTime                  = "RECONSUME_TIME"
	PropertyMsgRegion                      = "MSG_REGION"
	PropertyTraceSwitch                    = "TRACE_ON"
	PropertyUniqClientMessageIDKeyIdx      = "UNIQ_KEY"
	PropertyMaxReconsumeTimes              = "MAX_RECONSUME_TIMES"
	PropertyConsumeStartTimestamp          = "CONSUME_START_TIME"
	PropertyTransactionPreparedQueueOffset = "TRAN_PREPARED_QUEUE_OFFSET"
	PropertyTransactionCheckTimes          = "TRANSACTION_CHECK_TIMES"
	PropertyCheckImmunityTimeInSeconds     = "CHECK_IMMUNITY_TIME_IN_SECONDS"
	PropertyInstanceID                     = "INSTANCE_ID"
	PropertyCorrelationID                  = "CORRELATION_ID"
	PropertyMessageReplyToClient           = "REPLY_TO_CLIENT"
	PropertyMessageTTL                     = "TTL"
	PropertyReplyMessageArriveTime         = "ARRIVE_TIME"
	PropertyPushReplyTime                  = "PUSH_REPLY_TIME"
	PropertyCluster                        = "CLUSTER"
	PropertyMessageType                    = "MSG_TYPE"
	PropertyInnerMultiDispatch             = "INNER_MULTI_DISPATCH"
	PropertyInnerMultiQueueOffset          = "INNER_MULTI_QUEUE_OFFSET"
	// PropertyTransactionID is the user property the Java producer sets on transaction sends.
	PropertyTransactionID = "__transactionId__"
	// KeySeparator splits the KEYS property into index keys (Java: MessageConst#KEY_SEPARATOR).
	KeySeparator = " "
)
