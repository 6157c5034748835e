package compat

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// ConfigFile is one of a broker's config/*.json files (Java: ConfigManager): loaded at
// start, falling back to <file>.bak, read in fastjson's dialect, and persisted atomically
// in fastjson's pretty layout so a Java broker can read it back. Writers are serialized.
type ConfigFile struct {
	Path string
	mu   sync.Mutex
}

// Load reads the file (or its .bak) and hands standard JSON to decode. A missing file is
// not an error: the table starts empty, as in Java.
func (f *ConfigFile) Load(decode func(std []byte) error) error {
	check := func(b []byte) error {
		std, err := NormalizeJSON(b)
		if err != nil {
			return err
		}
		return decode(std)
	}
	data, _, err := LoadConfigFile(f.Path, check)
	if err != nil {
		return fmt.Errorf("config: load %s: %w", f.Path, err)
	}
	if data == nil {
		return nil
	}
	return check(data)
}

// Persist writes compact JSON (fastjson dialect allowed) in fastjson's pretty layout.
func (f *ConfigFile) Persist(compact []byte) error {
	return f.PersistFrom(func() []byte { return compact })
}

// PersistFrom writes what content returns, taken under the file's lock, so that of two
// writers the later one always writes the later content. content may take its owner's
// lock: the order is always the file's lock, then the owner's.
func (f *ConfigFile) PersistFrom(content func() []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return fmt.Errorf("config: persist %s: %w", f.Path, err)
	}
	if err := String2File(PrettyFastJSON(content()), f.Path); err != nil {
		return fmt.Errorf("config: persist %s: %w", f.Path, err)
	}
	return nil
}
