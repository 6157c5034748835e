package broker

import (
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// syncReplies answers SYNC_FLUSH sends once the CommitLog is flushed past them (Java:
// GroupCommitService's requests and the send processor's completion callback). One
// goroutine serves every waiting send: each flush releases the sends it covers, and the
// answers to one connection go out in one write. A send not covered within
// syncFlushTimeout is answered FLUSH_DISK_TIMEOUT, as Java does.
type syncReplies struct {
	st  *store.Store
	log zerolog.Logger

	mu      sync.Mutex
	pending []syncWait // added since the loop last looked
	armed   time.Time  // the loop's timer, zero when it waits without one

	kick     chan struct{} // an added send may already be covered
	quit     chan struct{}
	quitOnce sync.Once
	done     chan struct{}
}

type syncWait struct {
	offset   int64 // the CommitLog offset the flush must reach: the record's end
	deadline time.Time
	ctx      *remoting.Context
	resp     *protocol.Command
}

func newSyncReplies(st *store.Store, log zerolog.Logger) *syncReplies {
	r := &syncReplies{st: st, log: log, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go r.run()
	return r
}

// add answers resp to ctx's request once the CommitLog is flushed up to offset.
func (r *syncReplies) add(ctx *remoting.Context, resp *protocol.Command, offset int64, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	r.mu.Lock()
	r.pending = append(r.pending, syncWait{offset: offset, deadline: deadline, ctx: ctx, resp: resp})
	// The loop sees pending when a flush advances, or at its timer: a send whose deadline
	// comes first (or finds no timer set) must wake it.
	wake := r.armed.IsZero() || deadline.Before(r.armed)
	r.mu.Unlock()
	// A flush that ends after the append above wakes the loop through FlushNotify; one
	// that ended before it would not, so say so here.
	if wake || r.st.FlushedOffset() >= offset {
		r.wake()
	}
	r.st.RequestFlush()
}

func (r *syncReplies) wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// stop answers what is still waiting (once flushed, or FLUSH_DISK_TIMEOUT at its
// deadline, so within syncFlushTimeout) and ends the loop. Call it once no request can
// add any more, before the store closes.
func (r *syncReplies) stop() {
	r.quitOnce.Do(func() { close(r.quit) })
	<-r.done
}

func (r *syncReplies) run() {
	defer close(r.done)
	var (
		waiting []syncWait
		out     remoting.Replies
		timer   = time.NewTimer(time.Hour)
		quit    = r.quit
	)
	defer timer.Stop()
	for {
		notify := r.st.FlushNotify() // before the offset: see FlushNotify
		flushed := r.st.FlushedOffset()
		r.mu.Lock()
		waiting = append(waiting, r.pending...)
		clear(r.pending)
		r.pending = r.pending[:0]
		r.mu.Unlock()

		now := time.Now()
		var earliest time.Time
		kept := waiting[:0]
		for _, w := range waiting {
			switch {
			case w.offset <= flushed:
				out.Add(w.ctx, w.resp)
			case !now.Before(w.deadline):
				w.resp.Code = int32(protocol.ResFlushDiskTimeout)
				r.log.Warn().Int64("offset", w.offset).Int64("flushed", flushed).Msg("sync flush timed out")
				out.Add(w.ctx, w.resp)
			default:
				if earliest.IsZero() || w.deadline.Before(earliest) {
					earliest = w.deadline
				}
				kept = append(kept, w)
			}
		}
		clear(waiting[len(kept):])
		waiting = kept
		out.Flush()

		r.mu.Lock()
		r.armed = earliest // add compares its deadline with this to know whether to wake us
		more := len(r.pending) > 0
		r.mu.Unlock()
		if more {
			continue // added while we looked, perhaps before armed was set
		}
		if quit == nil && len(waiting) == 0 {
			return // stopped and nothing waits
		}
		var deadline <-chan time.Time
		if len(waiting) > 0 {
			timer.Reset(time.Until(earliest))
			deadline = timer.C
			r.st.RequestFlush()
		}
		select {
		case <-notify:
		case <-r.kick:
		case <-deadline:
		case <-quit:
			quit = nil // drain: keep answering until nothing waits
		}
		if deadline != nil && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}
