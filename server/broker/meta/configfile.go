package meta

import (
	"sync"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

func unmarshal(std []byte, v any) error { return protocol.UnmarshalBody(std, v) }

// laterWriter persists a config file from its own goroutine: mark asks for a write of
// the current content and returns at once, and a burst of marks costs one write. Tables
// changed on an event loop (topics and groups auto-created by a send, a heartbeat or a
// pull) use it, so no loop waits for an fsync and a heartbeat declaring thousands of
// groups does not rewrite the file thousands of times.
type laterWriter struct {
	file    *compat.ConfigFile
	content func() []byte
	log     zerolog.Logger
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newLaterWriter(file *compat.ConfigFile, content func() []byte, log zerolog.Logger) *laterWriter {
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
	if err := w.file.PersistFrom(w.content); err != nil {
		w.log.Error().Err(err).Msg("persist config file")
	}
}

// close writes what is still marked and stops the goroutine.
func (w *laterWriter) close() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}
