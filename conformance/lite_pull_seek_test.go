package conformance

// The Go client's lite pull consumer seeking into queues just written (issue 8): 20 messages
// sent synchronously to a fresh topic of 4 queues, then a pull consumer of a fresh group seeks
// every queue to its middle, assigns them, starts and polls. Its first pull of each queue asks
// for the seek offset right after the sends were answered, possibly before the broker's
// dispatcher has put those messages in the ConsumeQueue. Java 4.9.7 (and Skyrocket before the
// fix) then answers PULL_OFFSET_MOVED; the client drops the queue and, 10 s later, restarts it
// from the broker's nextBeginOffset, so it polls the messages before the seek. Skyrocket
// answers PULL_NOT_FOUND at the offset instead (store.GetMessage, UNSUPPORTED.md).
//
// The rounds repeat the scenario with fresh topics and groups to catch the race. The consumer
// assigns before it starts: the client's Assign on a running consumer rebalances outside the
// client's rebalance lock, and a start-up rebalance running at the same time gives a queue a
// second pull request without the seek offset, which pulls from the group's offset 0 (seen
// once in 40 to 150 rounds); assigned before Start, every rebalance takes the lock.
//
// The differential part compares the raw answers of Java 4.9.7 and Skyrocket to the requests
// the consumer's start makes (QUERY_CONSUMER_OFFSET, GET_MAX_OFFSET, GET_MIN_OFFSET,
// PULL_MESSAGE) for queues without a ConsumeQueue and with dispatched messages, and runs the
// rounds against Java's broker, where failed rounds are logged, not failed.

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

const litePullSeekRounds = 8

func TestConformance_LitePull_SeekIntoJustWrittenQueues(t *testing.T) {
	c := startCluster(t, nil)
	s := newSide(t, "skyrocket", c.nsAddr(), c.opts.ListenAddr)
	for round := 0; round < litePullSeekRounds; round++ {
		if err := litePullSeekRound(t, s); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

func TestDifferential_LitePullSeek(t *testing.T) {
	needJavaServers(t)
	e := startDiffEnv(t)
	t.Run("Wire", func(t *testing.T) { diffLitePullWire(t, e) })
	t.Run("GoClient", func(t *testing.T) {
		javaFailed := 0
		for round := 0; round < litePullSeekRounds; round++ {
			if err := litePullSeekRound(t, e.java); err != nil {
				javaFailed++
				t.Logf("java round %d (Java's own race, not failed): %v", round, err)
			}
			if err := litePullSeekRound(t, e.sky); err != nil {
				t.Fatalf("skyrocket round %d: %v", round, err)
			}
		}
		t.Logf("%d rounds each: Java polled before the seek in %d, Skyrocket in none", litePullSeekRounds, javaFailed)
	})
}

// litePullSeekRound runs one round against side s: a fresh topic of 4 queues, 20 messages sent
// synchronously, a pull consumer of a fresh group that seeks every queue to its middle. It
// returns an error when the consumer polls a message before its queue's seek offset, or does
// not poll every message from the seek offsets on within 45 s (a queue the client dropped
// comes back after 10 s and a rebalance).
func litePullSeekRound(t *testing.T, s *side) error {
	t.Helper()
	t0 := time.Now()
	topic, group := unique("LitePullSeekT"), unique("LitePullSeekG")
	s.createTopic(t, topic, 4)
	sizes := map[int]int64{}
	var mqs []*primitive.MessageQueue
	for _, r := range sendN(t, s.ns, topic, 20) {
		q := r.MessageQueue.QueueId
		if _, ok := sizes[q]; !ok {
			mqs = append(mqs, r.MessageQueue)
		}
		sizes[q] = max(sizes[q], r.QueueOffset+1)
	}
	if len(mqs) != 4 {
		t.Fatalf("%s: the producer wrote to queues %v, want all 4", s.name, sizes)
	}
	pc := newPullConsumer(t, s.ns, group)
	seek := map[int]int64{}
	want := 0
	for _, mq := range mqs {
		seek[mq.QueueId] = sizes[mq.QueueId] / 2
		want += int(sizes[mq.QueueId] - seek[mq.QueueId])
		pc.SeekOffset(mq, seek[mq.QueueId])
	}
	if err := pc.Assign(topic, mqs); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pc.Shutdown() }()
	got := map[int]map[int64]bool{}
	n := 0
	deadline := time.Now().Add(45 * time.Second)
	for n < want {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: polled %d of the %d messages at or after the seek offsets %v within 45 s (got %v)",
				s.name, n, want, seek, sortedOffsets(got))
		}
		cr, err := pc.Poll(context.Background(), time.Second)
		if consumer.IsNoNewMsgError(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cr.GetMsgList() {
			q := m.Queue.QueueId
			if m.QueueOffset < seek[q] {
				return fmt.Errorf("%s: polled queue %d offset %d after %v, before its seek offset %d (seeks %v, queue sizes %v)",
					s.name, q, m.QueueOffset, time.Since(t0).Round(time.Millisecond), seek[q], seek, sizes)
			}
			if got[q] == nil {
				got[q] = map[int64]bool{}
			}
			if !got[q][m.QueueOffset] {
				got[q][m.QueueOffset] = true
				n++
			}
		}
		pc.ACK(context.Background(), cr, consumer.ConsumeSuccess)
	}
	t.Logf("%s: every message from the seek offsets on, none before, in %v", s.name, time.Since(t0).Round(time.Millisecond))
	return nil
}

func sortedOffsets(got map[int]map[int64]bool) map[int][]int64 {
	out := map[int][]int64{}
	for q, offs := range got {
		for o := range offs {
			out[q] = append(out[q], o)
		}
		sort.Slice(out[q], func(i, j int) bool { return out[q][i] < out[q][j] })
	}
	return out
}

// diffLitePullWire compares, request by request, what the lite pull consumer's start asks
// (QUERY_CONSUMER_OFFSET of a new group, GET_MAX_OFFSET, GET_MIN_OFFSET, PULL_MESSAGE at 0, at
// a seek offset, at the end and past it) for a queue whose ConsumeQueue does not exist yet
// (Java creates it on this first access), the same queue again, one holding 5 dispatched
// messages, and one never written. The state between a send's answer and its dispatch cannot
// be held still on Java's side; store.TestGetMessage_PutButNotDispatched covers Skyrocket's.
func diffLitePullWire(t *testing.T, e *diffEnv) {
	d := newDiffer(t)
	const topic, group = "DiffLitePullT", "DiffLitePullG"
	e.both(func(s *side) { s.createTopic(t, topic, 4) })
	compare := func(path string, mk func() *protocol.Command) {
		var r [2]*protocol.Command
		for i, s := range []*side{e.java, e.sky} {
			r[i] = s.call(t, s.broker, mk())
		}
		d.response(path, e.java, r[0], e.sky, r[1])
	}
	queries := func(path string, q int) {
		qs := strconv.Itoa(q)
		compare(path+"/query-offset", func() *protocol.Command {
			return req(protocol.CodeQueryConsumerOffset, "consumerGroup", group, "topic", topic, "queueId", qs)
		})
		compare(path+"/max-offset", func() *protocol.Command { return req(protocol.CodeGetMaxOffset, "topic", topic, "queueId", qs) })
		compare(path+"/min-offset", func() *protocol.Command { return req(protocol.CodeGetMinOffset, "topic", topic, "queueId", qs) })
		for _, off := range []int64{0, 2, 5, 7} {
			compare(fmt.Sprintf("%s/pull@%d", path, off), func() *protocol.Command { return pull(group, topic, q, off) })
		}
	}
	queries("no-consume-queue-q1", 1)
	queries("no-consume-queue-q1-again", 1)
	for _, s := range []*side{e.java, e.sky} {
		for n := 0; n < 5; n++ {
			p := props("TAGS", "TagL", "UNIQ_KEY", fmt.Sprintf("0000000000000000000000000000B%03d", n), "WAIT", "true")
			if r := s.call(t, s.broker, sendV2(topic, 0, 0, 0, p, []byte("lite-"+strconv.Itoa(n)))); r.Code != 0 {
				t.Fatalf("%s: send: %d %s", s.name, r.Code, r.Remark)
			}
		}
		eventually(t, 10*time.Second, s.name+" dispatches queue 0", func() bool {
			return s.call(t, s.broker, req(protocol.CodeGetMaxOffset, "topic", topic, "queueId", "0")).Ext.Value("offset") == "5"
		})
	}
	queries("five-messages-q0", 0)
	queries("never-written-q2", 2)
}
