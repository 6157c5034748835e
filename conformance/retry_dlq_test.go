package conformance

// Retry and dead-letter queues with the unmodified Go push consumer: a message that fails
// once comes back from %RETRY%<group> with ReconsumeTimes 1; one that always fails ends
// in %DLQ%<group> after maxReconsumeTimes, through CONSUMER_SEND_MSG_BACK and through the
// client's fallback (SEND_MESSAGE to %RETRY%<group>) when the send-back is refused.

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

// shortDelays makes every level 1 s, so retries (level 3 + reconsumeTimes) come fast.
const shortDelays = "1s 1s 1s 1s 1s 1s"

func sendOne(t *testing.T, p interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
}, topic, body string) *primitive.SendResult {
	t.Helper()
	m := primitive.NewMessage(topic, []byte(body))
	m.WithTag("TagR")
	m.WithKeys([]string{"key-" + body})
	m.WithProperty("custom", "v")
	res, err := p.SendSync(context.Background(), m)
	if err != nil || res.Status != primitive.SendOK {
		t.Fatalf("send: %v %v", res, err)
	}
	return res
}

// checkCopy checks that m is the message sent as res, with body, tag, keys and user
// property intact and reconsumeTimes as given.
func checkCopy(t *testing.T, what string, m *primitive.MessageExt, res *primitive.SendResult, body string, reconsume int32) {
	t.Helper()
	if string(m.Body) != body || m.GetTags() != "TagR" || m.GetKeys() != "key-"+body || m.GetProperty("custom") != "v" {
		t.Fatalf("%s: body %q tags %q keys %q custom %q", what, m.Body, m.GetTags(), m.GetKeys(), m.GetProperty("custom"))
	}
	if m.MsgId != res.MsgID {
		t.Fatalf("%s: msgId (UNIQ_KEY) %s, sent %s", what, m.MsgId, res.MsgID)
	}
	if m.ReconsumeTimes != reconsume {
		t.Fatalf("%s: reconsumeTimes %d, want %d", what, m.ReconsumeTimes, reconsume)
	}
}

// dlqConfig reads the %DLQ% topic's config from GET_ALL_TOPIC_CONFIG.
func dlqConfig(t *testing.T, c *cluster, topic string) (perm, read, write int) {
	t.Helper()
	resp := newWire(t, c.broker.ListenAddrs()[0]).call(protocol.CodeGetAllTopicConfig, nil, nil)
	var w struct {
		TopicConfigTable map[string]struct {
			Perm           int `json:"perm"`
			ReadQueueNums  int `json:"readQueueNums"`
			WriteQueueNums int `json:"writeQueueNums"`
		} `json:"topicConfigTable"`
	}
	stdJSON(t, resp.Body, &w)
	tc, ok := w.TopicConfigTable[topic]
	if !ok {
		t.Fatalf("no topic config for %s", topic)
	}
	return tc.Perm, tc.ReadQueueNums, tc.WriteQueueNums
}

// precreateRetryTopic creates %RETRY%<group> (1 queue, perm 6) as an operator would and
// waits until the name server routes it. Without it the Go client learns the retry
// topic's route only at its next name-server poll (30 s): the broker creates the topic
// on the consumer's first heartbeat, after the client looked the route up at Start (a
// Java client against a Java broker behaves the same).
func precreateRetryTopic(t *testing.T, c *cluster, group string) {
	t.Helper()
	topic := "%RETRY%" + group
	h := protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102", ReadQueueNums: 1, WriteQueueNums: 1,
		Perm: 6, TopicFilterType: "SINGLE_TAG"}
	if resp := newWire(t, c.broker.ListenAddrs()[0]).call(protocol.CodeUpdateAndCreateTopic, &h, nil); resp.Code != 0 {
		t.Fatalf("create %s: %d %s", topic, resp.Code, resp.Remark)
	}
	ns := newWire(t, c.nsAddr())
	eventually(t, 15*time.Second, "the name server to route "+topic, func() bool {
		return ns.call(protocol.CodeGetRouteinfoByTopic, &protocol.GetRouteInfoRequestHeader{Topic: topic}, nil).Code == 0
	})
}

// readDLQ subscribes a new group to the DLQ topic and returns its first message.
func readDLQ(t *testing.T, c *cluster, dlq string) *primitive.MessageExt {
	t.Helper()
	got := &deliveries{}
	pushConsume(t, c.nsAddr(), unique("CGDLQ"), dlq, func(m *primitive.MessageExt) consumer.ConsumeResult {
		got.add(m)
		return consumer.ConsumeSuccess
	})
	eventually(t, 20*time.Second, "the dead letter consumed from "+dlq, func() bool { return got.len() >= 1 })
	m, _ := got.get(0)
	return m
}

func TestConformance_Retry_RetryLaterOnceRedelivered(t *testing.T) {
	c := startCluster(t, func(o *broker.Options) { o.Store.MessageDelayLevel = shortDelays })
	topic, group := unique("TRetry"), unique("CG")
	precreateRetryTopic(t, c, group)
	res := sendOne(t, newProducer(t, c.nsAddr()), topic, "retry-once")
	got := &deliveries{}
	pushConsume(t, c.nsAddr(), group, topic, func(m *primitive.MessageExt) consumer.ConsumeResult {
		got.add(m)
		if got.len() == 1 {
			return consumer.ConsumeRetryLater
		}
		return consumer.ConsumeSuccess
	})
	eventually(t, 20*time.Second, "the redelivery", func() bool { return got.len() >= 2 })
	first, t1 := got.get(0)
	second, t2 := got.get(1)
	checkCopy(t, "first delivery", first, res, "retry-once", 0)
	checkCopy(t, "redelivery", second, res, "retry-once", 1)
	if second.Topic != topic || second.Queue.Topic != "%RETRY%"+group {
		t.Fatalf("redelivery topic %s from queue of %s, want %s from %%RETRY%%%s", second.Topic, second.Queue.Topic, topic, group)
	}
	if second.GetProperty("RETRY_TOPIC") != topic || second.GetProperty("ORIGIN_MESSAGE_ID") != res.OffsetMsgID {
		t.Fatalf("redelivery RETRY_TOPIC %q ORIGIN_MESSAGE_ID %q, want %q and %q", second.GetProperty("RETRY_TOPIC"),
			second.GetProperty("ORIGIN_MESSAGE_ID"), topic, res.OffsetMsgID)
	}
	if second.GetProperty("DELAY") != "3" || second.GetProperty("WAIT") != "false" {
		t.Fatalf("redelivery DELAY %q WAIT %q, want 3 and false as Java stores them", second.GetProperty("DELAY"), second.GetProperty("WAIT"))
	}
	if gap := t2.Sub(t1); gap < time.Second {
		t.Fatalf("redelivered %v after the failure, want the level-3 delay (1 s)", gap)
	}
	// Nothing is left to redeliver once the schedule is drained and %RETRY% holds the one copy.
	waitScheduleDrained(t, c.broker.Addr(), 6)
	if n := storedCount(c, "%RETRY%"+group, 1); n != 1 {
		t.Fatalf("%d messages in %%RETRY%%%s, want 1", n, group)
	}
	if n := got.len(); n != 2 {
		t.Fatalf("%d deliveries, want 2", n)
	}
}

func TestConformance_Retry_DLQAfterMaxReconsumeTimes(t *testing.T) {
	c := startCluster(t, func(o *broker.Options) { o.Store.MessageDelayLevel = shortDelays })
	topic, group := unique("TDLQ"), unique("CG")
	dlq := "%DLQ%" + group
	precreateRetryTopic(t, c, group)
	res := sendOne(t, newProducer(t, c.nsAddr()), topic, "always-fails")
	got := &deliveries{}
	pushConsume(t, c.nsAddr(), group, topic, func(m *primitive.MessageExt) consumer.ConsumeResult {
		got.add(m)
		return consumer.ConsumeRetryLater
	}, consumer.WithMaxReconsumeTimes(2))
	eventually(t, 20*time.Second, "the message in "+dlq, func() bool { return storedCount(c, dlq, 1) == 1 })
	// No further delivery once dead: the schedule is drained and %RETRY% holds the two retries.
	waitScheduleDrained(t, c.broker.Addr(), 6)
	if n := storedCount(c, "%RETRY%"+group, 1); n != 2 {
		t.Fatalf("%d messages in %%RETRY%%%s, want 2 (reconsumeTimes 1, 2)", n, group)
	}
	if n := got.len(); n != 3 {
		t.Fatalf("%d deliveries, want 3 (reconsumeTimes 0, 1, 2)", n)
	}
	for i := 0; i < 3; i++ {
		m, _ := got.get(i)
		checkCopy(t, "delivery "+strconv.Itoa(i), m, res, "always-fails", int32(i))
	}
	if perm, r, w := dlqConfig(t, c, dlq); perm != 6 || r != 1 || w != 1 {
		t.Fatalf("%s: perm %d, queues %d/%d; want perm 6 (4.9.2+) and 1 queue", dlq, perm, r, w)
	}
	d := readDLQ(t, c, dlq)
	checkCopy(t, "dead letter", d, res, "always-fails", 3)
	if d.Topic != dlq || d.GetProperty("RETRY_TOPIC") != topic || d.GetProperty("ORIGIN_MESSAGE_ID") != res.OffsetMsgID ||
		d.GetProperty("DELAY") != "0" {
		t.Fatalf("dead letter topic %s, properties %v", d.Topic, d.GetProperties())
	}
}

// TestConformance_Retry_FallbackReachesDLQ puts a proxy between the clients and the
// broker that refuses CONSUMER_SEND_MSG_BACK as a broker without it would; the Go client
// then sends the failed message itself to %RETRY%<group> (SEND_MESSAGE with
// reconsumeTimes+1), and the broker moves it to %DLQ%<group> once reconsumeTimes reaches
// maxReconsumeTimes (Java: SendMessageProcessor#handleRetryAndDLQ).
func TestConformance_Retry_FallbackReachesDLQ(t *testing.T) {
	var proxy *refusingProxy
	c := startCluster(t, func(o *broker.Options) {
		o.Store.MessageDelayLevel = shortDelays
		// Registered (and dialled by the clients) as 127.0.0.2:port, where the proxy
		// listens; the broker itself listens on 127.0.0.1:port.
		o.BrokerIP1 = "127.0.0.2"
		proxy = startRefusingProxy(t, "127.0.0.2:"+o.ListenAddr[strings.LastIndexByte(o.ListenAddr, ':')+1:], o.ListenAddr)
	})
	topic, group := unique("TFallback"), unique("CG")
	dlq := "%DLQ%" + group
	precreateRetryTopic(t, c, group)
	res := sendOne(t, newProducer(t, c.nsAddr()), topic, "fallback")
	got := &deliveries{}
	pushConsume(t, c.nsAddr(), group, topic, func(m *primitive.MessageExt) consumer.ConsumeResult {
		got.add(m)
		return consumer.ConsumeRetryLater
	}, consumer.WithMaxReconsumeTimes(2))
	eventually(t, 30*time.Second, "the message in "+dlq, func() bool { return storedCount(c, dlq, 1) == 1 })
	waitScheduleDrained(t, c.broker.Addr(), 6)
	if n := storedCount(c, "%RETRY%"+group, 1); n != 1 {
		t.Fatalf("%d messages in %%RETRY%%%s, want 1 (reconsumeTimes 1)", n, group)
	}
	// reconsumeTimes 0 fails → client sends reconsumeTimes 1 to %RETRY% (delayed);
	// 1 fails → client sends reconsumeTimes 2 ≥ 2 → %DLQ%.
	if n := got.len(); n != 2 {
		t.Fatalf("%d deliveries, want 2 (reconsumeTimes 0, 1)", n)
	}
	for i := 0; i < 2; i++ {
		m, _ := got.get(i)
		checkCopy(t, "delivery "+strconv.Itoa(i), m, res, "fallback", int32(i))
	}
	if n := proxy.refused.Load(); n != 2 {
		t.Fatalf("the proxy refused %d send-backs, want 2", n)
	}
	d := readDLQ(t, c, dlq)
	checkCopy(t, "dead letter", d, res, "fallback", 2)
	if d.Topic != dlq || d.GetProperty("RETRY_TOPIC") != topic || d.GetProperty("ORIGIN_MESSAGE_ID") != res.MsgID {
		t.Fatalf("dead letter topic %s, properties %v", d.Topic, d.GetProperties())
	}
}

// refusingProxy relays RocketMQ frames between clients and a broker, and answers
// CONSUMER_SEND_MSG_BACK itself with REQUEST_CODE_NOT_SUPPORTED.
type refusingProxy struct {
	ln      net.Listener
	target  string
	refused atomic.Int64
	mu      sync.Mutex
	conns   []net.Conn
}

func startRefusingProxy(t *testing.T, listen, target string) *refusingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatalf("proxy listen %s: %v", listen, err)
	}
	p := &refusingProxy{ln: ln, target: target}
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	return p
}

func (p *refusingProxy) track(c net.Conn) {
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.mu.Unlock()
}

func (p *refusingProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		b, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.track(c)
		p.track(b)
		go p.relay(c, b)
	}
}

// readFrame reads one whole frame, length word included.
func readFrame(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	f := make([]byte, 4+binary.BigEndian.Uint32(n[:]))
	copy(f, n[:])
	_, err := io.ReadFull(r, f[4:])
	return f, err
}

func (p *refusingProxy) relay(client, brk net.Conn) {
	defer client.Close()
	defer brk.Close()
	var wmu sync.Mutex // whole frames to the client, from both directions' goroutines
	go func() {
		defer client.Close()
		for {
			f, err := readFrame(brk)
			if err != nil {
				return
			}
			wmu.Lock()
			_, err = client.Write(f)
			wmu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	for {
		f, err := readFrame(client)
		if err != nil {
			return
		}
		cmd, err := codec.Decode(f)
		if err != nil {
			return
		}
		if cmd.RequestCode() == protocol.CodeConsumerSendMsgBack && !cmd.IsResponse() {
			p.refused.Add(1)
			out := codec.AppendFrame(nil, protocol.NewResponse(cmd, protocol.ResRequestCodeNotSupported, protocol.NotSupported(cmd.Code).Remark))
			wmu.Lock()
			_, err = client.Write(out)
			wmu.Unlock()
		} else {
			_, err = brk.Write(f)
		}
		if err != nil {
			return
		}
	}
}
