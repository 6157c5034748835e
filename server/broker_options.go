package server

import (
	"os"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

// ErrUnsupported is broker.ErrUnsupported: BrokerOptions returns it when the
// configuration turns on a Java feature Skyrocket does not implement and whose absence
// clients would notice.
var ErrUnsupported = broker.ErrUnsupported

// BrokerOptions derives the broker's options from a resolved broker configuration
// (configs.Broker after LoadFile, -n and Resolve) through broker.OptionsFrom, the one
// mapping, which also keeps a copy of cfg as Options.Config. The one thing it adds is the
// process's environment: an empty namesrvAddr falls back to $NAMESRV_ADDR (its default
// already comes from there, see configs.DefaultBrokerConfig; this covers a file that sets
// it empty), and the listeners' limits and TLS, and the outbound client's TLS
// (TransportOptions). The Logger is left Nop: the caller sets it.
//
// Properties that have no effect are listed in ineffective.go (see
// IneffectiveBrokerProperties).
func BrokerOptions(cfg *configs.Broker) (broker.Options, error) {
	o, err := broker.OptionsFrom(cfg)
	if err != nil {
		return broker.Options{}, err
	}
	if len(o.NamesrvAddrs) == 0 {
		o.NamesrvAddrs = broker.SplitNamesrvAddr(os.Getenv("NAMESRV_ADDR"))
	}
	o.Transport = TransportOptions(cfg.Server, cfg.FileProps, true)
	return o, nil
}
