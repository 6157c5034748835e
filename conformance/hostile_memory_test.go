package conformance

import (
	"context"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// Hostile input 1 (issue 14): a client that writes requests and never reads the answers
// made the broker (~450 MiB for 200 MB of GET_MAX_OFFSET) and the NameServer (~274 MiB
// for 50 MB of route queries) read and answer without bound, and kept the memory. The
// server now stops decoding such a connection once its unsent answers reach the high
// water mark (4 MiB) and closes it when it has sent 16 MiB more (remoting.Limits). These
// tests write that traffic with the default limits and check the Go heap of the test
// process, which holds the server, stays bounded, that another client is served while it
// happens, and that the memory is released after.

// flood writes frames (one batch repeated) on a new connection without ever reading,
// until total bytes are written or the server closes the connection, and returns the
// peak heap growth seen while writing.
func flood(t *testing.T, addr string, batch []byte, total int, during func()) (written int, peakGrowth uint64) {
	t.Helper()
	runtime.GC()
	base := heapInUse()
	t.Cleanup(func() {
		// The memory is released once the connection is gone: the heap returns to about
		// where it was (other tests' servers in the process move it a little).
		eventually(t, 10*time.Second, "the flooding connection's memory released", func() bool {
			runtime.GC()
			return heapInUse() < base+32<<20
		})
	})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stop := make(chan struct{})
	peak := make(chan uint64, 1)
	go func() {
		var p uint64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				peak <- p
				return
			case <-tick.C:
				if h := heapInUse(); h > base && h-base > p {
					p = h - base
				}
			}
		}
	}()
	calledDuring := false
	giveUp := time.Now().Add(60 * time.Second)
	closed := false
	for written < total && time.Now().Before(giveUp) {
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		n, err := conn.Write(batch)
		written += n
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			continue // a slow loop on a loaded machine: the server may still read
		}
		if err != nil {
			closed = true // by the server
			break
		}
		if !calledDuring && written > 16<<20 {
			calledDuring = true
			during()
		}
	}
	close(stop)
	if !closed {
		t.Errorf("the server neither closed the connection nor took all %d MiB in 60 s (wrote %d MiB)", total>>20, written>>20)
	}
	return written, <-peak
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// heapBound is the most the flood may add to the heap: the high water mark, the held
// input (16 MiB), gnet's read buffers and one OnTraffic's answers, with room for the
// garbage collector's lag. Without the limits the growth was several times the bytes
// written (hundreds of MiB).
const heapBound = 160 << 20

func TestHostile_BrokerClientThatDoesNotRead_MemoryBounded(t *testing.T) {
	c := startCluster(t, nil)
	var batch []byte
	for range 512 {
		req := protocol.NewRequest(protocol.CodeGetMaxOffset)
		(&protocol.GetMaxOffsetRequestHeader{Topic: "TBW102", QueueID: 0}).Encode(&req.Ext)
		batch = codec.AppendFrame(batch, req)
	}
	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	written, growth := flood(t, c.broker.Addr(), batch, 200<<20, func() {
		maxOffset(t, cl, c.broker.Addr(), "TBW102", 0) // another client is served meanwhile
	})
	t.Logf("wrote %d MiB of GET_MAX_OFFSET without reading; peak heap growth %d MiB", written>>20, growth>>20)
	if written >= 200<<20 {
		t.Errorf("the broker took all %d MiB from a client that reads nothing", written>>20)
	}
	if growth > heapBound {
		t.Errorf("heap grew by %d MiB, bound %d MiB", growth>>20, heapBound>>20)
	}
	maxOffset(t, cl, c.broker.Addr(), "TBW102", 0)
}

func TestHostile_NamesrvClientThatDoesNotRead_MemoryBounded(t *testing.T) {
	c := startCluster(t, nil)
	var batch []byte
	for range 512 {
		req := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
		(&protocol.GetRouteInfoRequestHeader{Topic: "TBW102"}).Encode(&req.Ext)
		batch = codec.AppendFrame(batch, req)
	}
	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	route := func() {
		req := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
		(&protocol.GetRouteInfoRequestHeader{Topic: "TBW102"}).Encode(&req.Ext)
		resp, err := cl.Invoke(context.Background(), c.nsAddr(), req, 5*time.Second)
		if err != nil || resp.ResponseCode() != protocol.ResSuccess {
			t.Errorf("route query from another client: %v %v", resp, err)
		}
	}
	eventually(t, 10*time.Second, "the broker registered", func() bool {
		req := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
		(&protocol.GetRouteInfoRequestHeader{Topic: "TBW102"}).Encode(&req.Ext)
		resp, err := cl.Invoke(context.Background(), c.nsAddr(), req, 5*time.Second)
		return err == nil && resp.ResponseCode() == protocol.ResSuccess
	})
	written, growth := flood(t, c.nsAddr(), batch, 100<<20, route)
	t.Logf("wrote %d MiB of route queries without reading; peak heap growth %d MiB", written>>20, growth>>20)
	if written >= 100<<20 {
		t.Errorf("the NameServer took all %d MiB from a client that reads nothing", written>>20)
	}
	if growth > heapBound {
		t.Errorf("heap grew by %d MiB, bound %d MiB", growth>>20, heapBound>>20)
	}
	route()
}
