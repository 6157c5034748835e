package configs

import (
	"io"
	"maps"
	"slices"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// Namesrv is a NameServer's whole configuration as NamesrvStartup builds it.
//
// Typical use in cmd/mqnamesrv:
//
//	n := configs.NewNamesrv()
//	if file != "" { unknown, err := n.LoadFile(file) ... }  // -c
//	if printAll { n.Print(os.Stdout) }                        // -p
type Namesrv struct {
	Namesrv NamesrvConfig
	Server  NettyServerConfig

	// FileProps holds every property of the loaded file (Java:
	// Configuration#registerConfig(Properties)); GET_NAMESRV_CONFIG reports them too.
	FileProps map[string]string
}

// NewNamesrv returns Java's defaults with listenPort 9876, as NamesrvStartup sets it.
func NewNamesrv() *Namesrv {
	n := &Namesrv{Namesrv: DefaultNamesrvConfig(), Server: DefaultNettyServerConfig()}
	n.Server.ListenPort = 9876
	return n
}

// Targets returns the two config objects in Java's order.
func (n *Namesrv) Targets() []any { return []any{&n.Namesrv, &n.Server} }

// LoadFile reads a namesrv.conf (-c) and applies it (see Load). As NamesrvStartup does,
// configStorePath becomes path: UPDATE_NAMESRV_CONFIG persists into the -c file.
func (n *Namesrv) LoadFile(path string) (unknown []string, err error) {
	props, err := LoadProperties(path)
	if err != nil {
		return nil, err
	}
	unknown, err = n.Load(props)
	n.Namesrv.ConfigStorePath = path
	return unknown, err
}

// Load applies props to both configs (see Apply) and remembers them in FileProps.
func (n *Namesrv) Load(props map[string]string) (unknown []string, err error) {
	unknown, err = Apply(props, n.Targets()...)
	unknown = slices.DeleteFunc(unknown, func(k string) bool { return isSkyrocketKey(k) || isTransportKey(k) })
	if n.FileProps == nil {
		n.FileProps = make(map[string]string, len(props))
	}
	maps.Copy(n.FileProps, props)
	return unknown, err
}

// Print writes both configs as `mqnamesrv -p` does.
func (n *Namesrv) Print(w io.Writer) error { return Print(w, n.Targets()...) }

// AllProperties is the configuration as GET_NAMESRV_CONFIG reports it (see
// Broker.AllProperties).
func (n *Namesrv) AllProperties() []compat.KV { return allProperties(n.Targets(), n.FileProps) }

// PropertiesText is AllProperties as "key=value\n" text: the GET_NAMESRV_CONFIG body and
// what UPDATE_NAMESRV_CONFIG persists to configStorePath.
func (n *Namesrv) PropertiesText() []byte { return compat.FormatProperties(n.AllProperties()) }

// BlackList is the set of keys UPDATE_NAMESRV_CONFIG refuses: configBlackList,
// configStorePath, kvConfigPath, rocketmqHome and the entries of
// NamesrvConfig.ConfigBlackList (Java: DefaultRequestProcessor#initConfigBlackList).
func (n *Namesrv) BlackList() []string {
	return blackList([]string{"configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome"}, n.Namesrv.ConfigBlackList)
}

// Clone returns a deep copy.
func (n *Namesrv) Clone() *Namesrv {
	c := *n
	c.FileProps = maps.Clone(n.FileProps)
	return &c
}

// Update applies an UPDATE_NAMESRV_CONFIG body to a copy of n and returns it, with the
// same rules and errors as Broker.Update (Java: DefaultRequestProcessor#updateConfig).
// The caller persists PropertiesText to Namesrv.ConfigStorePath.
func (n *Namesrv) Update(body []byte) (*Namesrv, error) {
	props, err := parseUpdate(body, n.BlackList())
	if err != nil {
		return nil, err
	}
	c := n.Clone()
	_, err = Apply(props, c.Targets()...)
	mergeIfExist(c.FileProps, props)
	return c, err
}
