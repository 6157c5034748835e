package broker

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// configFile is one of the broker's config/*.json files still kept here
// (delayOffset.json, consumerFilter.json; Java: ConfigManager): loaded at start, falling
// back to <file>.bak, and persisted atomically in fastjson's pretty layout so a Java
// broker can read it back. topics.json, subscriptionGroup.json and consumerOffset.json
// are package meta's, with its own copy of this type and the background writer.
type configFile struct {
	path string
	mu   sync.Mutex // serializes writers of this file
}

// load reads the file (or its .bak) and hands standard JSON to decode. A missing file is
// not an error: the table starts empty, as in Java.
func (f *configFile) load(decode func(std []byte) error) error {
	check := func(b []byte) error {
		std, err := compat.NormalizeJSON(b)
		if err != nil {
			return err
		}
		return decode(std)
	}
	data, _, err := compat.LoadConfigFile(f.path, check)
	if err != nil {
		return fmt.Errorf("broker: load %s: %w", f.path, err)
	}
	if data == nil {
		return nil
	}
	return check(data)
}

// persist writes compact JSON (fastjson dialect allowed) in fastjson's pretty layout.
func (f *configFile) persist(compact []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("broker: persist %s: %w", f.path, err)
	}
	if err := compat.String2File(compat.PrettyFastJSON(compact), f.path); err != nil {
		return fmt.Errorf("broker: persist %s: %w", f.path, err)
	}
	return nil
}

func unmarshal(std []byte, v any) error { return protocol.UnmarshalBody(std, v) }
