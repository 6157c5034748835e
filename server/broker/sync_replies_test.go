package broker

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// syncRepliesServer serves one request code whose handler hands its answer to a
// syncReplies waiting for the CommitLog offset in the request's "offset" field.
func syncRepliesServer(t *testing.T, timeout time.Duration) (*store.Store, *syncReplies, *remoting.ClientConn) {
	t.Helper()
	root := t.TempDir()
	sc := smallStoreConfig(root, "1s")
	sc.FlushDiskType = store.SyncFlush
	st, err := store.Open(sc)
	if err != nil {
		t.Fatal(err)
	}
	r := newSyncReplies(st, zerolog.Nop())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	rs := remoting.NewServer(remoting.Options{Listeners: []remoting.Listener{{Addr: addr}}, Logger: zerolog.Nop()},
		[]remoting.Route{{Code: protocol.CodeSendMessage, Handler: func(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
			off, err := strconv.ParseInt(req.Ext.Value("offset"), 10, 64)
			if err != nil {
				return nil, err
			}
			resp := protocol.NewResponse(req, protocol.ResSuccess, "")
			resp.Ext.Set("offset", strconv.FormatInt(off, 10))
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
