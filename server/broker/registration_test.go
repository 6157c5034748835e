package broker

import (
	"bytes"
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// fakeNamesrv serves routes on a free loopback port, pooled ones on a pool of 4, until the
// test ends; it returns the address.
func fakeNamesrv(t *testing.T, routes ...remoting.Route) string {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
	pool := &remoting.Pool{Name: "fake-namesrv", Workers: 4}
	for i := range routes {
		routes[i].Pool = pool
	}
	rs := remoting.NewServer(remoting.Options{Listeners: []remoting.Listener{{Addr: addr}}, Logger: zerolog.Nop()}, routes)
	if err := rs.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rs.Shutdown(ctx)
		pool.Stop()
	})
	return addr
}

// sendToNewTopic sends one message to topic through TBW102 and returns the answer, or the
// error after timeout.
func sendToNewTopic(t *testing.T, b *Broker, topic string, timeout time.Duration) (*protocol.Command, error) {
	t.Helper()
	h := protocol.SendMessageRequestHeader{ProducerGroup: "PG", Topic: topic, DefaultTopic: meta.TopicAutoCreate,
		DefaultTopicQueueNums: 4, QueueID: 0, BornTimestamp: time.Now().UnixMilli()}
	req := protocol.NewRequest(protocol.CodeSendMessage)
	h.Encode(&req.Ext)
	req.Body = []byte("first")
	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	return cl.Invoke(context.Background(), b.ListenAddrs()[0], req, timeout)
}

// A send that auto-creates its topic is answered only after the name servers have taken
// the new topic (Java registers from the send thread): the CI once saw the Go client's
// push consumer, started right after such sends, find no route.
func TestAutoCreatedTopic_SendAnsweredAfterRegistration(t *testing.T) {
	const topic = "AutoRegTopic"
	var answered atomic.Bool
	ns := fakeNamesrv(t, remoting.Route{Code: protocol.CodeRegisterBroker, Handler: func(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
		time.Sleep(150 * time.Millisecond)
		if bytes.Contains(req.Body, []byte(topic)) {
			// Marked before the answer is written, as a name server's table is updated
			// before it answers.
			answered.Store(true)
		}
		return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
	}})
	b := newTestBroker(t, func(o *Options) { o.NamesrvAddrs = []string{ns} })
	resp, err := sendToNewTopic(t, b, topic, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code != int32(protocol.ResSuccess) {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	if !answered.Load() {
		t.Fatal("the send was answered before the name server had the auto-created topic")
	}
}

// While no name server answers the broker's registrations, a send that auto-creates a
// topic does not wait for one: the new topic is registered in the background.
func TestAutoCreatedTopic_UnansweredNamesrv_SendNotHeld(t *testing.T) {
	release := make(chan struct{})
	var registers atomic.Int32
	ns := fakeNamesrv(t,
		remoting.Route{Code: protocol.CodeRegisterBroker, Handler: func(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
			if registers.Add(1) == 1 {
				return protocol.NewResponse(req, protocol.ResSystemError, "refused"), nil
			}
			<-release // later registrations are never answered while the test runs
			return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
		}},
		remoting.Route{Code: protocol.CodeUnregisterBroker, Handler: func(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
			return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
		}})
	t.Cleanup(func() { close(release) }) // runs before the server's shutdown, after the broker's
	b := newTestBroker(t, func(o *Options) {
		o.NamesrvAddrs = []string{ns}
		o.RegisterBrokerTimeout = time.Minute // a send held for it would time out below
	})
	resp, err := sendToNewTopic(t, b, "AutoMuteTopic", 10*time.Second)
	if err != nil {
		t.Fatalf("the send was held: %v", err)
	}
	if resp.Code != int32(protocol.ResSuccess) {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	waitFor(t, 10*time.Second, "the new topic's registration sent in the background", func() bool { return registers.Load() >= 2 })
}

// A request that must wait (here a send that auto-created its topic, held until a slow
// name server takes it) does not hold the event loop: with one loop serving both
// connections, another connection's requests are answered within milliseconds meanwhile.
func TestEventLoop_HeldRequestDoesNotStallOtherConnections(t *testing.T) {
	const topic = "AutoHeldTopic"
	release := make(chan struct{})
	ns := fakeNamesrv(t,
		remoting.Route{Code: protocol.CodeRegisterBroker, Handler: func(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
			if bytes.Contains(req.Body, []byte(topic)) {
				<-release // the new topic's registration hangs until the test lets it go
			}
			return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
		}},
		remoting.Route{Code: protocol.CodeUnregisterBroker, Handler: func(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
			return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
		}})
	b := newTestBroker(t, func(o *Options) {
		o.NamesrvAddrs = []string{ns}
		o.EventLoops = 1 // both connections on the loop that runs the held send
		o.RegisterBrokerTimeout = time.Minute
	})
	waitFor(t, 10*time.Second, "the first registration", func() bool { return b.nsAnswered.Load() })

	held := make(chan *protocol.Command, 1)
	go func() {
		resp, _ := sendToNewTopic(t, b, topic, 30*time.Second)
		held <- resp
	}()
	waitFor(t, 10*time.Second, "the new topic", func() bool { _, ok := b.topics.Get(topic); return ok })

	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	var worst time.Duration
	for i := 0; i < 20; i++ {
		req := protocol.NewRequest(protocol.CodeGetMaxOffset)
		(&protocol.GetMaxOffsetRequestHeader{Topic: topic, QueueID: 0}).Encode(&req.Ext)
		start := time.Now()
		resp, err := cl.Invoke(context.Background(), b.ListenAddrs()[0], req, 5*time.Second)
		if err != nil || resp.Code != int32(protocol.ResSuccess) {
			t.Fatalf("other connection while the send is held: %v %v", resp, err)
		}
		worst = max(worst, time.Since(start))
	}
	select {
	case r := <-held:
		t.Fatalf("the send was answered before its topic was registered: %v", r)
	default:
	}
	if worst > time.Second {
		t.Fatalf("another connection waited %v while a send was held", worst)
	}
	t.Logf("20 requests on the same loop answered, slowest in %v, while the send waited", worst)
	close(release)
	select {
	case r := <-held:
		if r == nil || r.Code != int32(protocol.ResSuccess) {
			t.Fatalf("held send: %v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held send was never answered")
	}
}
