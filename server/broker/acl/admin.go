package acl

// The ACL admin requests' file changes (Java: PlainPermissionManager#updateAccessConfig,
// #deleteAccessConfig, #updateGlobalWhiteAddrsConfig, #updateAclConfigFileVersion).
// Each rewrites one YAML file (keys and order kept, the dataVersion bumped) and then
// reloads the configuration. They write files: call them off the event loop.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// AccountUpdate is an UPDATE_AND_CREATE_ACL_CONFIG request. Empty strings and nil lists
// mean "not sent": the file keeps its value.
type AccountUpdate struct {
	AccessKey, SecretKey, WhiteRemoteAddress string
	Admin                                    bool
	DefaultTopicPerm, DefaultGroupPerm       string
	TopicPerms, GroupPerms                   []string
}

// SplitList splits a comma list as Java's UtilAll#split: nil for an empty string.
func SplitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func checkResourcePerms(rs []string) error {
	for _, r := range rs {
		items := splitNonEmpty(r, '=')
		if len(items) != 2 {
			return javaErrorf("Parse Resource format error for %s.\nThe expected resource format is 'Res=Perm'. For example: topicA=SUB", r)
		}
		if strings.TrimSpace(items[1]) != "DENY" && ParsePerm(items[1]) == PermDeny {
			return javaErrorf("Parse resource permission error for %s.\nThe expected permissions are 'SUB' or 'PUB' or 'SUB|PUB' or 'PUB|SUB'.", r)
		}
	}
	return nil
}

// validate runs Java's checks of a code-50 request before any file is touched.
func (u AccountUpdate) validate() error {
	if err := checkAccessConfig(u.AccessKey, u.SecretKey); err != nil {
		return err
	}
	if err := checkResourcePerms(u.TopicPerms); err != nil {
		return err
	}
	if err := checkResourcePerms(u.GroupPerms); err != nil {
		return err
	}
	// Not in Java: a whitelist pattern that would make the file unloadable is refused.
	if _, err := compileStrategy(u.WhiteRemoteAddress); err != nil {
		return err
	}
	return nil
}

// UpdateAccount creates or updates an account (code 50): in the file that defines it,
// else in plain_acl.yml. An error's text is the remark Java answers with code 209.
func (v *Validator) UpdateAccount(u AccountUpdate) error {
	if err := u.validate(); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.cur.Load()
	file, ok := s.owner[u.AccessKey]
	if !ok {
		file = v.defaultFile
	}
	root, err := readDoc(file)
	if err != nil {
		return err
	}
	accounts := mapGet(root, "accounts")
	if accounts == nil || accounts.Kind != yaml.SequenceNode {
		accounts = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		mapSet(root, "accounts", accounts)
	}
	var entry *yaml.Node
	for i, n := range accounts.Content {
		if n.Kind == yaml.MappingNode {
			if k := mapGet(n, "accessKey"); k != nil && k.Value == u.AccessKey {
				entry = n
				// Java removes the entry and appends the updated one.
				accounts.Content = append(accounts.Content[:i:i], accounts.Content[i+1:]...)
				break
			}
		}
	}
	if entry == nil {
		entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	mapSet(entry, "accessKey", strNode(u.AccessKey))
	if u.SecretKey != "" {
		mapSet(entry, "secretKey", strNode(u.SecretKey))
	}
	if u.WhiteRemoteAddress != "" {
		mapSet(entry, "whiteRemoteAddress", strNode(u.WhiteRemoteAddress))
	}
	mapSet(entry, "admin", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(u.Admin)})
	if u.DefaultTopicPerm != "" {
		mapSet(entry, "defaultTopicPerm", strNode(u.DefaultTopicPerm))
	}
	if u.DefaultGroupPerm != "" {
		mapSet(entry, "defaultGroupPerm", strNode(u.DefaultGroupPerm))
	}
	if u.TopicPerms != nil {
		mapSet(entry, "topicPerms", seqNode(u.TopicPerms))
	}
	if u.GroupPerms != nil {
		mapSet(entry, "groupPerms", seqNode(u.GroupPerms))
	}
	accounts.Content = append(accounts.Content, entry)
	return v.writeAndReload(file, root)
}

// DeleteAccount removes an account from its file (code 51). It reports false when the
// key is unknown or not in its file (Java's 210).
func (v *Validator) DeleteAccount(ak string) (bool, error) {
	if ak == "" {
		return false, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.cur.Load()
	file, ok := s.owner[ak]
	if !ok {
		return false, nil
	}
	root, err := readDoc(file)
	if err != nil {
		return false, err
	}
	if len(root.Content) == 0 {
		return true, nil // Java: "No data found" counts as deleted
	}
	accounts := mapGet(root, "accounts")
	if accounts == nil {
		return false, nil
	}
	for i, n := range accounts.Content {
		if k := mapGet(n, "accessKey"); k != nil && k.Value == ak {
			accounts.Content = append(accounts.Content[:i:i], accounts.Content[i+1:]...)
			return true, v.writeAndReload(file, root)
		}
	}
	return false, nil
}

// UpdateGlobalWhiteAddrs replaces globalWhiteRemoteAddresses in file (plain_acl.yml
// when empty) (code 53). It reports false for what Java refuses: a file that does not
// exist, a directory, a path outside ROCKETMQ_HOME, a ".yaml" file (Java's inverted
// extension check). Stricter than Java: the path is cleaned before the home check
// ("home/../x" is refused) and every pattern must compile.
func (v *Validator) UpdateGlobalWhiteAddrs(addrs []string, file string) (bool, error) {
	if file == "" {
		file = v.defaultFile
	}
	if addrs == nil {
		return false, nil
	}
	file = filepath.Clean(file)
	st, err := os.Stat(file)
	if err != nil || st.IsDir() {
		return false, nil
	}
	if !strings.HasPrefix(file, v.home+string(filepath.Separator)) {
		return false, nil
	}
	if !strings.HasSuffix(file, ".yml") && strings.HasSuffix(file, ".yaml") {
		return false, nil
	}
	for _, a := range addrs {
		if _, err := compileStrategy(a); err != nil {
			return false, nil
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	root, err := readDoc(file)
	if err != nil {
		return false, err
	}
	mapSet(root, "globalWhiteRemoteAddresses", seqNode(addrs))
	return true, v.writeAndReload(file, root)
}

// Versions returns the default file's DataVersion and every loaded file's (code 52).
func (v *Validator) Versions() (DataVersion, map[string]DataVersion) {
	s := v.cur.Load()
	all := make(map[string]DataVersion, len(s.versions))
	for k, dv := range s.versions {
		all[k] = dv
	}
	return s.versions[v.defaultFile], all
}

func (v *Validator) writeAndReload(file string, root *yaml.Node) error {
	bumpVersion(root)
	data, err := yaml.Marshal(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(file, data); err != nil {
		return err
	}
	s, err := v.load()
	if err != nil {
		return err
	}
	v.cur.Store(s)
	return nil
}

// bumpVersion sets dataVersion to [{counter: n+1, timestamp: now}] (Java: DataVersion#nextVersion).
func bumpVersion(root *yaml.Node) {
	var counter int64
	if dv := mapGet(root, "dataVersion"); dv != nil && dv.Kind == yaml.SequenceNode && len(dv.Content) > 0 {
		if c := mapGet(dv.Content[0], "counter"); c != nil {
			counter, _ = strconv.ParseInt(c.Value, 10, 64)
		}
	}
	e := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	mapSet(e, "counter", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(counter+1, 10)})
	mapSet(e, "timestamp", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(time.Now().UnixMilli(), 10)})
	mapSet(root, "dataVersion", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{e}})
}

func readDoc(path string) (*yaml.Node, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	}
	return doc.Content[0], nil
}

func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func mapSet(m *yaml.Node, key string, val *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = val
			return
		}
	}
	m.Content = append(m.Content, strNode(key), val)
}

func strNode(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func seqNode(xs []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, x := range xs {
		n.Content = append(n.Content, strNode(x))
	}
	return n
}

// writeFileAtomic writes data to a temporary file, syncs it and renames it over path.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
