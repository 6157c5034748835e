package remoting

import (
	"fmt"
	"sync"
	"time"
)

// Pool is a bounded worker pool for handlers that may wait. Submit never blocks: a full
// queue is refused, and a task that waited longer than MaxWait is not run but answered
// SYSTEM_BUSY (Java: the broker's per-kind executors and BrokerFastFailure).
type Pool struct {
	Name    string
	Workers int
	Queue   int
	// MaxWait is how long a request may wait in the queue before it is refused; 0 = no limit.
	// Java: waitTimeMillsInSendQueue (200 ms), waitTimeMillsInPullQueue (5 s), ...
	MaxWait time.Duration

	tasks   chan poolTask
	wg      sync.WaitGroup
	once    sync.Once
	mu      sync.RWMutex // guards closing tasks against concurrent submits
	stopped bool
}

type poolTask struct {
	run      func()
	busy     func(remark string)
	enqueued time.Time
}

// Start starts the workers; routes start their pools themselves.
func (p *Pool) Start() {
	p.once.Do(func() {
		if p.Workers <= 0 {
			p.Workers = 1
		}
		if p.Queue <= 0 {
			p.Queue = 10000
		}
		p.tasks = make(chan poolTask, p.Queue)
		for i := 0; i < p.Workers; i++ {
			p.wg.Add(1)
			go p.work()
		}
	})
}

func (p *Pool) work() {
	defer p.wg.Done()
	for t := range p.tasks {
		if p.MaxWait > 0 {
			if waited := time.Since(t.enqueued); waited > p.MaxWait {
				t.busy(fmt.Sprintf("[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: %dms, size of queue: %d",
					waited.Milliseconds(), len(p.tasks)))
				continue
			}
		}
		t.run()
	}
}

// Submit queues run without blocking; it returns false when the pool is full or stopped.
// busy is called instead of run when the task waited longer than MaxWait.
func (p *Pool) Submit(run func(), busy func(string)) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.stopped {
		return false
	}
	select {
	case p.tasks <- poolTask{run: run, busy: busy, enqueued: time.Now()}:
		return true
	default:
		return false
	}
}

// Len returns the number of queued tasks.
func (p *Pool) Len() int {
	if p.tasks == nil {
		return 0
	}
	return len(p.tasks)
}

// Stop lets the workers finish what is queued and waits for them.
func (p *Pool) Stop() {
	p.mu.Lock()
	if p.tasks == nil || p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	close(p.tasks)
	p.mu.Unlock()
	p.wg.Wait()
}
