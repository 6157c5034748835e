package broker

// ACL on every request (Java: BrokerController#initialAcl registers an RPC hook that runs
// PlainAccessValidator#validate(parse(request, remoteAddr)) before every processor, on
// the main and the VIP server, for every code including unknown ones and oneway
// requests). Skyrocket wraps each route's handler, and the unknown-code handler, when
// aclEnable=true: the check runs where the handler runs (inline routes on the event
// loop: the check never blocks, it hashes the request it already holds; pooled routes on
// their pool, after the pool's SYSTEM_BUSY fast failure as in Java). A refusal is
// answered with code 1 and Java's remark; a oneway request gets no answer.
//
// Which codes need which resources, and which are only signature-checked (batch send
// 320, offset queries, locks, admin reads, 50-53, ...), is server/broker/acl's table,
// copied from 4.9.8's PlainAccessValidator#parse.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/acl"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// newACL loads the ACL files when aclEnable=true (nil otherwise).
func (b *Broker) newACL() error {
	cfg := b.opts.Config
	if cfg == nil || !cfg.Broker.ACLEnable {
		return nil
	}
	v, err := acl.New(acl.Options{Home: cfg.Broker.RocketmqHome, PlainFile: b.opts.ACLPlainFile,
		WatchInterval: b.opts.ACLWatchInterval, Logger: b.log})
	if err != nil {
		return err
	}
	b.acl = v
	b.log.Info().Str("file", v.DefaultFile()).Msg("acl enabled")
	return nil
}

// guarded wraps every route (and the unknown-code handler) with the ACL check.
func (b *Broker) guarded(routes []remoting.Route) []remoting.Route {
	if b.acl == nil {
		return routes
	}
	for i := range routes {
		routes[i].Handler = b.aclGuard(routes[i].Handler)
	}
	return routes
}

func (b *Broker) aclGuard(h remoting.Handler) remoting.Handler {
	return func(x *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
		if err := b.acl.Check(req.Code, req.Ext, req.Body, x.Conn.RemoteAddr()); err != nil {
			b.log.Debug().Int32("code", req.Code).Str("remote", x.Conn.RemoteAddr()).Str("remark", err.Remark).Msg("acl refused")
			return nil, err
		}
		return h(x, req)
	}
}
