package broker

// Long polling (Java: PullRequestHoldService, NotifyMessageArrivingListener). A pull that
// found nothing and carries FLAG_SUSPEND is held per queue until a matching message is
// dispatched into that queue or its suspend time passes; then it is re-run once on the
// pull pool with suspension disabled. Java checks held pulls every 5 s, so they may
// answer up to 5 s late; here a 100 ms sweep bounds the lateness, and a pull registered
// just after a message arrived is re-checked at once instead of waiting for the next one.

import (
	"sync"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

type heldPull struct {
	ctx      *remoting.Context
	req      *protocol.Command
	offset   int64
	deadline time.Time
	filter   store.Filter
}

type queueKey struct {
	topic string
	queue int32
}

type pullHolds struct {
	b    *Broker
	mu   sync.Mutex
	held map[queueKey][]*heldPull
	stop chan struct{}
	wg   sync.WaitGroup
}

func newPullHolds(b *Broker) *pullHolds {
	return &pullHolds{b: b, held: map[queueKey][]*heldPull{}, stop: make(chan struct{})}
}

func (p *pullHolds) start() {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case now := <-t.C:
				p.sweep(now)
			}
		}
	}()
}

// suspend holds a pull that found nothing.
func (p *pullHolds) suspend(ctx *remoting.Context, req *protocol.Command, topic string, queue int32, offset, timeoutMs int64, f store.Filter) {
	hp := &heldPull{ctx: ctx, req: req, offset: offset, deadline: time.Now().Add(time.Duration(timeoutMs) * time.Millisecond), filter: f}
	k := queueKey{topic, queue}
	p.mu.Lock()
	p.held[k] = append(p.held[k], hp)
	p.mu.Unlock()
	// A message dispatched between the store read and the registration would otherwise
	// wait for the timeout.
	if p.b.store.MaxOffsetInQueue(topic, queue) > offset {
		p.wake(k, func(*heldPull) bool { return true })
	}
}

// arrived is the store's OnArrive: it runs on the dispatch goroutine and must not block.
func (p *pullHolds) arrived(topic string, queue int32, logicOffset, tagsCode, _ int64, props []byte) {
	k := queueKey{topic, queue}
	p.mu.Lock()
	_, any := p.held[k]
	p.mu.Unlock()
	if !any {
		return
	}
	p.wake(k, func(hp *heldPull) bool {
		// SQL92 filters also judge the new message's properties (expression.go).
		return logicOffset > hp.offset && hp.filter.MatchByConsumeQueue(tagsCode) && matchesArrived(hp.filter, props)
	})
}

// wake re-runs the held pulls of k that match.
func (p *pullHolds) wake(k queueKey, match func(*heldPull) bool) {
	var run []*heldPull
	p.mu.Lock()
	list := p.held[k]
	keep := list[:0]
	for _, hp := range list {
		if match(hp) {
			run = append(run, hp)
		} else {
			keep = append(keep, hp)
		}
	}
	if len(keep) == 0 {
		delete(p.held, k)
	} else {
		p.held[k] = keep
	}
	p.mu.Unlock()
	for _, hp := range run {
		p.rerun(hp)
	}
}

// sweep answers held pulls whose time is up, and wakes those whose queue has grown
// without a notification (for example when the store was recovering).
func (p *pullHolds) sweep(now time.Time) {
	p.mu.Lock()
	keys := make([]queueKey, 0, len(p.held))
	for k := range p.held {
		keys = append(keys, k)
	}
	p.mu.Unlock()
	for _, k := range keys {
		max := p.b.store.MaxOffsetInQueue(k.topic, k.queue)
		p.wake(k, func(hp *heldPull) bool { return !now.Before(hp.deadline) || max > hp.offset })
	}
}

func (p *pullHolds) rerun(hp *heldPull) {
	ok := p.b.pools.pull.Submit(func() {
		resp, err := p.b.processPull(hp.ctx, hp.req, false)
		if err != nil {
			resp = protocol.NewResponse(hp.req, protocol.ResSystemError, err.Error())
		}
		if resp != nil {
			hp.ctx.Reply(resp)
		}
	}, func(remark string) {
		hp.ctx.Reply(protocol.NewResponse(hp.req, protocol.ResSystemBusy, remark))
	})
	if !ok {
		hp.ctx.Reply(protocol.NewResponse(hp.req, protocol.ResSystemBusy, protocol.RemarkOverload))
	}
}

// shutdown answers every held pull now, as Java does when the service stops.
func (p *pullHolds) shutdown() {
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	all := p.held
	p.held = map[queueKey][]*heldPull{}
	p.mu.Unlock()
	for _, list := range all {
		for _, hp := range list {
			resp, err := p.b.processPull(hp.ctx, hp.req, false)
			if err == nil && resp != nil {
				hp.ctx.Reply(resp)
			}
		}
	}
}
