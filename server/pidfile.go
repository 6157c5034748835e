package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// WritePidFile writes the process id to path (creating its directory), for mqshutdown and
// service managers; Java's scripts find the process with ps | grep instead, which a Go
// binary does not match. The returned func removes the file if it still holds this pid
// (a second instance that failed to start must not remove the first one's file: callers
// write it only once the store or port is theirs).
func WritePidFile(path string) (remove func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("server: pid file: %w", err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, pid, 0o644); err != nil {
		return nil, fmt.Errorf("server: pid file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("server: pid file: %w", err)
	}
	return func() {
		if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, pid) {
			_ = os.Remove(path)
		}
	}, nil
}
