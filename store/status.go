package store

// PutStatus mirrors Java PutMessageStatus; String gives the Java name.
type PutStatus int

// Put statuses, in Java's order.
const (
	PutOK PutStatus = iota
	PutFlushDiskTimeout
	PutFlushSlaveTimeout
	PutSlaveNotAvailable
	PutServiceNotAvailable
	PutCreateMappedFileFailed
	PutMessageIllegal
	PutPropertiesSizeExceeded
	PutOSPageCacheBusy
	PutUnknownError
	PutLmqConsumeQueueNumExceeded
)

var putStatusNames = [...]string{"PUT_OK", "FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE",
	"SERVICE_NOT_AVAILABLE", "CREATE_MAPEDFILE_FAILED", "MESSAGE_ILLEGAL", "PROPERTIES_SIZE_EXCEEDED",
	"OS_PAGECACHE_BUSY", "UNKNOWN_ERROR", "LMQ_CONSUME_QUEUE_NUM_EXCEEDED"}

func (s PutStatus) String() string {
	if s >= 0 && int(s) < len(putStatusNames) {
		return putStatusNames[s]
	}
	return "UNKNOWN_ERROR"
}

// GetStatus mirrors Java GetMessageStatus; String gives the Java name (the pull
// response's remark).
type GetStatus int

// Get statuses, in Java's order.
const (
	GetFound GetStatus = iota
	GetNoMatchedMessage
	GetMessageWasRemoving
	GetOffsetFoundNull
	GetOffsetOverflowBadly
	GetOffsetOverflowOne
	GetOffsetTooSmall
	// GetNoMatchedLogicQueue exists for completeness: Java 4.9.8 creates a missing
	// ConsumeQueue on lookup, so it answers NO_MESSAGE_IN_QUEUE instead, and so do we.
	GetNoMatchedLogicQueue
	GetNoMessageInQueue
)

var getStatusNames = [...]string{"FOUND", "NO_MATCHED_MESSAGE", "MESSAGE_WAS_REMOVING", "OFFSET_FOUND_NULL",
	"OFFSET_OVERFLOW_BADLY", "OFFSET_OVERFLOW_ONE", "OFFSET_TOO_SMALL", "NO_MATCHED_LOGIC_QUEUE", "NO_MESSAGE_IN_QUEUE"}

func (s GetStatus) String() string {
	if s >= 0 && int(s) < len(getStatusNames) {
		return getStatusNames[s]
	}
	return "UNKNOWN"
}

// FlushDiskType is Java's flushDiskType.
type FlushDiskType int

// Flush disk types.
const (
	AsyncFlush FlushDiskType = iota // ASYNC_FLUSH, the default
	SyncFlush                       // SYNC_FLUSH: group commit, WaitFlushed releases waiters
)

func (f FlushDiskType) String() string {
	if f == SyncFlush {
		return "SYNC_FLUSH"
	}
	return "ASYNC_FLUSH"
}
