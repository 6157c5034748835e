package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// workload builds the requests of one connection and judges their responses. A
// connection has a fixed number of slots (its in-flight window); each slot has at most
// one request outstanding. Produce and route use slots as interchangeable window
// places; consume binds one queue to each slot, as a push consumer keeps one pull in
// flight per queue.
type workload interface {
	// request appends the frame for slot, with the given opaque, to dst and returns
	// what the request carries (messages or queries). ok=false: nothing more to send on
	// this connection. n == slotRetired (ok=true, nothing appended): this slot has
	// nothing more to send and leaves the window, the others go on (a transaction slot
	// whose half message has no budget left, while other slots still owe their commits).
	request(dst []byte, slot int, opaque int32) (out []byte, n int, ok bool)
	// response judges the response to slot's request of n messages; frame is the whole
	// frame after the length word and may be decoded in place.
	response(slot int, h respHeader, n int, frame []byte) outcome
}

// fencer is implemented by workloads whose requests may be oneway: fence appends one
// request that is answered, so the end of the run can wait until the server has
// processed everything sent before it on the connection.
type fencer interface {
	fence(dst []byte, opaque int32) []byte
}

// outcome of one response.
type outcome struct {
	msgs, bytes int64
	status      outcomeStatus
	err         string // for outcomeFail: the error's name when it is not the response code
}

type outcomeStatus uint8

const (
	outcomeOK    outcomeStatus = iota
	outcomeEmpty               // an answer that carries nothing and is no error (PULL_NOT_FOUND)
	outcomeFail                // counted as an error by response code
	// outcomeStep: the first request of a chain was answered (a half message); the
	// slot's next request continues it (END_TRANSACTION). No latency is recorded: the
	// chain's latency runs from its first request to its last answer.
	outcomeStep
)

// slotRetired is request's n for a slot that leaves the window.
const slotRetired = -1

// runState is shared by every connection of a run.
type runState struct {
	base      time.Time
	stopCh    chan struct{}
	stopOnce  sync.Once
	measuring atomic.Bool

	// limit > 0 stops the run when this many messages completed while measuring.
	limit     int64
	completed atomic.Int64
	// budget, when limited, is how many more messages may be sent while measuring.
	limited bool
	budget  atomic.Int64
}

func newRunState(limit int64) *runState {
	r := &runState{base: time.Now(), stopCh: make(chan struct{}), limit: limit, limited: limit > 0}
	r.budget.Store(limit)
	return r
}

func (r *runState) now() int64 { return int64(time.Since(r.base)) }

func (r *runState) stop() { r.stopOnce.Do(func() { close(r.stopCh) }) }

func (r *runState) stopped() bool {
	select {
	case <-r.stopCh:
		return true
	default:
		return false
	}
}

// reserve takes n messages from the send budget. Before measurement starts (warm-up)
// the budget is not charged.
func (r *runState) reserve(n int) bool {
	if !r.limited || !r.measuring.Load() {
		return true
	}
	if r.budget.Add(-int64(n)) >= 0 {
		return true
	}
	r.budget.Add(int64(n))
	return false
}

// connStats are one connection's counts; the reader owns them, the writer owns the
// oneway counts. They are read after both goroutines ended.
type connStats struct {
	hist        *histogram
	msgs, bytes int64
	requests    int64
	empty       int64
	codes       map[int32]int64  // failed responses by code
	remarks     map[int32]string // the first remark of each failed code
	errs        map[string]int64 // failed responses the client could not use
	stray       int64            // responses matching no outstanding request
	connErr     error
	onewayMsgs  int64
	onewayReqs  int64
}

type slotState struct {
	opaque atomic.Int32
	sentAt atomic.Int64
	n      atomic.Int32
	// chained: the slot's last answer was an outcomeStep, so its next request keeps
	// sentAt (the start of the chain).
	chained atomic.Bool
}

// pipe is one pipelined connection. Its reader goroutine reads every answer, matches
// the slot by the opaque's low bits, and, once no further answer is buffered, refills
// every freed slot and writes the new requests in one write: the window stays full and
// no goroutine hand-off sits between an answer and the next request. Oneway runs, which
// get no answers to drive them, have a writer goroutine that fills the window instead.
type pipe struct {
	id       int
	nc       net.Conn
	w        workload
	run      *runState
	window   int
	slotBits uint
	slots    []slotState // window slots, then the fence slot
	free     chan int
	inflight atomic.Int64
	coalesce bool // write every ready frame in one write (async); false: one write per request (sync)
	oneway   bool // requests are not answered: slots come back once written
	maxFrame int
	// pace > 0: open loop (pace.go), one request every pace, sent by paceLoop; the
	// reader only frees slots. paceOffset staggers this connection's schedule.
	pace, paceOffset time.Duration
	lag              *histogram // paceLoop: how late each request went out (schedule lag)

	sendMu     sync.Mutex // held while building and writing requests
	sendClosed bool       // no more requests: the budget is spent or the run stops
	retired    int        // slots that left the window (slotRetired)
	wbuf       []byte
	batch      []int

	dead     chan struct{}
	deadOnce sync.Once
	fenced   chan struct{}
	wdone    chan struct{} // closed when the pipe sends no more requests
	rdone    chan struct{}

	seq   uint32
	stats connStats

	hbFrame []byte        // repeated HEART_BEAT (setHeartbeat), nil: none
	hbEvery time.Duration // its interval
}

const maxCoalesce = 256 << 10 // bytes per write when coalescing

func newPipe(id int, nc net.Conn, w workload, run *runState, window int, coalesce, oneway bool) *pipe {
	bitsNeeded := uint(bits.Len(uint(window))) // room for slots 0..window (the fence)
	p := &pipe{
		id: id, nc: nc, w: w, run: run, window: window, slotBits: bitsNeeded,
		slots: make([]slotState, window+1), free: make(chan int, window),
		coalesce: coalesce, oneway: oneway, maxFrame: codec.DefaultMaxFrameSize,
		dead: make(chan struct{}), fenced: make(chan struct{}), wdone: make(chan struct{}), rdone: make(chan struct{}),
		wbuf: make([]byte, 0, 64<<10), batch: make([]int, 0, window),
	}
	p.stats.hist = newHistogram()
	p.lag = newHistogram()
	p.stats.codes = map[int32]int64{}
	p.stats.remarks = map[int32]string{}
	p.stats.errs = map[string]int64{}
	for i := range window {
		p.free <- i
	}
	return p
}

func (p *pipe) start() {
	go p.readLoop()
	switch {
	case p.pace > 0:
		go p.paceLoop(p.paceOffset)
	case p.oneway:
		go p.writeLoop()
	}
	if p.hbFrame != nil {
		go p.heartbeatLoop()
	}
}

// heartbeatInterval is how often a client repeats its HEART_BEAT (Java:
// ClientConfig#heartbeatBrokerInterval, 30 s). A Java broker closes a producer or
// consumer connection that has not sent one for 120 s
// (ProducerManager/ConsumerManager#scanNotActiveChannel), so runs longer than that
// need it.
const heartbeatInterval = 30 * time.Second

// heartbeatOpaque is the opaque of repeated heartbeats. nextOpaque never hands out 0,
// so their answers are told apart before slot matching.
const heartbeatOpaque = 0

// setHeartbeat makes the pipe repeat hb (a HEART_BEAT request) every interval while it
// runs; its answers are read and dropped.
func (p *pipe) setHeartbeat(hb *protocol.Command, interval time.Duration) {
	hb.Opaque = heartbeatOpaque
	p.hbFrame, p.hbEvery = codec.AppendFrame(nil, hb), interval
}

// heartbeatLoop writes the heartbeat frame every p.hbEvery until the reader ends. A
// net.Conn Write is atomic with respect to other Writes, so it never splits a frame
// the reader goroutine writes.
func (p *pipe) heartbeatLoop() {
	t := time.NewTicker(p.hbEvery)
	defer t.Stop()
	for {
		select {
		case <-p.rdone:
			return
		case <-p.dead:
			return
		case <-t.C:
			if _, err := p.nc.Write(p.hbFrame); err != nil {
				return // the reader reports the connection's failure
			}
		}
	}
}

// stopSending makes sure the pipe sends nothing more and returns once a refill in
// progress has finished.
func (p *pipe) stopSending() {
	if p.oneway || p.pace > 0 {
		<-p.wdone
		return
	}
	p.sendMu.Lock()
	p.closeSendLocked()
	p.sendMu.Unlock()
}

func (p *pipe) closeSendLocked() {
	if !p.sendClosed {
		p.sendClosed = true
		close(p.wdone)
	}
}

// refill builds requests for every free slot and writes them: in one write when
// coalescing, else one write per request. It runs on the reader goroutine.
func (p *pipe) refill() error {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	if p.sendClosed {
		return nil
	}
	if p.run.stopped() {
		p.closeSendLocked()
		return nil
	}
	buf, batch := p.wbuf[:0], p.batch[:0]
	for {
		var slot int
		select {
		case slot = <-p.free:
		default:
			return p.flush(buf, batch)
		}
		op := p.nextOpaque(slot)
		out, n, ok := p.w.request(buf, slot, op)
		if !ok {
			p.free <- slot
			p.closeSendLocked()
			return p.flush(buf, batch)
		}
		if n == slotRetired {
			p.retired++
			if p.retired == p.window {
				p.closeSendLocked()
				return p.flush(buf, batch)
			}
			continue
		}
		buf, batch = out, append(batch, slot)
		p.slots[slot].opaque.Store(op)
		p.slots[slot].n.Store(int32(n))
		if !p.coalesce || len(buf) >= maxCoalesce {
			if err := p.flush(buf, batch); err != nil {
				return err
			}
			buf, batch = buf[:0], batch[:0]
		}
	}
}

// flush stamps the send time of the batch's slots and writes buf.
func (p *pipe) flush(buf []byte, batch []int) error {
	if len(batch) == 0 {
		return nil
	}
	now := p.run.now()
	for _, slot := range batch {
		if !p.slots[slot].chained.Swap(false) {
			p.slots[slot].sentAt.Store(now)
		}
	}
	p.inflight.Add(int64(len(batch)))
	if _, err := p.nc.Write(buf); err != nil {
		err = fmt.Errorf("write: %w", err)
		p.die(err)
		return err
	}
	if cap(buf) > cap(p.wbuf) {
		p.wbuf = buf[:0]
	}
	return nil
}

func (p *pipe) die(err error) {
	p.deadOnce.Do(func() {
		// Errors after the run stopped are the connections being closed, except a
		// write that was stuck.
		if p.stats.connErr == nil && (!p.run.stopped() || errors.Is(err, errWriteStuck)) {
			p.stats.connErr = err
		}
		close(p.dead)
	})
}

func (p *pipe) nextOpaque(slot int) int32 {
	for {
		p.seq++
		if op := int32(p.seq<<p.slotBits | uint32(slot)); op != 0 { // 0 marks an answered slot
			return op
		}
	}
}

func (p *pipe) take() (int, bool) {
	select {
	case <-p.run.stopCh:
		return 0, false
	case <-p.dead:
		return 0, false
	default:
	}
	select {
	case s := <-p.free:
		return s, true
	case <-p.run.stopCh:
		return 0, false
	case <-p.dead:
		return 0, false
	}
}

// writeLoop fills the window of a oneway pipe: slots come back as soon as their
// requests are written.
func (p *pipe) writeLoop() {
	defer close(p.wdone)
	buf := make([]byte, 0, 64<<10)
	batch := make([]int, 0, p.window)
	for {
		s, ok := p.take()
		if !ok {
			return
		}
		batch = append(batch[:0], s)
		buf = buf[:0]
		done := false
		for i := 0; i < len(batch); i++ {
			slot := batch[i]
			out, n, ok := p.w.request(buf, slot, p.nextOpaque(slot))
			if !ok {
				p.free <- slot
				batch = batch[:i]
				done = true
				break
			}
			buf = out
			p.slots[slot].n.Store(int32(n))
			if len(buf) < maxCoalesce && len(batch) < p.window {
				select {
				case s := <-p.free:
					batch = append(batch, s)
				default:
				}
			}
		}
		if len(batch) > 0 {
			if _, err := p.nc.Write(buf); err != nil {
				p.die(fmt.Errorf("write: %w", err))
				return
			}
			var sent, reqs int64
			if p.run.measuring.Load() {
				for _, slot := range batch {
					sent += int64(p.slots[slot].n.Load())
				}
				reqs = int64(len(batch))
			}
			for _, slot := range batch {
				p.free <- slot
			}
			p.stats.onewayMsgs += sent
			p.stats.onewayReqs += reqs
			if sent > 0 && p.run.limit > 0 && p.run.completed.Add(sent) >= p.run.limit {
				p.run.stop()
			}
		}
		if done {
			return
		}
	}
}

// sendFence writes the fence request after the writer stopped.
func (p *pipe) sendFence() error {
	f, ok := p.w.(fencer)
	if !ok {
		close(p.fenced)
		return nil
	}
	slot := p.window
	op := p.nextOpaque(slot)
	p.slots[slot].opaque.Store(op)
	p.slots[slot].n.Store(0)
	p.slots[slot].sentAt.Store(p.run.now())
	p.inflight.Add(1)
	if _, err := p.nc.Write(f.fence(nil, op)); err != nil {
		p.die(fmt.Errorf("write fence: %w", err))
		return err
	}
	return nil
}

func (p *pipe) readLoop() {
	defer close(p.rdone)
	br := bufio.NewReaderSize(p.nc, 128<<10)
	var lenBuf [4]byte
	frame := make([]byte, 4096)
	selfSent := p.oneway || p.pace > 0 // a writer goroutine sends; otherwise answers drive the sending (closed loop)
	if !selfSent {
		if p.refill() != nil {
			return
		}
	}
	for {
		// Every buffered answer has been handled: send what the freed slots allow before
		// blocking for more.
		if !selfSent && br.Buffered() == 0 && len(p.free) > 0 {
			if p.refill() != nil {
				return
			}
		}
		if _, err := io.ReadFull(br, lenBuf[:]); err != nil {
			p.die(fmt.Errorf("read: %w", err))
			return
		}
		size, err := codec.FrameSize(lenBuf[:], p.maxFrame)
		if err != nil {
			p.die(err)
			return
		}
		if cap(frame) < size-4 {
			frame = make([]byte, size-4)
		}
		frame = frame[:size-4]
		if _, err := io.ReadFull(br, frame); err != nil {
			p.die(fmt.Errorf("read: %w", err))
			return
		}
		h, err := readHeader(frame)
		if err != nil {
			p.die(err)
			return
		}
		if h.flag&protocol.FlagResponse == 0 {
			continue // a request from the server (NOTIFY_CONSUMER_IDS_CHANGED, ...): not ours to measure
		}
		if h.opaque == heartbeatOpaque && p.hbFrame != nil {
			continue // the answer to a repeated heartbeat
		}
		slot := int(uint32(h.opaque) & (1<<p.slotBits - 1))
		if slot > p.window || p.slots[slot].opaque.Load() != h.opaque {
			p.stats.stray++
			continue
		}
		now := p.run.now()
		st := &p.slots[slot]
		st.opaque.Store(0) // a duplicate answer must not count twice
		n := int(st.n.Load())
		res := p.w.response(slot, h, n, frame)
		p.inflight.Add(-1)
		if slot == p.window { // the fence: it only says the server got this far
			if res.status == outcomeFail {
				p.stats.codes[h.code]++
			}
			close(p.fenced)
			continue
		}
		if res.status == outcomeStep {
			st.chained.Store(true)
		}
		if p.run.measuring.Load() {
			p.stats.requests++
			if res.status != outcomeStep {
				p.stats.hist.record(now - st.sentAt.Load())
			}
			switch res.status {
			case outcomeOK:
				p.stats.msgs += res.msgs
				p.stats.bytes += res.bytes
				if p.run.limit > 0 && p.run.completed.Add(res.msgs) >= p.run.limit {
					p.run.stop()
				}
			case outcomeEmpty:
				p.stats.empty++
			case outcomeFail:
				if res.err != "" {
					p.stats.errs[res.err]++
				} else {
					p.stats.codes[h.code]++
					p.noteRemark(h.code, frame)
				}
			}
		}
		p.free <- slot
	}
}

// noteRemark keeps the remark of the first failed answer with each code (decoded from a
// copy: failures are rare, the hot path never decodes).
func (p *pipe) noteRemark(code int32, frame []byte) {
	if _, ok := p.stats.remarks[code]; ok {
		return
	}
	remark := ""
	if c, err := codec.DecodeOwned(append([]byte(nil), frame...)); err == nil {
		remark = c.Remark
	}
	p.stats.remarks[code] = remark
}

// call sends one request on a connection no loop runs on yet and waits for its answer
// (connection setup: heartbeats, probes). It reads exactly one frame at a time, so no
// bytes are left buffered for the reader loop that follows.
func call(nc net.Conn, req *protocol.Command, timeout time.Duration) (*protocol.Command, error) {
	req.Flag &^= protocol.FlagResponse | protocol.FlagOneway
	return callFrame(nc, codec.AppendFrame(nil, req), req.Opaque, timeout)
}

// callFrame writes an encoded request frame and waits for the response with its opaque.
func callFrame(nc net.Conn, frame []byte, opaque int32, timeout time.Duration) (*protocol.Command, error) {
	if err := nc.SetDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	defer nc.SetDeadline(time.Time{})
	if _, err := nc.Write(frame); err != nil {
		return nil, err
	}
	var lenBuf [4]byte
	for {
		if _, err := io.ReadFull(nc, lenBuf[:]); err != nil {
			return nil, err
		}
		size, err := codec.FrameSize(lenBuf[:], codec.DefaultMaxFrameSize)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, size-4)
		if _, err := io.ReadFull(nc, buf); err != nil {
			return nil, err
		}
		resp, err := codec.DecodeOwned(buf)
		if err != nil {
			return nil, err
		}
		if resp.IsResponse() && resp.Opaque == opaque {
			return resp, nil
		}
	}
}

// errResponse describes a non-success answer to a setup call.
func errResponse(resp *protocol.Command) error {
	return fmt.Errorf("%w: %s (%d) %q", errRefused, resp.ResponseCode(), resp.Code, resp.Remark)
}

// errRefused is returned when a setup request (heartbeat, probe, route lookup) is answered
// with a failure code.
var errRefused = errors.New("mqbench: request refused")

// dialTLS, set by -tls, makes every connection TLS (as the Go client's WithTls: no
// server verification, no client certificate).
var dialTLS bool

func dial(addr string, timeout time.Duration) (net.Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
		_ = tc.SetReadBuffer(1 << 20)
		_ = tc.SetWriteBuffer(1 << 20)
	}
	if !dialTLS {
		return nc, nil
	}
	tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // RocketMQ clients do not verify the server (Java test mode, Go WithTls)
	_ = tc.SetDeadline(time.Now().Add(timeout + time.Second))
	if err := tc.Handshake(); err != nil {
		nc.Close()
		return nil, fmt.Errorf("mqbench: TLS handshake with %s: %w", addr, err)
	}
	_ = tc.SetDeadline(time.Time{})
	return tc, nil
}
