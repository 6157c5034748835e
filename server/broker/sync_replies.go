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

// syncReplies answers SYNC_FLUSH and SYNC_MASTER sends once the CommitLog is flushed
// past them and/or a slave has acknowledged them (Java: GroupCommitService's and
// GroupTransferService's requests and the send processor's completion callback). Each
// flush or slave ack releases the sends it covers, and the answers to one connection go
// out in one write: a flush wakes the loop goroutine, which also keeps the deadlines; a
// slave ack is answered on the HA reader goroutine that read it (onAck). A send not flushed
// within syncFlushTimeout is answered FLUSH_DISK_TIMEOUT, one not acknowledged within
// slaveTimeout FLUSH_SLAVE_TIMEOUT; when both fail the replica's status wins, as in Java
// (CommitLog#handleDiskFlushAndHA).
type syncReplies struct {
	st       *store.Store
	replicas replicaSource // nil unless the broker is a SYNC_MASTER
	figures  *metrics.BrokerFigures
	log      zerolog.Logger

	// procMu serializes process (the loop and onAck); it guards waiting and out. Lock
	// order: procMu, then mu.
	procMu  sync.Mutex
	waiting []syncWait
	out     remoting.Replies

	mu      sync.Mutex
	pending []syncWait // added since the waits were last looked at
	armed   time.Time  // the loop's timer, zero when it waits without one
	// onFlush: the loop waits on the store's flush notifications (a waiting send needs
	// the flush). Without one it does not: on a broker whose sends all wait in
	// flushReplies, or for a slave only, it was woken by every group commit for nothing
	// (3,000 wake-ups a second under 16 SYNC_FLUSH senders, each a context switch on the
	// cores the event loops need).
	onFlush bool

	kick     chan struct{} // an added send may already be covered
	quit     chan struct{}
	quitOnce sync.Once
	done     chan struct{}
}

// replicaSource is what syncReplies needs of the HA master (ha.Master).
type replicaSource interface {
	AckedOffset() int64
	// SetAckHook makes f run after each advance of AckedOffset, on the goroutine that
	// raised it, without locks held; f must not block.
	SetAckHook(f func())
	WakeTransfer()
}

type syncWait struct {
	flushTo, replicaTo             int64 // the CommitLog offsets to reach (the record's end); 0 once met or failed
	flushDeadline, replicaDeadline time.Time
	flushFailed, replicaFailed     bool
	ctx                            *remoting.Context
	resp                           *protocol.Command
	added                          time.Time
}

func newSyncReplies(st *store.Store, replicas replicaSource, figures *metrics.BrokerFigures, log zerolog.Logger) *syncReplies {
	if figures == nil {
		figures = metrics.NewBrokerFigures()
	}
	r := &syncReplies{st: st, replicas: replicas, figures: figures, log: log, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	if replicas != nil {
		replicas.SetAckHook(r.onAck)
	}
	go r.run()
	return r
}

// add answers resp to ctx's request once the CommitLog is flushed up to offset.
func (r *syncReplies) add(ctx *remoting.Context, resp *protocol.Command, offset int64, timeout time.Duration) {
	r.addWait(ctx, resp, offset, timeout, 0, 0)
}

// addWait answers resp once the CommitLog is flushed up to flushTo (when > 0) and a
// slave has acknowledged replicaTo (when > 0).
func (r *syncReplies) addWait(ctx *remoting.Context, resp *protocol.Command, flushTo int64, flushTimeout time.Duration, replicaTo int64, replicaTimeout time.Duration) {
	now := time.Now()
	w := syncWait{flushTo: flushTo, replicaTo: replicaTo, ctx: ctx, resp: resp, added: now}
	var deadline time.Time
	if flushTo > 0 {
		w.flushDeadline = now.Add(flushTimeout)
		deadline = w.flushDeadline
	}
	if replicaTo > 0 {
		w.replicaDeadline = now.Add(replicaTimeout)
		if deadline.IsZero() || w.replicaDeadline.Before(deadline) {
			deadline = w.replicaDeadline
		}
	}
	r.mu.Lock()
	r.pending = append(r.pending, w)
	// The loop sees pending when a flush or an ack advances, or at its timer: a send
	// whose deadline comes first (or finds no timer set) must wake it.
	wake := r.armed.IsZero() || deadline.Before(r.armed) || (flushTo > 0 && !r.onFlush)
	r.mu.Unlock()
	// A flush that ends after the append above wakes the loop through its notify
	// channel, an ack runs onAck; one that ended before it would not see this send, so
	// wake the loop here.
	if wake || (flushTo > 0 && r.st.FlushedOffset() >= flushTo) || (replicaTo > 0 && r.replicas.AckedOffset() >= replicaTo) {
		r.wake()
	}
	if flushTo > 0 {
		r.st.RequestFlush()
	}
	// Each waiting send wakes the transfer once, here; the loop below does not wake it
	// again after every ack: an HA writer woken while it was sending keeps the wake and
	// looks again before it sleeps, so nothing appended goes unsent, and a wake per ack
	// was a context switch per round trip for nothing (SYNC_MASTER pair, 4 x 16 in flight,
	// mqbench compare against the loop waking it, 4 rounds: 1.19x msgs/s [1.05-1.33],
	// 0.90x master CPU per message, 0.88x p99).
	if replicaTo > 0 {
		r.replicas.WakeTransfer()
	}
}

func (r *syncReplies) wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// stop answers what is still waiting (once flushed and acknowledged, or at its
// deadline) and ends the loop. Call it once no request can add any more, before the
// store closes.
func (r *syncReplies) stop() {
	r.quitOnce.Do(func() { close(r.quit) })
	<-r.done
}

// settle updates w against the flushed and acknowledged offsets at now; it reports
// whether w is complete, and otherwise its next deadline.
func (w *syncWait) settle(flushed, acked int64, now time.Time) (complete bool, next time.Time) {
	if w.flushTo > 0 {
		switch {
		case w.flushTo <= flushed:
			w.flushTo = 0
		case !now.Before(w.flushDeadline):
			w.flushTo, w.flushFailed = 0, true
		default:
			next = w.flushDeadline
		}
	}
	if w.replicaTo > 0 {
		switch {
		case w.replicaTo <= acked:
			w.replicaTo = 0
		case !now.Before(w.replicaDeadline):
			w.replicaTo, w.replicaFailed = 0, true
		default:
			if next.IsZero() || w.replicaDeadline.Before(next) {
				next = w.replicaDeadline
			}
		}
	}
	return w.flushTo == 0 && w.replicaTo == 0, next
}

// process answers every waiting send that the flushed and acknowledged offsets now
// cover or whose deadline has passed. It returns the earliest deadline still pending
// (zero when nothing waits), whether a waiting send needs a flush, and how many wait.
// The loop and onAck call it; procMu makes them take turns.
func (r *syncReplies) process() (earliest time.Time, needFlush bool, left int) {
	r.procMu.Lock()
	defer r.procMu.Unlock()
	flushed := r.st.FlushedOffset()
	var acked int64
	if r.replicas != nil {
		acked = r.replicas.AckedOffset()
	}
	r.mu.Lock()
	r.waiting = append(r.waiting, r.pending...)
	clear(r.pending)
	r.pending = r.pending[:0]
	r.mu.Unlock()

	now := time.Now()
	kept := r.waiting[:0]
	answered := 0
	for _, w := range r.waiting {
		complete, next := w.settle(flushed, acked, now)
		if !complete {
			if earliest.IsZero() || next.Before(earliest) {
				earliest = next
			}
			needFlush = needFlush || w.flushTo > 0
			kept = append(kept, w)
			continue
		}
		switch {
		case w.replicaFailed:
			w.resp.Code = int32(protocol.ResFlushSlaveTimeout)
			r.log.Warn().Int64("acked", acked).Msg("wait for a slave's ack timed out")
		case w.flushFailed && w.resp.Code == int32(protocol.ResSuccess):
			w.resp.Code = int32(protocol.ResFlushDiskTimeout)
			r.log.Warn().Int64("flushed", flushed).Msg("sync flush timed out")
		}
		r.out.Add(w.ctx, w.resp)
		r.figures.SyncWait.Observe(now.Sub(w.added).Seconds())
		answered++
	}
	if answered > 0 {
		r.figures.SyncGroup.Observe(float64(answered))
	}
	clear(r.waiting[len(kept):])
	r.waiting = kept
	r.out.Flush()
	return earliest, needFlush, len(kept)
}

// onAck runs on the HA reader goroutine whose slave report raised the acknowledged
// offset (ha.Master's ack hook): it answers the sends that offset covers there and
// then, instead of waking the loop to do it. One goroutine hand-off less per
// replication round trip (the loop used to wait on AckNotify for this). It wakes the
// loop only when a send it took in has a deadline before the loop's timer.
func (r *syncReplies) onAck() {
	earliest, _, _ := r.process()
	if earliest.IsZero() {
		return
	}
	r.mu.Lock()
	wake := r.armed.IsZero() || earliest.Before(r.armed)
	r.mu.Unlock()
	if wake {
		r.wake()
	}
}

func (r *syncReplies) run() {
	defer close(r.done)
	var (
		timer = time.NewTimer(time.Hour)
		quit  = r.quit
	)
	defer timer.Stop()
	for {
		notify := r.st.FlushNotify() // before the offset (process reads it): see FlushNotify
		earliest, needFlush, left := r.process()

		r.mu.Lock()
		r.armed = earliest // addWait and onAck compare deadlines with this to know whether to wake us
		r.onFlush = needFlush
		more := len(r.pending) > 0
		r.mu.Unlock()
		if more {
			continue // added while we looked, perhaps before armed was set
		}
		if quit == nil && left == 0 {
			return // stopped and nothing waits
		}
		var deadline <-chan time.Time
		if left > 0 {
			timer.Reset(time.Until(earliest))
			deadline = timer.C
			if needFlush {
				r.st.RequestFlush()
			}
		}
		if !needFlush {
			notify = nil // addWait kicks us when a send needs the flush
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
