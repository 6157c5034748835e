package compat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A ConfigFile round-trips through its pretty layout, falls back to its .bak when the
// file is damaged, and a missing file loads as empty.
func TestConfigFile_PersistLoadAndBak(t *testing.T) {
	f := &ConfigFile{Path: filepath.Join(t.TempDir(), "config", "topics.json")}
	var got map[string]any
	decode := func(std []byte) error { got = nil; return json.Unmarshal(std, &got) }
	if err := f.Load(decode); err != nil || got != nil {
		t.Fatalf("missing file: %v %v", got, err)
	}
	if err := f.Persist([]byte(`{"offsetTable":{1:5}}`)); err != nil { // fastjson's unquoted key
		t.Fatal(err)
	}
	if err := f.Persist([]byte(`{"offsetTable":{1:6}}`)); err != nil { // the first becomes the .bak
		t.Fatal(err)
	}
	if err := f.Load(decode); err != nil || got["offsetTable"].(map[string]any)["1"] != float64(6) {
		t.Fatalf("load: %v %v", got, err)
	}
	if err := os.WriteFile(f.Path, []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Load(decode); err != nil || got["offsetTable"] == nil {
		t.Fatalf("damaged file, .bak expected: %v %v", got, err)
	}
}
