package ha

import (
	"time"

	"github.com/rs/zerolog"
)

// Config holds the HA settings of Java's MessageStoreConfig, with Java's names in the
// comments and Java's defaults in DefaultConfig. NewMaster and NewSlave fill a zero or
// negative field with its default.
type Config struct {
	ListenAddr           string        // master: HA listen address (listenPort+1); "" = none
	HeartbeatInterval    time.Duration // haSendHeartbeatInterval, 5s
	HousekeepingInterval time.Duration // haHousekeepingInterval, 20s
	TransferBatchSize    int           // haTransferBatchSize, 32768; at most MaxFrameBody
	SlaveFallbehindMax   int64         // haSlaveFallbehindMax, 256 MiB
	Log                  zerolog.Logger
}

// DefaultConfig returns Java 4.9.8's defaults, no listen address and a Nop logger.
func DefaultConfig() Config {
	return Config{
		HeartbeatInterval:    5 * time.Second,
		HousekeepingInterval: 20 * time.Second,
		TransferBatchSize:    32768,
		SlaveFallbehindMax:   256 << 20,
		Log:                  zerolog.Nop(),
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = d.HeartbeatInterval
	}
	if c.HousekeepingInterval <= 0 {
		c.HousekeepingInterval = d.HousekeepingInterval
	}
	if c.TransferBatchSize <= 0 {
		c.TransferBatchSize = d.TransferBatchSize
	}
	// A Java slave reads into a 4 MiB buffer and can never take a bigger frame.
	c.TransferBatchSize = min(c.TransferBatchSize, MaxFrameBody)
	if c.SlaveFallbehindMax <= 0 {
		c.SlaveFallbehindMax = d.SlaveFallbehindMax
	}
	return c
}

// Timers that Java does not make configurable.
const (
	idleWait       = 100 * time.Millisecond // master writer's poll for new data (HAConnection: waitForRunning(100))
	reconnectDelay = 5 * time.Second        // slave: no address, or the connect failed (HAClient: waitForRunning(1000 * 5))
	connectTimeout = 5 * time.Second        // slave's connect (RemotingUtil#connect)
	// quickFailWindow: a session that ends this soon after connecting without appending
	// anything (a master refusing us) is retried after min(reconnect delay, this), so
	// a refusing master is not hammered. Java's slave is throttled by its 5 s first report.
	quickFailWindow = time.Second
)
