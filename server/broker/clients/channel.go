package clients

import (
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// channelExpire is how long a client channel lives without a heartbeat (Java:
// ConsumerManager/ProducerManager CHANNEL_EXPIRED_TIMEOUT).
const channelExpire = 120 * time.Second

// Channel is one client connection of a group (Java: ClientChannelInfo).
type Channel struct {
	Conn       *remoting.Conn
	ClientID   string
	Language   protocol.LanguageCode
	Version    int32
	LastUpdate time.Time
}
