package configs

import (
	"errors"
	"fmt"
)

// ErrUnknownEnum is returned when a BrokerRole or FlushDiskType value is not one of the
// Java enum names (Java: Enum.valueOf, which is case-sensitive).
var ErrUnknownEnum = errors.New("configs: unknown enum value")

// BrokerRole is Java's store BrokerRole. Its text form is the Java constant name.
type BrokerRole int32

// Java: org.apache.rocketmq.store.config.BrokerRole, in declaration order.
const (
	AsyncMaster BrokerRole = iota // ASYNC_MASTER: acknowledge sends before slaves have them.
	SyncMaster                    // SYNC_MASTER: acknowledge sends once a slave has them.
	Slave                         // SLAVE: replicate from the master; read-only for clients.
)

var brokerRoleNames = [...]string{"ASYNC_MASTER", "SYNC_MASTER", "SLAVE"}

// String returns the Java name (ASYNC_MASTER, SYNC_MASTER, SLAVE).
func (r BrokerRole) String() string {
	if r >= 0 && int(r) < len(brokerRoleNames) {
		return brokerRoleNames[r]
	}
	return fmt.Sprintf("BrokerRole(%d)", int32(r))
}

// MarshalText returns the Java name.
func (r BrokerRole) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText accepts exactly the Java names.
func (r *BrokerRole) UnmarshalText(b []byte) error {
	for i, n := range brokerRoleNames {
		if string(b) == n {
			*r = BrokerRole(i)
			return nil
		}
	}
	return fmt.Errorf("%w: BrokerRole %q (want ASYNC_MASTER, SYNC_MASTER or SLAVE)", ErrUnknownEnum, b)
}

// FlushDiskType is Java's store FlushDiskType. Its text form is the Java constant name.
type FlushDiskType int32

// Java: org.apache.rocketmq.store.config.FlushDiskType, in declaration order.
const (
	SyncFlush  FlushDiskType = iota // SYNC_FLUSH: a send is acknowledged after its fsync (group commit).
	AsyncFlush                      // ASYNC_FLUSH: the CommitLog is flushed periodically.
)

var flushDiskTypeNames = [...]string{"SYNC_FLUSH", "ASYNC_FLUSH"}

// String returns the Java name (SYNC_FLUSH, ASYNC_FLUSH).
func (t FlushDiskType) String() string {
	if t >= 0 && int(t) < len(flushDiskTypeNames) {
		return flushDiskTypeNames[t]
	}
	return fmt.Sprintf("FlushDiskType(%d)", int32(t))
}

// MarshalText returns the Java name.
func (t FlushDiskType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText accepts exactly the Java names.
func (t *FlushDiskType) UnmarshalText(b []byte) error {
	for i, n := range flushDiskTypeNames {
		if string(b) == n {
			*t = FlushDiskType(i)
			return nil
		}
	}
	return fmt.Errorf("%w: FlushDiskType %q (want SYNC_FLUSH or ASYNC_FLUSH)", ErrUnknownEnum, b)
}
