package broker

// GET_BROKER_CONFIG (26) and UPDATE_BROKER_CONFIG (25). Java: AdminBrokerProcessor
// #getBrokerConfig / #updateBrokerConfig over Configuration (BrokerConfig,
// NettyServerConfig, NettyClientConfig, MessageStoreConfig).
//
//   - GET answers the whole configuration as "key=value\n" text (configs.Broker
//     PropertiesText) with the configuration's DataVersion JSON in the `version` header.
//   - UPDATE takes properties text. A key of the black list (brokerConfigPath,
//     rocketmqHome, configBlackList and configBlackList's own entries) is refused with
//     NO_PERMISSION "Can not update config in black list."; a body that does not parse
//     with SYSTEM_ERROR "string2Properties error"; values that do not parse are ignored,
//     as Java's properties2Object ignores them. Otherwise the configuration is updated, its
//     DataVersion moves on and the whole configuration is written to the file it was
//     loaded from (-c, else Java's default path; a write failure is only logged, as in
//     Java). An empty body changes nothing.
//   - Applied at once, as Java applies them: brokerPermission (sends, pulls and the
//     registration read it; the broker re-registers with every NameServer at once with
//     a new topic DataVersion, as Java's registerBrokerAll(false, false, true)) and
//     autoDeleteUnusedStats. Every other key is reported by GET and persisted, and takes
//     effect at the next start: Skyrocket's components copy their settings when they
//     are built (conformance/UNSUPPORTED.md lists this).

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// adminState is what the admin handlers keep beside the managers: the live
// configuration snapshot and the settings UPDATE_BROKER_CONFIG changes at runtime. Zero
// value ready; it is filled from Options.Config on first use.
type adminState struct {
	once    sync.Once
	mu      sync.Mutex                     // serializes updates; guards version
	cfg     atomic.Pointer[configs.Broker] // the snapshot: replaced, never changed in place
	version protocol.DataVersion

	perm       atomic.Int32 // brokerPermission
	autoDelete atomic.Bool  // autoDeleteUnusedStats
}

func (b *Broker) adminInit() {
	b.admin.once.Do(func() {
		a := &b.admin
		cfg := b.opts.Config
		// Java's ConsumerFilterManager overwrites bitMapLengthConsumeQueueExt with its
		// bloom filter's size at start, so Java's configuration reports that, not 64.
		if cfg != nil && b.filters != nil {
			if n := b.filters.BitMapLength(); n > 0 && cfg.Store.BitMapLengthConsumeQueueExt != n {
				cfg = cfg.Clone()
				cfg.Store.BitMapLengthConsumeQueueExt = n
			}
		}
		a.cfg.Store(cfg)
		a.version = protocol.DataVersion{Timestamp: time.Now().UnixMilli()}
		a.perm.Store(b.opts.BrokerPermission)
		a.autoDelete.Store(b.opts.Config.Broker.AutoDeleteUnusedStats)
	})
}

// config returns the configuration snapshot as updated so far. The value is never
// changed (updates replace it): callers may keep and read it.
func (b *Broker) config() *configs.Broker {
	b.adminInit()
	return b.admin.cfg.Load()
}

// brokerPermission is the broker's permission as updated at runtime (Java:
// BrokerConfig#getBrokerPermission, read at each use).
func (b *Broker) brokerPermission() int32 {
	b.adminInit()
	return b.admin.perm.Load()
}

// autoDeleteUnusedStats is BrokerConfig#isAutoDeleteUnusedStats as updated at runtime.
func (b *Broker) autoDeleteUnusedStats() bool {
	b.adminInit()
	return b.admin.autoDelete.Load()
}

func (b *Broker) getBrokerConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	b.adminInit()
	a := &b.admin
	a.mu.Lock()
	body := a.cfg.Load().PropertiesText()
	version := a.version
	a.mu.Unlock()
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	rh := protocol.GetBrokerConfigResponseHeader{Version: string(version.AppendJSON(nil))}
	rh.Encode(&resp.Ext)
	if len(body) > 0 {
		resp.Body = body
	}
	return resp, nil
}

func (b *Broker) updateBrokerConfig(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	b.log.Info().Str("remote", remoteOf(ctx)).Msg("updateBrokerConfig called")
	if len(req.Body) == 0 {
		return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
	}
	b.adminInit()
	a := &b.admin
	a.mu.Lock()
	next, err := a.cfg.Load().Update(req.Body) // a new snapshot: clone, then apply
	switch {
	case errors.Is(err, configs.ErrBlackListed):
		a.mu.Unlock()
		return nil, protocol.Errorf(protocol.ResNoPermission, configs.RemarkBlackListed)
	case errors.Is(err, configs.ErrBadProperties):
		a.mu.Unlock()
		return nil, protocol.Errorf(protocol.ResSystemError, configs.RemarkBadProperties)
	case err != nil && !errors.Is(err, configs.ErrInvalidValue):
		a.mu.Unlock()
		return nil, protocol.Errorf(protocol.ResSystemError, "%v", err)
	case err != nil:
		b.log.Warn().Err(err).Msg("updateBrokerConfig: values that do not parse are ignored")
	}
	a.cfg.Store(next)
	a.version = protocol.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: a.version.Counter + 1}
	if path := next.ConfigPath; path != "" {
		if err := compat.String2File(next.PropertiesText(), path); err != nil {
			b.log.Error().Err(err).Str("path", path).Msg("persist broker config")
		}
	}
	a.mu.Unlock()
	b.log.Info().Str("remote", remoteOf(ctx)).Str("config", strings.TrimSpace(string(req.Body))).Msg("updateBrokerConfig, new config")

	kvs, _ := compat.ParseProperties(req.Body)
	props := compat.PropertiesMap(kvs)
	a.autoDelete.Store(next.Broker.AutoDeleteUnusedStats)
	if _, ok := props["brokerPermission"]; ok {
		a.perm.Store(next.Broker.BrokerPermission)
		w := b.topics.Wrapper()
		w.DataVersion = protocol.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: w.DataVersion.Counter + 1}
		b.register(w, false)
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

// remoteOf is the caller's address for the logs ("" when the handler is called directly).
func remoteOf(ctx *remoting.Context) string {
	if ctx == nil || ctx.Conn == nil {
		return ""
	}
	return ctx.Conn.RemoteAddr()
}
