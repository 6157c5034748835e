package acl

// plain_acl.yml: reading the files into an immutable snapshot (Java:
// PlainPermissionManager#load, #buildPlainAccessResource, Permission#parseResourcePerms).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// AccountConfig is one entry of "accounts" (Java: PlainAccessConfig).
type AccountConfig struct {
	AccessKey          string   `yaml:"accessKey"`
	SecretKey          string   `yaml:"secretKey"`
	WhiteRemoteAddress string   `yaml:"whiteRemoteAddress"`
	Admin              bool     `yaml:"admin"`
	DefaultTopicPerm   string   `yaml:"defaultTopicPerm"`
	DefaultGroupPerm   string   `yaml:"defaultGroupPerm"`
	TopicPerms         []string `yaml:"topicPerms"`
	GroupPerms         []string `yaml:"groupPerms"`
}

// DataVersion is Java's DataVersion as the ACL files and code 52 carry it.
type DataVersion struct {
	Counter   int64 `yaml:"counter" json:"counter"`
	Timestamp int64 `yaml:"timestamp" json:"timestamp"`
}

// fileConfig is one ACL file.
type fileConfig struct {
	GlobalWhiteRemoteAddresses []string        `yaml:"globalWhiteRemoteAddresses"`
	Accounts                   []AccountConfig `yaml:"accounts"`
	DataVersion                []DataVersion   `yaml:"dataVersion"`
}

// account is a loaded account (Java: PlainAccessResource).
type account struct {
	accessKey, secretKey string
	admin                bool
	defaultTopic         Perm
	defaultGroup         Perm
	hasPerms             bool            // Java's resourcePermMap != nil
	topics               map[string]Perm // topic name → perm
	groups               map[string]Perm // group name (without %RETRY%) → perm
	white                strategy
	states               sync.Pool // *signState: HMAC-SHA1 keyed with secretKey, and buffers (sign.go)
}

// perm returns the account's own entry for a resource and whether it has one.
func (a *account) perm(name string, group bool) (Perm, bool) {
	if !a.hasPerms {
		return 0, false
	}
	var p Perm
	var ok bool
	if group {
		p, ok = a.groups[name]
	} else {
		p, ok = a.topics[name]
	}
	return p, ok
}

// snapshot is what the validator reads; it is never changed once published.
type snapshot struct {
	global   []strategy
	accounts map[string]*account // access key → account
	owner    map[string]string   // access key → file (Java: accessKeyTable)
	stale    map[string]bool     // keys still in Java's accessKeyTable after a per-file reload removed them
	files    []string            // loaded files, in load order
	versions map[string]DataVersion
	mtimes   map[string]int64 // file → modification time (unix nanos) when read
}

func checkAccessConfig(ak, sk string) error {
	if len(ak) <= 6 || len(sk) <= 6 {
		return javaErrorf("The accessKey=%s and secretKey=%s cannot be null and length should longer than 6", javaStr(ak), javaStr(sk))
	}
	return nil
}

// javaStr prints an absent string as Java's String.format prints null.
func javaStr(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func buildAccount(c AccountConfig) (*account, error) {
	if err := checkAccessConfig(c.AccessKey, c.SecretKey); err != nil {
		return nil, err
	}
	a := &account{accessKey: c.AccessKey, secretKey: c.SecretKey, admin: c.Admin,
		defaultTopic: ParsePerm(c.DefaultTopicPerm), defaultGroup: ParsePerm(c.DefaultGroupPerm),
		topics: map[string]Perm{}, groups: map[string]Perm{}}
	// Groups first, then topics, into one key space: a topic entry named %RETRY%g
	// overwrites group g's, as Java's single resourcePermMap does.
	add := func(name string, p Perm) {
		a.hasPerms = true
		if strings.HasPrefix(name, retryPrefix) {
			a.groups[name[len(retryPrefix):]] = p
			return
		}
		a.topics[name] = p
	}
	for _, r := range c.GroupPerms {
		items := splitNonEmpty(r, '=')
		if len(items) != 2 {
			return nil, javaErrorf("Parse resource permission failed for group:%s", r)
		}
		add(retryPrefix+strings.TrimSpace(items[0]), ParsePerm(items[1]))
	}
	for _, r := range c.TopicPerms {
		items := splitNonEmpty(r, '=')
		if len(items) != 2 {
			return nil, javaErrorf("Parse resource permission failed for topic:%s", r)
		}
		add(strings.TrimSpace(items[0]), ParsePerm(items[1]))
	}
	var err error
	if a.white, err = compileStrategy(c.WhiteRemoteAddress); err != nil {
		return nil, err
	}
	return a, nil
}

// readFile parses one ACL file; a missing file reads as empty (Java: AclUtils#getYamlDataObject).
func readFile(path string) (*fileConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &fileConfig{}, nil
	}
	if err != nil {
		return nil, err
	}
	var fc fileConfig
	if err := yaml.Unmarshal(data, &fc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &fc, nil
}

// listFiles returns the ACL files as Java finds them: every *.yml / *.yaml under dir,
// recursively (sorted by name: Java's order is the file system's), then the default file.
func listFiles(dir, defaultFile, skip string) []string {
	var out []string
	var walk func(d string)
	walk = func(d string) {
		ents, err := os.ReadDir(d)
		if err != nil {
			return
		}
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			p := filepath.Join(d, n)
			switch {
			case p == skip:
			case strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml"):
				out = append(out, p)
			default:
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					walk(p)
				}
			}
		}
	}
	walk(dir)
	if _, err := os.Stat(defaultFile); err == nil {
		found := false
		for _, f := range out {
			found = found || f == defaultFile
		}
		if !found {
			out = append(out, defaultFile)
		}
	}
	return out
}

// load reads every file into a new snapshot (Java: PlainPermissionManager#load).
func (v *Validator) load() (*snapshot, error) {
	s := &snapshot{accounts: map[string]*account{}, owner: map[string]string{}, stale: map[string]bool{},
		versions: map[string]DataVersion{}, mtimes: map[string]int64{}}
	s.files = listFiles(v.dir, v.defaultFile, v.toolsFile)
	for _, f := range s.files {
		if st, err := os.Stat(f); err == nil {
			s.mtimes[f] = st.ModTime().UnixNano()
		}
		fc, err := readFile(f)
		if err != nil {
			return nil, err
		}
		for _, w := range fc.GlobalWhiteRemoteAddresses {
			st, err := compileStrategy(w)
			if err != nil {
				return nil, fmt.Errorf("%s: globalWhiteRemoteAddresses %q: %w", f, w, err)
			}
			s.global = append(s.global, st)
		}
		for _, ac := range fc.Accounts {
			a, err := buildAccount(ac)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if _, dup := s.owner[a.accessKey]; dup {
				v.log.Warn().Str("accessKey", a.accessKey).Str("file", f).Msg("acl: the access key is repeated in multiple ACL files; the first one wins")
				continue
			}
			s.accounts[a.accessKey] = a
			s.owner[a.accessKey] = f
		}
		dv := DataVersion{Timestamp: time.Now().UnixMilli()} // Java: new DataVersion()
		if len(fc.DataVersion) > 0 {
			dv = fc.DataVersion[0]
		}
		s.versions[f] = dv
	}
	return s, nil
}
