package configs

import (
	"math"
	"os"
	"path/filepath"
)

// userHome is Java's System.getProperty("user.home"): $HOME, or "" (relative paths)
// when it cannot be had.
func userHome() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return h
}

// DefaultBrokerConfigPath is where a broker started without -c persists its configuration
// on UPDATE_BROKER_CONFIG: $HOME/store/config/broker.properties (Java:
// BrokerPathConfigHelper.brokerConfigPath).
func DefaultBrokerConfigPath() string {
	return filepath.Join(userHome(), "store", "config", "broker.properties")
}

// CommitLogDir is the CommitLog directory: StorePathCommitLog, or
// <StorePathRootDir>/commitlog when unset (Java: MessageStoreConfig#getStorePathCommitLog).
func (c *MessageStoreConfig) CommitLogDir() string {
	if c.StorePathCommitLog == "" {
		return filepath.Join(c.StorePathRootDir, "commitlog")
	}
	return c.StorePathCommitLog
}

// ConsumeQueueFileSize is MappedFileSizeConsumeQueue rounded up to whole 20-byte units
// (Java: MessageStoreConfig#getMappedFileSizeConsumeQueue).
func (c *MessageStoreConfig) ConsumeQueueFileSize() int32 {
	units := math.Ceil(float64(c.MappedFileSizeConsumeQueue) / ConsumeQueueUnitSize)
	return int32(units) * ConsumeQueueUnitSize
}

// EffectiveDiskMaxUsedSpaceRatio is DiskMaxUsedSpaceRatio clamped to [10, 95] (Java:
// MessageStoreConfig#getDiskMaxUsedSpaceRatio).
func (c *MessageStoreConfig) EffectiveDiskMaxUsedSpaceRatio() int32 {
	return min(max(c.DiskMaxUsedSpaceRatio, 10), 95)
}

// EffectiveTransientStorePoolEnable reports whether the transient store pool is in use:
// only with ASYNC_FLUSH on a master (Java: MessageStoreConfig#isTransientStorePoolEnable).
func (c *MessageStoreConfig) EffectiveTransientStorePoolEnable() bool {
	return c.TransientStorePoolEnable && c.FlushDiskType == AsyncFlush && c.BrokerRole != Slave
}

// The store layout under StorePathRootDir (Java: StorePathConfigHelper and
// BrokerPathConfigHelper).

// ConsumeQueueDir is <root>/consumequeue.
func (c *MessageStoreConfig) ConsumeQueueDir() string {
	return filepath.Join(c.StorePathRootDir, "consumequeue")
}

// ConsumeQueueExtDir is <root>/consumequeue_ext.
func (c *MessageStoreConfig) ConsumeQueueExtDir() string {
	return filepath.Join(c.StorePathRootDir, "consumequeue_ext")
}

// IndexDir is <root>/index.
func (c *MessageStoreConfig) IndexDir() string { return filepath.Join(c.StorePathRootDir, "index") }

// CheckpointPath is <root>/checkpoint.
func (c *MessageStoreConfig) CheckpointPath() string {
	return filepath.Join(c.StorePathRootDir, "checkpoint")
}

// AbortPath is <root>/abort, present while a broker runs (its presence at start means a crash).
func (c *MessageStoreConfig) AbortPath() string { return filepath.Join(c.StorePathRootDir, "abort") }

// LockPath is <root>/lock, locked by the running broker.
func (c *MessageStoreConfig) LockPath() string { return filepath.Join(c.StorePathRootDir, "lock") }

// ConfigDir is <root>/config, home of the JSON tables.
func (c *MessageStoreConfig) ConfigDir() string { return filepath.Join(c.StorePathRootDir, "config") }

// DelayOffsetPath is <root>/config/delayOffset.json.
func (c *MessageStoreConfig) DelayOffsetPath() string {
	return filepath.Join(c.ConfigDir(), "delayOffset.json")
}

// TopicConfigPath is <root>/config/topics.json.
func (c *MessageStoreConfig) TopicConfigPath() string {
	return filepath.Join(c.ConfigDir(), "topics.json")
}

// ConsumerOffsetPath is <root>/config/consumerOffset.json.
func (c *MessageStoreConfig) ConsumerOffsetPath() string {
	return filepath.Join(c.ConfigDir(), "consumerOffset.json")
}

// LmqConsumerOffsetPath is <root>/config/lmqConsumerOffset.json.
func (c *MessageStoreConfig) LmqConsumerOffsetPath() string {
	return filepath.Join(c.ConfigDir(), "lmqConsumerOffset.json")
}

// SubscriptionGroupPath is <root>/config/subscriptionGroup.json.
func (c *MessageStoreConfig) SubscriptionGroupPath() string {
	return filepath.Join(c.ConfigDir(), "subscriptionGroup.json")
}

// ConsumerFilterPath is <root>/config/consumerFilter.json.
func (c *MessageStoreConfig) ConsumerFilterPath() string {
	return filepath.Join(c.ConfigDir(), "consumerFilter.json")
}

// TranStateTableDir is <root>/transaction/statetable (unused by 4.x transactions; Java
// still names it).
func (c *MessageStoreConfig) TranStateTableDir() string {
	return filepath.Join(c.StorePathRootDir, "transaction", "statetable")
}

// TranRedoLogDir is <root>/transaction/redolog (as TranStateTableDir).
func (c *MessageStoreConfig) TranRedoLogDir() string {
	return filepath.Join(c.StorePathRootDir, "transaction", "redolog")
}
