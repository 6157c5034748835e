package transaction

import (
	"errors"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/store"
)

// The service is tested here over a real store and fakes of what the broker gives it;
// the handlers around it (END_TRANSACTION, the send path, RESUME_CHECK_HALF_MESSAGE) are
// tested end to end in package broker (transaction_test.go).

var testHost = netip.MustParseAddrPort("127.0.0.1:10911")

type fakeTopics struct {
	mu        sync.Mutex
	table     map[string]protocol.TopicConfig
	announced []string
}

func (f *fakeTopics) Get(topic string) (protocol.TopicConfig, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tc, ok := f.table[topic]
	return tc, ok
}

func (f *fakeTopics) CreateIfAbsent(topic string, queueNums, perm, sysFlag int32) (protocol.TopicConfig, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if tc, ok := f.table[topic]; ok {
		return tc, false
	}
	tc := protocol.TopicConfig{TopicName: topic, ReadQueueNums: queueNums, WriteQueueNums: queueNums, Perm: perm, TopicSysFlag: sysFlag}
	f.table[topic] = tc
	return tc, true
}

type fakeOffsets struct {
	mu    sync.Mutex
	table map[string]int64
}

func (f *fakeOffsets) key(group, topic string, q int32) string {
	return group + "@" + topic + "@" + strconv.Itoa(int(q))
}

func (f *fakeOffsets) Query(group, topic string, q int32) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off, ok := f.table[f.key(group, topic, q)]; ok {
		return off
	}
	return -1
}

func (f *fakeOffsets) Commit(group, topic string, q int32, off int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.table[f.key(group, topic, q)] = off
}

type fakeConn struct {
	mu   sync.Mutex
	sent []*protocol.Command
}

func (c *fakeConn) InvokeOneway(req *protocol.Command) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, req)
	return nil
}

func (c *fakeConn) RemoteAddr() string { return "127.0.0.1:50000" }

type env struct {
	t       *testing.T
	st      *store.Store
	topics  *fakeTopics
	offsets *fakeOffsets
	conn    *fakeConn // the only producer of group "PG"
	s       *Service
}

func newEnv(t *testing.T) *env {
	t.Helper()
	sc := store.DefaultConfig(t.TempDir())
	sc.MappedFileSizeCommitLog = 4 << 20
	sc.MappedFileSizeConsumeQueue = 3000 * 20
	sc.MaxHashSlotNum = 100
	sc.MaxIndexNum = 400
	st, err := store.Open(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e := &env{t: t, st: st, topics: &fakeTopics{table: map[string]protocol.TopicConfig{}},
		offsets: &fakeOffsets{table: map[string]int64{}}, conn: &fakeConn{}}
	e.s = New(Config{
		Store:   st,
		Topics:  e.topics,
		Offsets: e.offsets,
		Producer: func(group string) Conn {
			if group == "PG" {
				return e.conn
			}
			return nil
		},
		Announce:   func(tc protocol.TopicConfig) { e.topics.announced = append(e.topics.announced, tc.TopicName) },
		ApplyDelay: func(*message.Message, *message.Properties) {},
		StoreHost:  testHost,
		TimeOut:    time.Second,
	})
	return e
}

// putHalf stores a half message as the broker's send path does (REAL_TOPIC/REAL_QID, the
// transaction bits reset) and waits until it is dispatched and older than now.
func (e *env) putHalf(group, topic string, queueID int32, body string) store.PutResult {
	e.t.Helper()
	var p message.Properties
	p.Set(message.PropertyUniqClientMessageIDKeyIdx, "C0A8000100002A9F0000000000000001")
	p.Set(message.PropertyTransactionPrepared, "true")
	p.Set(message.PropertyProducerGroup, group)
	p.Set(message.PropertyRealTopic, topic)
	p.Set(message.PropertyRealQueueID, strconv.Itoa(int(queueID)))
	m := message.Message{Topic: HalfTopic, Flag: 7, Body: []byte(body), SysFlag: message.TransactionNotType,
		BornTimestamp: time.Now().Add(-time.Minute).UnixMilli(), BornHost: testHost, StoreHost: testHost, Properties: p.AppendTo(nil)}
	res, err := e.st.PutMessage(&m)
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitQueue(HalfTopic, res.QueueOffset+1)
	for time.Now().UnixMilli() <= res.StoreTimestamp {
		time.Sleep(time.Millisecond)
	}
	return res
}

func (e *env) waitQueue(topic string, n int64) {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for e.st.MaxOffsetInQueue(topic, 0) < n {
		if time.Now().After(deadline) {
			e.t.Fatalf("%s has %d messages, want %d", topic, e.st.MaxOffsetInQueue(topic, 0), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestService_Check_RePutsAndAsksTheProducer(t *testing.T) {
	e := newEnv(t)
	half := e.putHalf("PG", "TopicTx", 2, "unknown")
	e.s.Check()
	if len(e.topics.announced) != 1 || e.topics.announced[0] != HalfTopic {
		t.Fatalf("announced %v, want the half topic created by the first round", e.topics.announced)
	}
	if len(e.conn.sent) != 1 {
		t.Fatalf("%d checks sent, want 1", len(e.conn.sent))
	}
	req := e.conn.sent[0]
	var h protocol.CheckTransactionStateRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		t.Fatal(err)
	}
	if req.RequestCode() != protocol.CodeCheckTransactionState || h.TranStateTableOffset != 1 || h.CommitLogOffset <= half.WroteOffset {
		t.Fatalf("check %v header %+v: want the re-put copy at queue offset 1", req.RequestCode(), h)
	}
	copyMsg, err := e.s.LookHalf(h.CommitLogOffset)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := copyMsg.Props.Get(message.PropertyTransactionCheckTimes); v != "1" || copyMsg.Record.Flag != 0 {
		t.Fatalf("copy: check times %q flag %d", v, copyMsg.Record.Flag)
	}
	if off := e.offsets.Query(CheckGroup, HalfTopic, 0); off != 1 {
		t.Fatalf("half progress %d, want 1", off)
	}

	// The producer commits the copy: the op message makes the next round pass it.
	if !e.s.PutOpMessage(copyMsg) {
		t.Fatal("op message not stored")
	}
	e.waitQueue(HalfTopic, 2)
	e.waitQueue(OpHalfTopic, 1)
	e.s.Check()
	if len(e.conn.sent) != 1 {
		t.Fatalf("a resolved transaction was checked again: %d checks", len(e.conn.sent))
	}
	if half, op := e.offsets.Query(CheckGroup, HalfTopic, 0), e.offsets.Query(CheckGroup, OpHalfTopic, 0); half != 2 || op != 1 {
		t.Fatalf("progress half %d op %d, want 2 and 1", half, op)
	}
}

func TestService_Check_StopsAtStop(t *testing.T) {
	e := newEnv(t)
	e.putHalf("PG", "TopicTx", 0, "x")
	stop := make(chan struct{})
	close(stop)
	cfg := e.s.cfg
	cfg.Stop = stop
	New(cfg).Check()
	if len(e.conn.sent) != 0 || e.offsets.Query(CheckGroup, HalfTopic, 0) != -1 {
		t.Fatalf("a stopped round checked %d messages", len(e.conn.sent))
	}
}

func TestService_CommitMessage_KeepsHalfProperties(t *testing.T) {
	e := newEnv(t)
	res := e.putHalf("PG", "TopicTx", 3, "body")
	half, err := e.s.LookHalf(res.WroteOffset)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.s.CommitMessage(half, res.WroteOffset)
	if err != nil {
		t.Fatal(err)
	}
	// Java keeps the half message's properties string, REAL_* and TRAN_MSG included.
	if m.Topic != "TopicTx" || m.QueueID != 3 || string(m.Properties) != string(half.Record.Properties) ||
		message.TransactionType(m.SysFlag) != message.TransactionCommit || m.PreparedTransactionOffset != res.WroteOffset {
		t.Fatalf("committed %s/%d sysFlag %#x prepared %d props %q", m.Topic, m.QueueID, m.SysFlag, m.PreparedTransactionOffset, m.Properties)
	}
	half.Props.Delete(message.PropertyRealQueueID)
	if _, err := e.s.CommitMessage(half, res.WroteOffset); !errors.Is(err, ErrNoRealTopic) {
		t.Fatalf("without REAL_QID: %v, want ErrNoRealTopic", err)
	}
}

func TestService_LookHalf_RefusesOtherTopics(t *testing.T) {
	e := newEnv(t)
	res, err := e.st.PutMessage(&message.Message{Topic: "Plain", Body: []byte("p"), BornHost: testHost, StoreHost: testHost,
		Properties: []byte("PGROUP\x01PG")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.LookHalf(res.WroteOffset); !errors.Is(err, ErrNotHalfMessage) {
		t.Fatalf("LookHalf of a plain message: %v, want ErrNotHalfMessage", err)
	}
}

func TestNextOpOffset_StopsAtGap(t *testing.T) {
	cases := []struct {
		done []int64
		old  int64
		want int64
	}{
		{nil, 5, 5},
		{[]int64{7, 5, 6}, 5, 8},
		{[]int64{5, 7}, 5, 6},
		{[]int64{6}, 5, 5},
		{[]int64{5, 5, 6}, 5, 6}, // Java's loop stops at the repeat
	}
	for _, c := range cases {
		if got := nextOpOffset(c.done, c.old); got != c.want {
			t.Errorf("nextOpOffset(%v, %d) = %d, want %d", c.done, c.old, got, c.want)
		}
	}
}

func TestImmunityTime_Units(t *testing.T) {
	if got := immunityTime("5", 6000); got != 5000 {
		t.Fatalf("5 s = %d ms", got)
	}
	if got := immunityTime("-1", 6000); got != 6000 {
		t.Fatalf("-1 = %d, want the timeout", got)
	}
	if got := immunityTime("junk", 6000); got != 6000 {
		t.Fatalf("junk = %d, want the timeout", got)
	}
}
