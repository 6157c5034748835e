package server

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

// NamesrvOptions maps a NameServer configuration onto namesrv.Options: 0.0.0.0:listenPort
// (Java binds every interface), kvConfigPath, orderMessageEnable,
// serverChannelMaxIdleTimeSeconds, the limits and TLS (TransportOptions), and a NamesrvConfiguration over cfg for
// GET/UPDATE_NAMESRV_CONFIG. Broker expiry (120 s) and the scan period (10 s) are Java
// constants, not properties, and keep namesrv's defaults. The Logger is left Nop.
//
// Java: NamesrvStartup#createNamesrvController, NamesrvController.
func NamesrvOptions(cfg *configs.Namesrv) namesrv.Options {
	return namesrv.Options{
		ListenAddr:         net.JoinHostPort("0.0.0.0", strconv.Itoa(int(cfg.Server.ListenPort))),
		KVConfigPath:       cfg.Namesrv.KvConfigPath,
		OrderMessageEnable: cfg.Namesrv.OrderMessageEnable,
		IdleTimeout:        time.Duration(cfg.Server.ServerChannelMaxIdleTimeSeconds) * time.Second,
		Transport:          TransportOptions(cfg.Server, cfg.FileProps, false),
		Config:             NewNamesrvConfiguration(cfg),
	}
}

// NamesrvConfiguration is namesrv.Configuration over a configs.Namesrv, as Java's
// Configuration is over NamesrvConfig and NettyServerConfig: Format is the
// GET_NAMESRV_CONFIG body, Update applies an UPDATE_NAMESRV_CONFIG and persists the whole
// configuration to configStorePath (Java: Configuration#update, then #persist with
// MixAll.string2File, which keeps a .bak).
//
// Updates change the configuration that GET_NAMESRV_CONFIG reports and the file; the
// running server keeps the options it was started with (orderMessageEnable,
// serverChannelMaxIdleTimeSeconds take effect at the next start).
type NamesrvConfiguration struct {
	mu  sync.Mutex // serializes Update (read, apply, persist) and guards cfg
	cfg *configs.Namesrv
}

// NewNamesrvConfiguration wraps a copy of cfg.
func NewNamesrvConfiguration(cfg *configs.Namesrv) *NamesrvConfiguration {
	return &NamesrvConfiguration{cfg: cfg.Clone()}
}

// Current returns a copy of the configuration as updated so far.
func (c *NamesrvConfiguration) Current() *configs.Namesrv {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg.Clone()
}

// Format returns every property as "key=value\n" text (Java:
// Configuration#getAllConfigsFormatString).
func (c *NamesrvConfiguration) Format() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.cfg.PropertiesText())
}

// BlackList returns the keys UPDATE_NAMESRV_CONFIG refuses (configs.Namesrv.BlackList).
func (c *NamesrvConfiguration) BlackList() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg.BlackList()
}

// Update applies props and persists the configuration to configStorePath. Values that
// do not parse are ignored, as Java's properties2Object ignores them; the rest apply.
// A black-listed key is refused with configs.ErrBlackListed (the namesrv handler checks
// the list first). A failed write is returned wrapped; the in-memory update stands, as
// in Java, whose persist only logs the IOException.
func (c *NamesrvConfiguration) Update(props map[string]string) error {
	var body []byte
	for _, k := range slices.Sorted(maps.Keys(props)) {
		body = compat.AppendProperty(body, k, props[k])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next, err := c.cfg.Update(body)
	if err != nil && !errors.Is(err, configs.ErrInvalidValue) {
		return err
	}
	c.cfg = next
	if path := next.Namesrv.ConfigStorePath; path != "" {
		if err := compat.String2File(next.PropertiesText(), path); err != nil {
			return fmt.Errorf("server: persist name server config to %s: %w", path, err)
		}
	}
	return nil
}
