package compat

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestString2File_WritesAndKeepsBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "topics.json")
	if err := String2File([]byte("v1"), path); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); string(got) != "v1" {
		t.Errorf("content = %q, want v1", got)
	}
	if _, err := os.Stat(path + ".bak"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("first write left a .bak: %v", err)
	}
	if err := String2File([]byte("v2"), path); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); string(got) != "v2" {
		t.Errorf("content = %q, want v2", got)
	}
	if got := readFile(t, path+".bak"); string(got) != "v1" {
		t.Errorf(".bak = %q, want v1", got)
	}
	if _, err := os.Stat(path + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(".tmp left behind: %v", err)
	}
	// A stale .tmp from a crash is overwritten.
	if err := os.WriteFile(path+".tmp", []byte("garbage-longer-than-v3"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := String2File([]byte("v3"), path); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); string(got) != "v3" {
		t.Errorf("content = %q, want v3", got)
	}
}

func TestString2File_ParentIsAFile(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "config")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := String2File([]byte("x"), filepath.Join(blocker, "topics.json")); err == nil {
		t.Error("String2File under a regular file succeeded")
	}
}

func TestFile2String_Missing(t *testing.T) {
	if _, err := File2String(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want fs.ErrNotExist", err)
	}
}

func TestLoadConfigFile_Cases(t *testing.T) {
	check := func(b []byte) error {
		if string(b) == "bad" {
			return errors.New("parse failed")
		}
		return nil
	}
	cases := []struct {
		name        string
		main, bak   *string // nil: file absent
		wantData    string
		wantFromBak bool
		wantCorrupt bool
	}{
		{"main ok", ptr("m"), ptr("b"), "m", false, false},
		{"main missing, bak ok", nil, ptr("b"), "b", true, false},
		{"main empty, bak ok", ptr(""), ptr("b"), "b", true, false},
		{"main bad, bak ok", ptr("bad"), ptr("b"), "b", true, false},
		{"both missing", nil, nil, "", false, false},
		{"main empty, no bak", ptr(""), nil, "", false, false},
		{"main bad, no bak", ptr("bad"), nil, "", false, true},
		{"main bad, bak bad", ptr("bad"), ptr("bad"), "", false, true},
		{"main missing, bak bad", nil, ptr("bad"), "", false, true},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "consumerOffset.json")
		if c.main != nil {
			os.WriteFile(path, []byte(*c.main), 0o644)
		}
		if c.bak != nil {
			os.WriteFile(path+".bak", []byte(*c.bak), 0o644)
		}
		data, fromBak, err := LoadConfigFile(path, check)
		if c.wantCorrupt {
			if !errors.Is(err, ErrConfigCorrupt) {
				t.Errorf("%s: err = %v, want ErrConfigCorrupt", c.name, err)
			}
			continue
		}
		if err != nil || string(data) != c.wantData || fromBak != c.wantFromBak {
			t.Errorf("%s: got %q, %v, %v; want %q, %v", c.name, data, fromBak, err, c.wantData, c.wantFromBak)
		}
	}
}

func TestLoadConfigFile_NilCheckAndWriteCycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "delayOffset.json")
	for _, v := range []string{"a", "b"} {
		if err := String2File([]byte(v), path); err != nil {
			t.Fatal(err)
		}
	}
	// Simulate a torn main file after the second write: the backup still has "a".
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	data, fromBak, err := LoadConfigFile(path, nil)
	if err != nil || string(data) != "a" || !fromBak {
		t.Errorf("got %q, %v, %v; want a from .bak", data, fromBak, err)
	}
}

func ptr(s string) *string { return &s }
