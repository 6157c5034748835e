package broker

import (
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// flushReplies answers SYNC_FLUSH sends that wait for the disk only (no slave: not a
// SYNC_MASTER; syncReplies serves those) from the store's flushing goroutine
// (Store.SetFlushHook): each group commit that advances the flushed offset answers every
// send it covers before the next one starts, one write per connection, and no goroutine
// is woken in between (Java: GroupCommitService#doCommit completes each request's future
// on its own thread; the send processor's callback then hands the answer to Netty). A
// send not flushed within syncFlushTimeout is answered FLUSH_DISK_TIMEOUT by a timer, so
// a disk that hangs in fdatasync still gets its answers.
//
// Through syncReplies, a send waited for the flusher to publish, then for syncReplies's
// goroutine to be scheduled: on 2 cores that goroutine found the flusher back in its
// next fdatasync holding the P it had been readied on, and ran 0.2-0.6 ms later (per
// group commit, traced; docs/benchmarks.md, "SYNC_FLUSH at the disk's limit").
type flushReplies struct {
	st      *store.Store
	figures *metrics.BrokerFigures
	log     zerolog.Logger

	mu    sync.Mutex
	waits []flushWait // in arrival order, hence in deadline order (one timeout)
	timer *time.Timer // armed for waits[0]'s deadline while waits is not empty
	armed bool
	out   remoting.Replies // used under mu
}

type flushWait struct {
	offset   int64 // the CommitLog offset the flush must reach (the record's end)
	deadline time.Time
	added    time.Time
	ctx      *remoting.Context
	resp     *protocol.Command
}

func newFlushReplies(st *store.Store, figures *metrics.BrokerFigures, log zerolog.Logger) *flushReplies {
	if figures == nil {
		figures = metrics.NewBrokerFigures()
	}
	r := &flushReplies{st: st, figures: figures, log: log}
	r.timer = time.AfterFunc(time.Hour, r.expire)
	r.timer.Stop()
	st.SetFlushHook(r.flushed)
	return r
}

// add answers resp to ctx's request once the CommitLog is flushed up to offset, or
// FLUSH_DISK_TIMEOUT after timeout.
func (r *flushReplies) add(ctx *remoting.Context, resp *protocol.Command, offset int64, timeout time.Duration) {
	now := time.Now()
	r.mu.Lock()
	// Checked under mu: a flush that published before this line answers nothing of
	// ours, one that publishes after it finds the wait in the list.
	if r.st.FlushedOffset() >= offset {
		r.mu.Unlock()
		r.figures.SyncWait.Observe(0)
		ctx.Reply(resp)
		return
	}
	r.waits = append(r.waits, flushWait{offset: offset, deadline: now.Add(timeout), added: now, ctx: ctx, resp: resp})
	if !r.armed {
		r.armed = true
		r.timer.Reset(timeout)
	}
	r.mu.Unlock()
	r.st.RequestFlush()
}

// flushed is the store's flush hook: it answers every send flushed is past. It runs on
// the flushing goroutine and does not block (answers are queued to the event loops).
func (r *flushReplies) flushed(flushed int64) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.waits) == 0 {
		return
	}
	kept := r.waits[:0]
	answered := 0
	for _, w := range r.waits {
		if w.offset > flushed {
			kept = append(kept, w)
			continue
		}
		r.out.Add(w.ctx, w.resp)
		r.figures.SyncWait.Observe(now.Sub(w.added).Seconds())
		answered++
	}
	clear(r.waits[len(kept):])
	r.waits = kept
	if answered > 0 {
		r.figures.SyncGroup.Observe(float64(answered))
		r.out.Flush()
	}
	// What is kept was appended after this sync started; each add left a wake-up for
	// the next one after adding its wait.
}

// expire answers FLUSH_DISK_TIMEOUT to the sends whose deadline has passed and re-arms
// the timer for the next one (Java: the GroupCommitRequest's future times out after
// syncFlushTimeout and the send is answered FLUSH_DISK_TIMEOUT).
func (r *flushReplies) expire() {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	flushed := r.st.FlushedOffset()
	n := 0
	for n < len(r.waits) && !now.Before(r.waits[n].deadline) {
		w := r.waits[n]
		if w.offset > flushed {
			w.resp.Code = int32(protocol.ResFlushDiskTimeout)
			r.log.Warn().Int64("flushed", flushed).Int64("offset", w.offset).Msg("sync flush timed out")
		}
		r.out.Add(w.ctx, w.resp)
		r.figures.SyncWait.Observe(now.Sub(w.added).Seconds())
		n++
	}
	if n > 0 {
		r.waits = append(r.waits[:0], r.waits[n:]...)
		clear(r.waits[len(r.waits) : len(r.waits)+n])
		r.out.Flush()
	}
	if len(r.waits) > 0 {
		r.timer.Reset(r.waits[0].deadline.Sub(now))
	} else {
		r.armed = false
	}
}

// stop answers what still waits, once flushed or at its deadline, and detaches from the
// store. Call it once no request can add any more, before the store closes.
func (r *flushReplies) stop() {
	for {
		ch := r.st.FlushNotify() // before the offset: see FlushNotify
		r.flushed(r.st.FlushedOffset())
		r.mu.Lock()
		n := len(r.waits)
		var next time.Duration
		if n > 0 {
			next = time.Until(r.waits[0].deadline)
		}
		r.mu.Unlock()
		if n == 0 {
			break
		}
		r.st.RequestFlush()
		t := time.NewTimer(max(next, time.Millisecond))
		select {
		case <-ch:
		case <-t.C:
			r.expire()
		}
		t.Stop()
	}
	r.st.SetFlushHook(nil)
	r.timer.Stop()
}
