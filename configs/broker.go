package configs

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// ErrBadNamesrvAddr is returned by Broker.Resolve for a namesrvAddr entry that is not
// host:port; its text continues with Java's message ("The Name Server Address[...]
// illegal, please set it as follows, ...").
var ErrBadNamesrvAddr = errors.New("configs: bad namesrvAddr")

// ErrSlaveBrokerID is returned by Broker.Resolve for a SLAVE whose brokerId is not > 0
// (Java prints "Slave's brokerId must be > 0" and exits).
var ErrSlaveBrokerID = errors.New("configs: Slave's brokerId must be > 0")

// ErrBlackListed is returned by Update when the body sets a key of the config black list.
// Java answers NO_PERMISSION with RemarkBlackListed.
var ErrBlackListed = errors.New("configs: Can not update config in black list")

// ErrBadProperties is returned by Update when the body does not parse as properties.
// Java answers SYSTEM_ERROR with RemarkBadProperties.
var ErrBadProperties = errors.New("configs: string2Properties error")

// Java's remarks for the UPDATE_BROKER_CONFIG / UPDATE_NAMESRV_CONFIG failures.
const (
	RemarkBlackListed   = "Can not update config in black list."
	RemarkBadProperties = "string2Properties error"
)

// Keys BrokerStartup consumes itself (properties2SystemEnv): the address server that
// fetchNamesrvAddrByAddressServer polls. They are known keys although no field has them.
const (
	KeyAddressServerDomain   = "rmqAddressServerDomain"
	KeyAddressServerSubGroup = "rmqAddressServerSubGroup"
)

// Broker is a broker's whole configuration as BrokerStartup builds it: the four Java
// config objects plus what Java's Configuration keeps beside them.
//
// Typical use in cmd/mqbroker:
//
//	b := configs.NewBroker()
//	if file != "" { unknown, err := b.LoadFile(file) ... }  // -c
//	if n != "" { b.Broker.NamesrvAddr = n }                   // -n
//	if err := b.Resolve(); err != nil { ... }
//	if printAll { b.Print(os.Stdout) }                        // -p
//
// A Broker is a plain value: Update returns a new one instead of changing it, so a server
// can swap configurations atomically while handlers read the old one.
type Broker struct {
	Broker BrokerConfig
	Server NettyServerConfig
	Client NettyClientConfig
	Store  MessageStoreConfig

	// ConfigPath is where UPDATE_BROKER_CONFIG persists PropertiesText: the -c file, or
	// DefaultBrokerConfigPath (Java: BrokerPathConfigHelper.brokerConfigPath). Java
	// rewrites the -c file itself; so does a faithful server.
	ConfigPath string

	// FileProps holds every property of the loaded file (Java:
	// Configuration#registerConfig(Properties)). GET_BROKER_CONFIG reports the keys no
	// field has as well.
	FileProps map[string]string
}

// NewBroker returns Java's defaults with listenPort 10911, as BrokerStartup sets it.
func NewBroker() *Broker {
	b := &Broker{
		Broker:     DefaultBrokerConfig(),
		Server:     DefaultNettyServerConfig(),
		Client:     DefaultNettyClientConfig(),
		Store:      DefaultMessageStoreConfig(),
		ConfigPath: DefaultBrokerConfigPath(),
	}
	b.Server.ListenPort = 10911
	return b
}

// Targets returns the four config objects in Java's order, for Apply and Print.
func (b *Broker) Targets() []any {
	return []any{&b.Broker, &b.Server, &b.Client, &b.Store}
}

// LoadFile reads a broker.conf (-c) and applies it (see Load); ConfigPath becomes path.
func (b *Broker) LoadFile(path string) (unknown []string, err error) {
	props, err := LoadProperties(path)
	if err != nil {
		return nil, err
	}
	b.ConfigPath = path
	return b.Load(props)
}

// Load applies props to the four configs (see Apply for parsing, unknown keys and
// ErrInvalidValue) and remembers them in FileProps. The address-server keys are not
// reported as unknown.
func (b *Broker) Load(props map[string]string) (unknown []string, err error) {
	unknown, err = Apply(props, b.Targets()...)
	unknown = slices.DeleteFunc(unknown, func(k string) bool {
		return k == KeyAddressServerDomain || k == KeyAddressServerSubGroup || isSkyrocketKey(k) || IsTimerKey(k) || isTransportKey(k)
	})
	if b.FileProps == nil {
		b.FileProps = make(map[string]string, len(props))
	}
	maps.Copy(b.FileProps, props)
	return unknown, err
}

// Resolve applies what BrokerStartup does after reading the file and -n:
//   - every namesrvAddr entry (";"-separated) must be host:port, else ErrBadNamesrvAddr;
//   - ASYNC_MASTER and SYNC_MASTER get brokerId 0; a SLAVE needs brokerId > 0, else
//     ErrSlaveBrokerID;
//   - with enableDLegerCommitLog, brokerId becomes -1 (DLedger itself is not supported;
//     cmd/ should refuse it);
//   - haListenPort becomes listenPort + 1.
//
// Java also refuses to start without ROCKETMQ_HOME (for its logback configuration);
// Skyrocket has no such need and does not check it.
func (b *Broker) Resolve() error {
	if addr := b.Broker.NamesrvAddr; addr != "" {
		if err := CheckNamesrvAddr(addr); err != nil {
			return err
		}
	}
	switch b.Store.BrokerRole {
	case AsyncMaster, SyncMaster:
		b.Broker.BrokerID = 0
	case Slave:
		if b.Broker.BrokerID <= 0 {
			return ErrSlaveBrokerID
		}
	}
	if b.Store.EnableDLegerCommitLog {
		b.Broker.BrokerID = -1
	}
	b.Store.HaListenPort = b.Server.ListenPort + 1
	return nil
}

// CheckNamesrvAddr validates a ";"-separated list of host:port the way BrokerStartup
// does (RemotingUtil.string2SocketAddress on each entry: split at the last ':', the port
// a decimal in 0..65535). Empty entries after the last ';' are ignored, as Java's split
// drops them.
func CheckNamesrvAddr(addr string) error {
	entries := strings.Split(addr, ";")
	for len(entries) > 0 && entries[len(entries)-1] == "" {
		entries = entries[:len(entries)-1]
	}
	for _, e := range entries {
		i := strings.LastIndexByte(e, ':')
		if i < 0 {
			return badNamesrvAddr(addr)
		}
		port, err := strconv.ParseInt(e[i+1:], 10, 32)
		if err != nil || port < 0 || port > 65535 {
			return badNamesrvAddr(addr)
		}
	}
	return nil
}

func badNamesrvAddr(addr string) error {
	return fmt.Errorf("%w: The Name Server Address[%s] illegal, please set it as follows, \"127.0.0.1:9876;192.168.0.1:9876\"",
		ErrBadNamesrvAddr, addr)
}

// Print writes the four configs as `mqbroker -p` does (see configs.Print).
func (b *Broker) Print(w io.Writer) error {
	return Print(w, b.Targets()...)
}

// PrintImportant writes the @ImportantField items as `mqbroker -m` does.
func (b *Broker) PrintImportant(w io.Writer) error {
	return PrintImportant(w, b.Targets()...)
}

// AllProperties is the broker's configuration as GET_BROKER_CONFIG reports it (Java:
// Configuration#getAllConfigsFormatString): every field of the four objects by Java
// field name (null Strings left out; a name on two objects, like writeBufferLowWaterMark,
// once, with the later object's value), then the file's other keys, sorted. Java's
// order is its Hashtable's; readers parse the text into Properties, so order is free.
func (b *Broker) AllProperties() []compat.KV {
	return allProperties(b.Targets(), b.FileProps)
}

// PropertiesText is AllProperties as "key=value\n" text: the GET_BROKER_CONFIG body and
// what UPDATE_BROKER_CONFIG persists to ConfigPath.
func (b *Broker) PropertiesText() []byte {
	return compat.FormatProperties(b.AllProperties())
}

// BlackList is the set of keys UPDATE_BROKER_CONFIG refuses: brokerConfigPath,
// rocketmqHome, configBlackList and the entries of BrokerConfig.ConfigBlackList (Java:
// AdminBrokerProcessor#initConfigBlackList).
func (b *Broker) BlackList() []string {
	return blackList([]string{"brokerConfigPath", "rocketmqHome", "configBlackList"}, b.Broker.ConfigBlackList)
}

// Clone returns a deep copy.
func (b *Broker) Clone() *Broker {
	c := *b
	c.FileProps = maps.Clone(b.FileProps)
	return &c
}

// Update applies an UPDATE_BROKER_CONFIG body (properties text) to a copy of b and
// returns the copy (Java: AdminBrokerProcessor#updateBrokerConfig, then
// Configuration#update):
//   - a body that does not parse: ErrBadProperties (Java: SYSTEM_ERROR, RemarkBadProperties);
//   - any black-listed key: ErrBlackListed (Java: NO_PERMISSION, RemarkBlackListed);
//   - otherwise each key sets the fields that have it; keys already in FileProps are
//     updated there; unknown keys change nothing.
//
// When the returned error wraps ErrInvalidValue, the returned Broker is still the valid
// result (Java answers SUCCESS and ignores such values). The caller persists
// PropertiesText to ConfigPath and, when the body has brokerPermission, re-registers
// with the NameServers.
func (b *Broker) Update(body []byte) (*Broker, error) {
	props, err := parseUpdate(body, b.BlackList())
	if err != nil {
		return nil, err
	}
	c := b.Clone()
	_, err = Apply(props, c.Targets()...)
	mergeIfExist(c.FileProps, props)
	return c, err
}

// AddressServerURL is the URL the broker polls for namesrvAddr when
// fetchNamesrvAddrByAddressServer is on (Java: MixAll.getWSAddr with the system
// properties BrokerStartup sets from rmqAddressServerDomain, default "jmenv.tbsite.net",
// and rmqAddressServerSubGroup, default "nsaddr").
func (b *Broker) AddressServerURL() string {
	domain, sub := "jmenv.tbsite.net", "nsaddr"
	if v, ok := b.FileProps[KeyAddressServerDomain]; ok {
		domain = v
	}
	if v, ok := b.FileProps[KeyAddressServerSubGroup]; ok {
		sub = v
	}
	if strings.IndexByte(domain, ':') > 0 {
		return "http://" + domain + "/rocketmq/" + sub
	}
	return "http://" + domain + ":8080/rocketmq/" + sub
}

func allProperties(targets []any, fileProps map[string]string) []compat.KV {
	var out []compat.KV
	pos := map[string]int{}
	for _, t := range targets {
		for _, kv := range ObjectProperties(t) {
			if i, ok := pos[kv.Key]; ok {
				out[i].Value = kv.Value
				continue
			}
			pos[kv.Key] = len(out)
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(fileProps)) {
		if _, ok := pos[k]; !ok {
			out = append(out, compat.KV{Key: k, Value: fileProps[k]})
		}
	}
	return out
}

func blackList(fixed []string, configured string) []string {
	out := slices.Clone(fixed)
	for _, k := range strings.Split(configured, ";") {
		if k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func parseUpdate(body []byte, black []string) (map[string]string, error) {
	kvs, err := compat.ParseProperties(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadProperties, err)
	}
	props := compat.PropertiesMap(kvs)
	for _, k := range black {
		if _, ok := props[k]; ok {
			return nil, fmt.Errorf("%w: %s", ErrBlackListed, k)
		}
	}
	return props, nil
}

// mergeIfExist is Java's Configuration#mergeIfExist over the file's properties.
func mergeIfExist(to, from map[string]string) {
	for k, v := range from {
		if _, ok := to[k]; ok {
			to[k] = v
		}
	}
}
