package broker

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// syncRepliesServer serves one request code whose handler hands its answer to a
// syncReplies waiting for the CommitLog offset in the request's "offset" field.
func syncRepliesServer(t *testing.T, timeout time.Duration) (*store.Store, *syncReplies, *remoting.ClientConn) {
	t.Helper()
	return syncRepliesServerWith(t, timeout, nil)
}

// syncRepliesServerWith also waits, when the request has a "replica" field, for replicas
// to acknowledge that offset (within the same timeout).
func syncRepliesServerWith(t *testing.T, timeout time.Duration, replicas replicaSource) (*store.Store, *syncReplies, *remoting.ClientConn) {
	t.Helper()
	root := t.TempDir()
	sc := smallStoreConfig(root, "1s")
	sc.FlushDiskType = store.SyncFlush
	st, err := store.Open(sc)
	if err != nil {
		t.Fatal(err)
	}
	r := newSyncReplies(st, replicas, nil, zerolog.Nop())
	addr := "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
	rs := remoting.NewServer(remoting.Options{Listeners: []remoting.Listener{{Addr: addr}}, Logger: zerolog.Nop()},
		[]remoting.Route{{Code: protocol.CodeSendMessage, Handler: func(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
			off, err := strconv.ParseInt(req.Ext.Value("offset"), 10, 64)
			if err != nil {
				return nil, err
			}
			resp := protocol.NewResponse(req, protocol.ResSuccess, "")
			resp.Ext.Set("offset", strconv.FormatInt(off, 10))
			if v := req.Ext.Value("replica"); v != "" {
				rep, _ := strconv.ParseInt(v, 10, 64)
				if rep < 0 { // the send found no slave: SLAVE_NOT_AVAILABLE after the flush
					resp.Code, rep = int32(protocol.ResSlaveNotAvailable), 0
				}
				r.addWait(ctx, resp, off, timeout, rep, timeout)
				return nil, nil
			}
			r.add(ctx, resp, off, timeout)
			return nil, nil
		}}})
	if err := rs.Start(); err != nil {
		t.Fatal(err)
	}
	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: 3 * time.Second, Logger: zerolog.Nop()})
	cc, err := cl.Conn(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rs.Shutdown(ctx)
		r.stop()
		_ = st.Close()
	})
	return st, r, cc
}

func waitRequest(offset int64) *protocol.Command {
	req := protocol.NewRequest(protocol.CodeSendMessage)
	req.Ext.Set("offset", strconv.FormatInt(offset, 10))
	return req
}

// Many sends in flight on one connection: each is answered SUCCESS only once the flushed
// offset covers it.
func TestSyncReplies_AnswersOnceFlushedPastEachSend(t *testing.T) {
	st, _, cc := syncRepliesServer(t, 5*time.Second)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		res, _ := putPlain(t, st, "SyncTopic", int32(i%4), "body-"+strconv.Itoa(i), 0)
		end := res.WroteOffset + int64(res.WroteBytes)
		wg.Add(1)
		cc.InvokeAsync(waitRequest(end), 10*time.Second, func(resp *protocol.Command, err error) {
			defer wg.Done()
			switch {
			case err != nil:
				errs <- err.Error()
			case resp.ResponseCode() != protocol.ResSuccess:
				errs <- "code " + resp.ResponseCode().String()
			case st.FlushedOffset() < end:
				errs <- "answered at flushed " + strconv.FormatInt(st.FlushedOffset(), 10) + " before " + strconv.FormatInt(end, 10)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A send the flush does not reach within the timeout is answered FLUSH_DISK_TIMEOUT (Java:
// handlePutMessageResult's FLUSH_DISK_TIMEOUT); one already covered is answered at once.
func TestSyncReplies_FlushDiskTimeoutAndAlreadyFlushed(t *testing.T) {
	st, _, cc := syncRepliesServer(t, 200*time.Millisecond)
	res, _ := putPlain(t, st, "SyncTopic", 0, "b", 0)
	end := res.WroteOffset + int64(res.WroteBytes)
	if err := st.WaitFlushed(end, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	resp, err := cc.Invoke(context.Background(), waitRequest(end), 5*time.Second)
	if err != nil || resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("already flushed: %v %v", resp, err)
	}
	start := time.Now()
	resp, err = cc.Invoke(context.Background(), waitRequest(end+1<<40), 5*time.Second)
	if err != nil || resp.ResponseCode() != protocol.ResFlushDiskTimeout {
		t.Fatalf("never flushed: %v %v, want FLUSH_DISK_TIMEOUT", resp, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("FLUSH_DISK_TIMEOUT after %v, before the 200ms timeout", d)
	}
}

// stop returns only after answering what still waits.
func TestSyncReplies_StopAnswersWaiters(t *testing.T) {
	st, r, cc := syncRepliesServer(t, 300*time.Millisecond)
	got := make(chan protocol.ResponseCode, 1)
	cc.InvokeAsync(waitRequest(1<<40), 5*time.Second, func(resp *protocol.Command, err error) {
		if err != nil {
			got <- -1
			return
		}
		got <- resp.ResponseCode()
	})
	waitFor(t, 5*time.Second, "the send to wait", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return !r.armed.IsZero()
	})
	_ = st
	r.stop()
	select {
	case c := <-got:
		if c != protocol.ResFlushDiskTimeout {
			t.Errorf("answer %v, want FLUSH_DISK_TIMEOUT", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after stop") // the client's read loop is still up: stop returned first
	}
}

// fakeReplicas is an HA master whose acknowledged offset the test moves.
type fakeReplicas struct {
	mu    sync.Mutex
	acked int64
	hook  func()
	wakes int
}

func newFakeReplicas() *fakeReplicas { return &fakeReplicas{} }

func (f *fakeReplicas) AckedOffset() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.acked
}

func (f *fakeReplicas) SetAckHook(h func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hook = h
}

func (f *fakeReplicas) WakeTransfer() {
	f.mu.Lock()
	f.wakes++
	f.mu.Unlock()
}

// ack raises the acknowledged offset and runs the hook on this goroutine, as
// ha.Master's reader does.
func (f *fakeReplicas) ack(off int64) {
	f.mu.Lock()
	f.acked = off
	h := f.hook
	f.mu.Unlock()
	if h != nil {
		h()
	}
}

func replicaRequest(flushTo, replicaTo int64) *protocol.Command {
	req := waitRequest(flushTo)
	req.Ext.Set("replica", strconv.FormatInt(replicaTo, 10))
	return req
}

// SYNC_MASTER: a send is answered once a slave acknowledged it (and, with SYNC_FLUSH, once
// flushed), FLUSH_SLAVE_TIMEOUT when no ack comes in time, and the replica's failure wins
// over the disk's, as in Java's CommitLog#handleDiskFlushAndHA.
func TestSyncReplies_ReplicaAcks(t *testing.T) {
	fr := newFakeReplicas()
	st, r, cc := syncRepliesServerWith(t, 300*time.Millisecond, fr)
	res, _ := putPlain(t, st, "SyncTopic", 0, "b", 0)
	end := res.WroteOffset + int64(res.WroteBytes)

	got := make(chan *protocol.Command, 1)
	cc.InvokeAsync(replicaRequest(0, end), 5*time.Second, func(resp *protocol.Command, err error) { got <- resp })
	waitFor(t, 5*time.Second, "the transfer to be woken", func() bool {
		fr.mu.Lock()
		defer fr.mu.Unlock()
		return fr.wakes > 0
	})
	select {
	case r := <-got:
		t.Fatalf("answered before the ack: %v", r.ResponseCode())
	default:
	}
	fr.ack(end)
	// The ack is answered on the goroutine that raised it (onAck), not later by the loop.
	r.procMu.Lock()
	r.mu.Lock()
	left := len(r.waiting) + len(r.pending)
	r.mu.Unlock()
	r.procMu.Unlock()
	if left != 0 {
		t.Errorf("%d sends still wait after the ack returned", left)
	}
	select {
	case r := <-got:
		if r == nil || r.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("after the ack: %v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after the ack")
	}

	start := time.Now()
	resp, err := cc.Invoke(context.Background(), replicaRequest(end, end+1<<40), 5*time.Second)
	if err != nil || resp.ResponseCode() != protocol.ResFlushSlaveTimeout {
		t.Fatalf("never acknowledged: %v %v, want FLUSH_SLAVE_TIMEOUT", resp, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("FLUSH_SLAVE_TIMEOUT after %v, before the timeout", d)
	}
	resp, err = cc.Invoke(context.Background(), replicaRequest(end+1<<40, end+1<<40), 5*time.Second)
	if err != nil || resp.ResponseCode() != protocol.ResFlushSlaveTimeout {
		t.Fatalf("neither flushed nor acknowledged: %v %v, want FLUSH_SLAVE_TIMEOUT", resp, err)
	}
	resp, err = cc.Invoke(context.Background(), replicaRequest(end+1<<40, -1), 5*time.Second)
	if err != nil || resp.ResponseCode() != protocol.ResSlaveNotAvailable {
		t.Fatalf("no slave, flush timed out: %v %v, want SLAVE_NOT_AVAILABLE", resp, err)
	}
}

// While only a slave's ack is awaited the loop does not listen for flushes; a send that
// then needs the flush must still be answered at the flush, not at its deadline.
func TestSyncReplies_FlushWaitAddedWhileOnlyAcksAwaited(t *testing.T) {
	fr := newFakeReplicas()
	st, r, cc := syncRepliesServerWith(t, 5*time.Second, fr)
	res, _ := putPlain(t, st, "SyncTopic", 0, "a", 0)
	end := res.WroteOffset + int64(res.WroteBytes)
	acked := make(chan *protocol.Command, 1)
	cc.InvokeAsync(replicaRequest(0, end), 10*time.Second, func(resp *protocol.Command, err error) { acked <- resp })
	waitFor(t, 5*time.Second, "the loop to wait for the ack alone", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return !r.armed.IsZero() && !r.onFlush
	})
	for i := range 20 { // several, so that some are added before the flush covering them
		res, _ = putPlain(t, st, "SyncTopic", 0, "b"+strconv.Itoa(i), 0)
		end2 := res.WroteOffset + int64(res.WroteBytes)
		start := time.Now()
		resp, err := cc.Invoke(context.Background(), waitRequest(end2), 10*time.Second)
		if err != nil || resp.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("flush wait: %v %v", resp, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("flush wait answered after %v: at its deadline, not at the flush", d)
		}
	}
	fr.ack(end)
	if resp := <-acked; resp == nil || resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("ack wait: %v", resp)
	}
}
