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

// flushRepliesServer serves one request code whose handler hands its answer to a
// flushReplies waiting for the CommitLog offset in the request's "offset" field.
func flushRepliesServer(t *testing.T, timeout time.Duration) (*store.Store, *flushReplies, *remoting.ClientConn) {
	t.Helper()
	sc := smallStoreConfig(t.TempDir(), "1s")
	sc.FlushDiskType = store.SyncFlush
	st, err := store.Open(sc)
	if err != nil {
		t.Fatal(err)
	}
	r := newFlushReplies(st, nil, zerolog.Nop())
	addr := "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
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

// Sends appended from several goroutines while group commits run: each is answered
// SUCCESS, from the flushing goroutine, only once the flushed offset covers it.
func TestFlushReplies_AnswersOnceFlushedPastEachSend(t *testing.T) {
	st, _, cc := flushRepliesServer(t, 5*time.Second)
	const senders, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan string, senders*each)
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				res, _ := putPlain(t, st, "SyncTopic", int32(s%4), "body-"+strconv.Itoa(i), 0)
				end := res.WroteOffset + int64(res.WroteBytes)
				resp, err := cc.Invoke(context.Background(), waitRequest(end), 10*time.Second)
				flushed := st.FlushedOffset()
				switch {
				case err != nil:
					errs <- err.Error()
				case resp.ResponseCode() != protocol.ResSuccess:
					errs <- "code " + resp.ResponseCode().String()
				case flushed < end:
					errs <- "answered at flushed " + strconv.FormatInt(flushed, 10) + " before " + strconv.FormatInt(end, 10)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A send the flush does not reach within the timeout is answered FLUSH_DISK_TIMEOUT by
// the timer, even while flushes keep answering others; one already covered at once.
func TestFlushReplies_FlushDiskTimeoutAndAlreadyFlushed(t *testing.T) {
	st, _, cc := flushRepliesServer(t, 200*time.Millisecond)
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
	never := make(chan *protocol.Command, 1)
	cc.InvokeAsync(waitRequest(end+1<<40), 5*time.Second, func(resp *protocol.Command, err error) {
		if err != nil {
			t.Error(err)
		}
		never <- resp
	})
	// Meanwhile sends that are flushed are answered SUCCESS by the group commits.
	for i := range 5 {
		res, _ := putPlain(t, st, "SyncTopic", 1, "x"+strconv.Itoa(i), 0)
		resp, err := cc.Invoke(context.Background(), waitRequest(res.WroteOffset+int64(res.WroteBytes)), 5*time.Second)
		if err != nil || resp.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("flushed send %d: %v %v", i, resp, err)
		}
	}
	resp = <-never
	if resp == nil || resp.ResponseCode() != protocol.ResFlushDiskTimeout {
		t.Fatalf("never flushed: %v, want FLUSH_DISK_TIMEOUT", resp)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("FLUSH_DISK_TIMEOUT after %v, before the 200ms timeout", d)
	}
}

// stop returns only after answering what still waits.
func TestFlushReplies_StopAnswersWaiters(t *testing.T) {
	_, r, cc := flushRepliesServer(t, 300*time.Millisecond)
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
		return len(r.waits) == 1
	})
	r.stop()
	select {
	case c := <-got:
		if c != protocol.ResFlushDiskTimeout {
			t.Errorf("answer %v, want FLUSH_DISK_TIMEOUT", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after stop")
	}
}
