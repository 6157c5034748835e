package conformance

// Differential runs: the same requests and client scenarios against Java's 4.9.7 NameServer
// + Broker (conformance/java) and against Skyrocket's, comparing what a client observes —
// codes and remarks of error cases, routes, offsets after sends and consumes, stored message
// fields, admin outputs — and, in MixedClusters, a Java broker under Skyrocket's NameServer
// and Skyrocket's broker under Java's. Skipped unless SKYROCKET_JAVA_SERVERS=1 (set by
// conformance/java/run.sh diff). Every difference is printed; the test fails on any that
// diffAllowList does not explain.

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestDifferential_JavaBroker(t *testing.T) {
	needJavaServers(t)
	e := startDiffEnv(t)
	t.Run("ErrorCases", func(t *testing.T) { diffErrorCases(t, e) })
	t.Run("Routes", func(t *testing.T) { diffRoutes(t, e) })
	t.Run("Offsets", func(t *testing.T) { diffOffsets(t, e) })
	t.Run("MessageFields", func(t *testing.T) { diffMessageFields(t, e) })
	t.Run("AdminOutputs", func(t *testing.T) { diffAdmin(t, e) })
	t.Run("MixedClusters", func(t *testing.T) { mixedClusters(t, e) })
	t.Run("HundredThousandTopics", func(t *testing.T) { diffHundredThousandTopics(t, e) })
}

// both runs fn against each side.
func (e *diffEnv) both(fn func(s *side)) {
	fn(e.java)
	fn(e.sky)
}

func diffErrorCases(t *testing.T, e *diffEnv) {
	d := newDiffer(t)
	const topic = "DiffErrT"
	e.both(func(s *side) { s.createTopic(t, topic, 4) })
	okProps := props("TAGS", "TagA", "UNIQ_KEY", "00000000000000000000000000000001", "WAIT", "true")
	big := bytes.Repeat([]byte("x"), 4*1024*1024+1)
	cases := []struct {
		name string
		ns   bool
		req  func() *protocol.Command
	}{
		{"route-unknown-topic", true, func() *protocol.Command { return req(protocol.CodeGetRouteinfoByTopic, "topic", "DiffNoSuchTopic") }},
		{"namesrv-unknown-code", true, func() *protocol.Command { return req(protocol.RequestCode(9999)) }},
		{"route-missing-topic", true, func() *protocol.Command { return req(protocol.CodeGetRouteinfoByTopic) }},
		{"broker-unknown-code", false, func() *protocol.Command { return req(protocol.RequestCode(9999)) }},
		{"send-ok", false, func() *protocol.Command { return sendV2(topic, 0, 0, 0, okProps, []byte("ok")) }},
		{"send-bad-queue", false, func() *protocol.Command { return sendV2(topic, 99, 0, 0, okProps, []byte("q")) }},
		{"send-illegal-topic", false, func() *protocol.Command { return sendV2("bad topic!", 0, 0, 0, okProps, []byte("t")) }},
		{"send-long-topic", false, func() *protocol.Command { return sendV2(strings.Repeat("T", 200), 0, 0, 0, okProps, []byte("t")) }},
		{"send-system-topic", false, func() *protocol.Command { return sendV2("SCHEDULE_TOPIC_XXXX", 0, 0, 0, okProps, []byte("t")) }},
		{"send-oversized-body", false, func() *protocol.Command { return sendV2(topic, 0, 0, 0, okProps, big) }},
		{"send-missing-topic", false, func() *protocol.Command {
			c := sendV2(topic, 0, 0, 0, okProps, []byte("m"))
			c.Ext.Delete("b")
			return c
		}},
		{"send-missing-body", false, func() *protocol.Command { return sendV2(topic, 0, 0, 0, okProps, nil) }},
		{"pull-bad-queue", false, func() *protocol.Command { return pull("DiffG", topic, 99, 0) }},
		{"pull-unknown-topic", false, func() *protocol.Command { return pull("DiffG", "DiffNoSuchTopic", 0, 0) }},
		{"pull-missing-queueId", false, func() *protocol.Command {
			c := pull("DiffG", topic, 0, 0)
			c.Ext.Delete("queueId")
			return c
		}},
		{"pull-offset-past-end", false, func() *protocol.Command { return pull("DiffG", topic, 0, 1000) }},
		{"pull-group-without-heartbeat", false, func() *protocol.Command { return pullFlags("DiffG", topic, 0, 0, 0) }},
		{"pull-bad-subscription", false, func() *protocol.Command {
			c := pull("DiffG", topic, 0, 0)
			c.Ext.Set("expressionType", "SQL92")
			c.Ext.Set("subscription", "a >")
			return c
		}},
		{"query-offset-unknown-group", false, func() *protocol.Command {
			return req(protocol.CodeQueryConsumerOffset, "consumerGroup", "DiffNoGroup", "topic", topic, "queueId", "0")
		}},
		{"query-offset-empty-queue", false, func() *protocol.Command {
			return req(protocol.CodeQueryConsumerOffset, "consumerGroup", "DiffNoGroup", "topic", topic, "queueId", "3")
		}},
		{"consumer-list-unknown-group", false, func() *protocol.Command {
			return req(protocol.CodeGetConsumerListByGroup, "consumerGroup", "DiffNoGroup")
		}},
		{"max-offset-unknown-topic", false, func() *protocol.Command {
			return req(protocol.CodeGetMaxOffset, "topic", "DiffNoSuchTopic", "queueId", "0")
		}},
		{"view-message-bad-offset", false, func() *protocol.Command { return req(protocol.CodeViewMessageById, "offset", "999999999") }},
		{"consumer-connections-unknown-group", false, func() *protocol.Command {
			return req(protocol.CodeGetConsumerConnectionList, "consumerGroup", "DiffNoGroup")
		}},
		{"consume-stats-unknown-group", false, func() *protocol.Command {
			return req(protocol.CodeGetConsumeStats, "consumerGroup", "DiffNoGroup", "topic", topic)
		}},
		{"topic-stats-unknown-topic", false, func() *protocol.Command {
			return req(protocol.CodeGetTopicStatsInfo, "topic", "DiffNoSuchTopic")
		}},
		// Numbers Java's FastCodesHeader decode (send V2, pull) or its store refuses.
		{"send-queueId-abc", false, func() *protocol.Command {
			c := sendV2(topic, 0, 0, 0, okProps, []byte("n"))
			c.Ext.Set("e", "abc")
			return c
		}},
		{"send-queueId-empty", false, func() *protocol.Command {
			c := sendV2(topic, 0, 0, 0, okProps, []byte("n"))
			c.Ext.Set("e", "")
			return c
		}},
		{"send-queueId-overflow", false, func() *protocol.Command {
			c := sendV2(topic, 0, 0, 0, okProps, []byte("n"))
			c.Ext.Set("e", "99999999999")
			return c
		}},
		{"pull-queueId-abc", false, func() *protocol.Command { c := pull("DiffG", topic, 0, 0); c.Ext.Set("queueId", "abc"); return c }},
		{"pull-queueOffset-abc", false, func() *protocol.Command { c := pull("DiffG", topic, 0, 0); c.Ext.Set("queueOffset", "abc"); return c }},
		{"send-delay-abc", false, func() *protocol.Command { return sendV2(topic, 1, 0, 0, props("DELAY", "abc"), []byte("d")) }},
		{"send-delay-overflow", false, func() *protocol.Command { return sendV2(topic, 1, 0, 0, props("DELAY", "2147483648"), []byte("d")) }},
		{"end-transaction-bad-commitOrRollback", false, func() *protocol.Command {
			return req(protocol.CodeEndTransaction, "producerGroup", "DiffPG", "tranStateTableOffset", "0", "commitLogOffset", "-1",
				"commitOrRollback", "99", "msgId", "x")
		}},
	}
	// movedEvents is the number of records in OFFSET_MOVED_EVENT queue 0.
	movedEvents := func(s *side) int {
		r := s.call(t, s.broker, req(protocol.CodeGetMaxOffset, "topic", "OFFSET_MOVED_EVENT", "queueId", "0"))
		n, _ := strconv.Atoi(r.Ext.Value("offset"))
		return n
	}
	for _, c := range cases {
		var resp [2]*protocol.Command
		var movedBefore [2]int
		if c.name == "pull-offset-past-end" {
			movedBefore = [2]int{movedEvents(e.java), movedEvents(e.sky)}
		}
		for i, s := range []*side{e.java, e.sky} {
			addr := s.broker
			if c.ns {
				addr = s.ns
			}
			resp[i] = s.callOrSilence(t, addr, c.req(), 3*time.Second)
		}
		if resp[0] == nil || resp[1] == nil {
			d.add("errors/"+c.name+".answered", resp[0] != nil, resp[1] != nil)
			continue
		}
		// Java's exception remarks (RemotingHelper#exceptionSimpleDesc) end with the first
		// stack frame, which depends on the JVM; Skyrocket's stop before it.
		resp[0].Remark = stackFrame.ReplaceAllString(resp[0].Remark, "")
		d.response("errors/"+c.name, e.java, resp[0], e.sky, resp[1])
		if c.name == "pull-offset-past-end" {
			// Java records the correction in OFFSET_MOVED_EVENT (PullMessageProcessor#generateOffsetMovedEvent),
			// a put dispatched after the answer: wait up to 5 s for this pull's record (a side
			// that records none shows 0 in the report).
			var n [2]int
			for i, s := range []*side{e.java, e.sky} {
				deadline := time.Now().Add(5 * time.Second)
				for n[i] = movedEvents(s) - movedBefore[i]; n[i] == 0 && time.Now().Before(deadline); n[i] = movedEvents(s) - movedBefore[i] {
					time.Sleep(20 * time.Millisecond)
				}
			}
			d.add("errors/offset-moved-event.records", n[0], n[1])
			t.Logf("OFFSET_MOVED_EVENT records of this pull: java %d / skyrocket %d", n[0], n[1])
		}
		t.Logf("%s: java %d %q / skyrocket %d %q", c.name, resp[0].Code, firstLine(resp[0].Remark), resp[1].Code, firstLine(resp[1].Remark))
	}
}

// stackFrame is the ", pkg.Class.method(File.java:NN)" a Java exception remark ends with.
var stackFrame = regexp.MustCompile(`, [\w./$<>]+\([\w.]+:\d+\)$`)

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "…"
	}
	return s
}

func diffRoutes(t *testing.T, e *diffEnv) {
	d := newDiffer(t)
	e.both(func(s *side) { s.createTopic(t, "DiffRouteT", 4) })
	for _, topic := range []string{"DiffRouteT", "TBW102"} {
		for _, version := range []int32{protocol.CurrentVersion, 317} {
			var raw [2]string
			var trees [2]any
			for i, s := range []*side{e.java, e.sky} {
				r := req(protocol.CodeGetRouteinfoByTopic, "topic", topic)
				r.Version = version
				resp := s.call(t, s.ns, r)
				if resp.Code != 0 {
					t.Fatalf("%s: route of %s: %d %s", s.name, topic, resp.Code, resp.Remark)
				}
				raw[i] = s.norm(string(resp.Body))
				trees[i] = decodeBody(t, s, resp.Body)
			}
			path := "routes/" + topic + "@v" + strconv.Itoa(int(version))
			d.tree(path, trees[0], trees[1])
			// the bytes too: Go's client parses routes by hand (any whitespace or key change breaks it)
			d.add(path+".bytes", raw[0], raw[1])
		}
	}
}

// diffOffsets sends 10 messages to chosen queues, commits offsets by hand, then lets an
// unmodified Go push consumer consume everything, and compares every offset answer.
func diffOffsets(t *testing.T, e *diffEnv) {
	d := newDiffer(t)
	const topic = "DiffOffT"
	queues := []int{0, 0, 0, 1, 1, 2, 2, 2, 2, 3}
	e.both(func(s *side) { s.createTopic(t, topic, 4) })
	var resp [2][]*protocol.Command
	for i, s := range []*side{e.java, e.sky} {
		for n, q := range queues {
			p := props("TAGS", "TagO", "KEYS", "ko"+strconv.Itoa(n), "UNIQ_KEY", "0000000000000000000000000000A0"+strconv.Itoa(10+n), "WAIT", "true")
			resp[i] = append(resp[i], s.call(t, s.broker, sendV2(topic, q, 0, 0, p, []byte("off-"+strconv.Itoa(n)))))
		}
	}
	for n := range queues {
		d.response("offsets/send["+strconv.Itoa(n)+"]", e.java, resp[0][n], e.sky, resp[1][n])
	}
	compareCalls := func(path string, addrNS bool, mk func() *protocol.Command) {
		var r [2]*protocol.Command
		for i, s := range []*side{e.java, e.sky} {
			addr := s.broker
			if addrNS {
				addr = s.ns
			}
			r[i] = s.call(t, addr, mk())
		}
		d.response(path, e.java, r[0], e.sky, r[1])
	}
	for q, off := range map[int]string{0: "2", 2: "4", 3: "0"} {
		compareCalls("offsets/commit-q"+strconv.Itoa(q), false, func() *protocol.Command {
			return req(protocol.CodeUpdateConsumerOffset, "consumerGroup", "DiffOffG", "topic", topic, "queueId", strconv.Itoa(q), "commitOffset", off)
		})
	}
	for q := 0; q < 4; q++ {
		qs := strconv.Itoa(q)
		compareCalls("offsets/query-q"+qs, false, func() *protocol.Command {
			return req(protocol.CodeQueryConsumerOffset, "consumerGroup", "DiffOffG", "topic", topic, "queueId", qs)
		})
		compareCalls("offsets/max-q"+qs, false, func() *protocol.Command { return req(protocol.CodeGetMaxOffset, "topic", topic, "queueId", qs) })
		compareCalls("offsets/min-q"+qs, false, func() *protocol.Command { return req(protocol.CodeGetMinOffset, "topic", topic, "queueId", qs) })
		compareCalls("offsets/earliest-q"+qs, false, func() *protocol.Command {
			return req(protocol.CodeGetEarliestMsgStoretime, "topic", topic, "queueId", qs)
		})
		for _, ts := range []string{"0", "4102444800000"} {
			compareCalls("offsets/search-q"+qs+"@"+ts, false, func() *protocol.Command {
				return req(protocol.CodeSearchOffsetByTimestamp, "topic", topic, "queueId", qs, "timestamp", ts)
			})
		}
	}
	// An unmodified Go push consumer consumes all 10; its committed offsets must reach the ends.
	for _, s := range []*side{e.java, e.sky} {
		got := newReceived()
		stop := startPushConsumer(t, s.ns, "DiffOffGoG", topic, all, collect(got))
		eventually(t, 30*time.Second, s.name+": Go consumer receives 10", func() bool { n, _ := got.count(); return n == 10 })
		stop() // the Go client persists its offsets on shutdown
	}
	for q := 0; q < 4; q++ {
		qs := strconv.Itoa(q)
		for _, s := range []*side{e.java, e.sky} {
			eventually(t, 15*time.Second, s.name+" commits the end of queue "+qs, func() bool {
				r := s.call(t, s.broker, req(protocol.CodeQueryConsumerOffset, "consumerGroup", "DiffOffGoG", "topic", topic, "queueId", qs))
				m := s.call(t, s.broker, req(protocol.CodeGetMaxOffset, "topic", topic, "queueId", qs))
				return r.Code == 0 && r.Ext.Value("offset") == m.Ext.Value("offset")
			})
		}
		compareCalls("offsets/go-consumer-q"+qs, false, func() *protocol.Command {
			return req(protocol.CodeQueryConsumerOffset, "consumerGroup", "DiffOffGoG", "topic", topic, "queueId", qs)
		})
	}
}

// diffMessageFields stores the same raw messages on both brokers (plain, tagged with keys,
// compressed, a batch, a delayed one), a send-back to %RETRY%, and compares every field of
// the records pulled back.
func diffMessageFields(t *testing.T, e *diffEnv) {
	d := newDiffer(t)
	const topic = "DiffMsgT"
	e.both(func(s *side) { s.createTopic(t, topic, 1) })
	text := bytes.Repeat([]byte("compressible "), 1000)
	var batch []byte
	for i := 0; i < 2; i++ {
		batch = message.AppendBatchElement(batch, int32(i), []byte("batch-"+strconv.Itoa(i)),
			[]byte(props("TAGS", "TagB", "KEYS", "kb"+strconv.Itoa(i), "UNIQ_KEY", "0000000000000000000000000000B00"+strconv.Itoa(i), "u", "x")))
	}
	sends := []struct {
		name string
		mk   func() *protocol.Command
	}{
		{"plain", func() *protocol.Command { return sendV2(topic, 0, 0, 0, "", []byte("plain")) }},
		{"tagged", func() *protocol.Command {
			return sendV2(topic, 0, 0, 7, props("TAGS", "TagA", "KEYS", "k1 k2", "UNIQ_KEY", "0000000000000000000000000000C001",
				"WAIT", "true", "custom", "v1", "empty", ""), []byte("tagged"))
		}},
		{"compressed", func() *protocol.Command {
			return sendV2(topic, 0, 1, 0, props("TAGS", "TagZ", "UNIQ_KEY", "0000000000000000000000000000C002"), zlibBytes(t, text))
		}},
		{"batch", func() *protocol.Command {
			c := req(protocol.CodeSendBatchMessage, "a", "DiffPG", "b", topic, "c", "TBW102", "d", "4", "e", "0", "f", "0",
				"g", fixedBorn, "h", "0", "i", "", "j", "0", "k", "false", "m", "true")
			c.Body = batch
			return c
		}},
		{"delayed", func() *protocol.Command {
			return sendV2(topic, 0, 0, 0, props("TAGS", "TagD", "DELAY", "1", "UNIQ_KEY", "0000000000000000000000000000C003"), []byte("delayed"))
		}},
	}
	for _, sd := range sends {
		var r [2]*protocol.Command
		for i, s := range []*side{e.java, e.sky} {
			r[i] = s.call(t, s.broker, sd.mk())
		}
		d.response("fields/send-"+sd.name, e.java, r[0], e.sky, r[1])
	}
	// plain, tagged, compressed, 2 batch elements, then the delayed one after 1 s
	var recs [2][]map[string]any
	for i, s := range []*side{e.java, e.sky} {
		recs[i], _ = s.pullRecords(t, "DiffFieldsG", topic, 0, 0, 6)
	}
	for n := 0; n < 6; n++ {
		d.tree("fields/record["+strconv.Itoa(n)+"]", recs[0][n], recs[1][n])
	}
	// send the tagged message back: it goes to %RETRY%DiffFieldsG after delay level 1 (1 s)
	var back [2]*protocol.Command
	for i, s := range []*side{e.java, e.sky} {
		off := recs[i][1]["physicalOffset"].(int64)
		back[i] = s.call(t, s.broker, req(protocol.CodeConsumerSendMsgBack, "offset", strconv.FormatInt(off, 10),
			"group", "DiffFieldsG", "delayLevel", "1", "originMsgId", "0000000000000000000000000000C001", "originTopic", topic,
			"unitMode", "false", "maxReconsumeTimes", "16"))
	}
	d.response("fields/send-back", e.java, back[0], e.sky, back[1])
	var retry [2][]map[string]any
	for i, s := range []*side{e.java, e.sky} {
		retry[i], _ = s.pullRecords(t, "DiffFieldsG", "%RETRY%DiffFieldsG", 0, 0, 1)
	}
	d.tree("fields/retry", retry[0][0], retry[1][0])
}

// diffAdmin compares the admin answers mqadmin and the dashboard read, with an unmodified Go
// push consumer attached to each broker.
func diffAdmin(t *testing.T, e *diffEnv) {
	d := newDiffer(t)
	const topic, group = "DiffAdminT", "DiffAdminG"
	e.both(func(s *side) {
		s.createTopic(t, topic, 2)
		for n := 0; n < 4; n++ {
			p := props("TAGS", "TagAd", "UNIQ_KEY", "0000000000000000000000000000D00"+strconv.Itoa(n), "WAIT", "true")
			if r := s.call(t, s.broker, sendV2(topic, n%2, 0, 0, p, []byte("admin-"+strconv.Itoa(n)))); r.Code != 0 {
				t.Fatalf("%s: send: %d %s", s.name, r.Code, r.Remark)
			}
		}
		got := newReceived()
		startPushConsumer(t, s.ns, group, topic, all, collect(got), consumer.WithInstance("DiffAdmin_"+s.name))
		eventually(t, 30*time.Second, s.name+": 4 consumed", func() bool { n, _ := got.count(); return n == 4 })
		for q := 0; q < 2; q++ {
			qs := strconv.Itoa(q)
			eventually(t, 20*time.Second, s.name+": offset of queue "+qs+" committed", func() bool {
				r := s.call(t, s.broker, req(protocol.CodeQueryConsumerOffset, "consumerGroup", group, "topic", topic, "queueId", qs))
				return r.Code == 0 && r.Ext.Value("offset") == "2"
			})
		}
	})
	bodies := []struct {
		name string
		ns   bool
		mk   func() *protocol.Command
	}{
		{"topicStats", false, func() *protocol.Command { return req(protocol.CodeGetTopicStatsInfo, "topic", topic) }},
		{"consumeStats", false, func() *protocol.Command {
			return req(protocol.CodeGetConsumeStats, "consumerGroup", group, "topic", topic)
		}},
		{"consumerConnection", false, func() *protocol.Command {
			return req(protocol.CodeGetConsumerConnectionList, "consumerGroup", group)
		}},
		{"clusterInfo", true, func() *protocol.Command { return req(protocol.CodeGetBrokerClusterInfo) }},
		{"topicList", true, func() *protocol.Command { return req(protocol.CodeGetAllTopicListFromNameserver) }},
	}
	for _, b := range bodies {
		var r [2]*protocol.Command
		var trees [2]any
		for i, s := range []*side{e.java, e.sky} {
			addr := s.broker
			if b.ns {
				addr = s.ns
			}
			r[i] = s.call(t, addr, b.mk())
			trees[i] = decodeBody(t, s, r[i].Body)
		}
		path := "admin/" + b.name
		d.response(path, e.java, r[0], e.sky, r[1])
		if b.name == "topicList" {
			// a set: compare membership, not HashSet order
			for i := range trees {
				trees[i] = topicSet(trees[i])
			}
		}
		d.tree(path, trees[0], trees[1])
	}
}

// topicSet turns TopicList {"topicList":[...]} into {"topic": true} for order-free comparison.
func topicSet(v any) any {
	m, _ := v.(map[string]any)
	l, _ := m["topicList"].([]any)
	out := map[string]any{}
	for _, x := range l {
		if s, ok := x.(string); ok {
			out[s] = true
		}
	}
	return map[string]any{"topicList": out}
}
