package meta

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// configFile is one of the broker's config/*.json files (Java: ConfigManager): loaded at
// start, falling back to <file>.bak, and persisted atomically in fastjson's pretty layout
// so a Java broker can read it back.
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

// persistFrom writes what content returns, taken under the file's lock, so that of two
// writers the later one always writes the later content. content may take its manager's
// lock: the order is always file, then manager.
func (f *configFile) persistFrom(content func() []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("broker: persist %s: %w", f.path, err)
	}
	if err := compat.String2File(compat.PrettyFastJSON(content()), f.path); err != nil {
		return fmt.Errorf("broker: persist %s: %w", f.path, err)
	}
	return nil
}

// laterWriter persists a config file from its own goroutine: mark asks for a write of
// the current content and returns at once, and a burst of marks costs one write. Tables
// changed on an event loop (topics and groups auto-created by a send, a heartbeat or a
// pull) use it, so no loop waits for an fsync and a heartbeat declaring thousands of
// groups does not rewrite the file thousands of times.
type laterWriter struct {
	file    *configFile
	content func() []byte
	log     zerolog.Logger
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newLaterWriter(file *configFile, content func() []byte, log zerolog.Logger) *laterWriter {
	w := &laterWriter{file: file, content: content, log: log, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *laterWriter) mark() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *laterWriter) run() {
	defer close(w.done)
	for {
		select {
		case <-w.wake:
			w.write()
		case <-w.stop:
			select {
			case <-w.wake:
				w.write()
			default:
			}
			return
		}
	}
}

func (w *laterWriter) write() {
	if err := w.file.persistFrom(w.content); err != nil {
		w.log.Error().Err(err).Msg("persist config file")
	}
}

// close writes what is still marked and stops the goroutine.
func (w *laterWriter) close() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}
