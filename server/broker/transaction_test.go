package broker

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/broker/schedule"
	"github.com/skyrocket-mq/skyrocket/server/broker/transaction"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// txEnv is a broker on a loopback port with a raw client that plays a transaction
// producer: it sends frames by hand and records the CHECK_TRANSACTION_STATE requests the
// broker sends it.
type txEnv struct {
	t      *testing.T
	opts   Options
	b      *Broker
	cl     *remoting.Client
	mu     sync.Mutex
	checks []*protocol.Command
}

func newTxEnv(t *testing.T, mutate func(*Options)) *txEnv {
	t.Helper()
	port := testkit.FreePort(t)
	e := &txEnv{t: t, opts: DefaultOptions(t.TempDir())}
	e.opts.ListenAddr = "127.0.0.1:" + strconv.Itoa(port)
	e.opts.EnableVIP = false
	e.opts.HA.ListenAddr = "127.0.0.1:0"
	e.opts.BrokerName = "broker-tx"
	e.opts.Store.MappedFileSizeCommitLog = 4 << 20
	e.opts.Store.MappedFileSizeConsumeQueue = 3000 * 20
	e.opts.Store.MaxHashSlotNum = 100
	e.opts.Store.MaxIndexNum = 400
	// Rounds run when a test calls tx.Check, never on their own.
	e.opts.TransactionCheckInterval = time.Hour
	e.opts.TransactionTimeOut = time.Second
	if mutate != nil {
		mutate(&e.opts)
	}
	e.start()
	e.cl = remoting.NewClient(remoting.ClientOptions{OnRequest: func(_ *remoting.ClientConn, req *protocol.Command) *protocol.Command {
		if req.RequestCode() == protocol.CodeCheckTransactionState {
			e.mu.Lock()
			e.checks = append(e.checks, req)
			e.mu.Unlock()
		}
		return nil
	}})
	t.Cleanup(func() {
		e.cl.Close()
		e.stop()
	})
	return e
}

func (e *txEnv) start() {
	e.t.Helper()
	b, err := New(e.opts)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.b = b
}

func (e *txEnv) stop() {
	if e.b == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.b.Shutdown(ctx); err != nil {
		e.t.Errorf("shutdown: %v", err)
	}
	e.b = nil
}

// restart stops the broker cleanly and opens the same store again; the client's
// connection is gone with the old broker.
func (e *txEnv) restart() {
	e.stop()
	e.cl.CloseConn(e.opts.ListenAddr)
	e.start()
}

func (e *txEnv) invoke(req *protocol.Command) *protocol.Command {
	e.t.Helper()
	resp, err := e.cl.Invoke(context.Background(), e.opts.ListenAddr, req, 3*time.Second)
	if err != nil {
		e.t.Fatalf("invoke %v: %v", req.RequestCode(), err)
	}
	return resp
}

// heartbeat registers the client as a producer of group.
func (e *txEnv) heartbeat(group string) {
	e.t.Helper()
	req := protocol.NewRequest(protocol.CodeHeartBeat)
	body, err := protocol.MarshalBody(protocol.HeartbeatData{ClientID: "127.0.0.1@tx", ProducerDataSet: []protocol.ProducerData{{GroupName: group}}})
	if err != nil {
		e.t.Fatal(err)
	}
	req.Body = body
	if resp := e.invoke(req); resp.Code != int32(protocol.ResSuccess) {
		e.t.Fatalf("heartbeat: %d %s", resp.Code, resp.Remark)
	}
}

// barrier returns once every frame the broker queued for this connection before it was
// called has been handled: the CHECK_TRANSACTION_STATE requests a round sent are
// asynchronous writes, and so is the answer to a request served on a pool (here
// GET_ALL_TOPIC_CONFIG), behind them in the event loop's FIFO task queue. (An inline
// answer is written directly and may overtake them.)
func (e *txEnv) barrier() {
	e.t.Helper()
	if resp := e.invoke(protocol.NewRequest(protocol.CodeGetAllTopicConfig)); resp.Code != int32(protocol.ResSuccess) {
		e.t.Fatalf("barrier: %d %s", resp.Code, resp.Remark)
	}
}

type halfSent struct {
	msgID       string
	phyOffset   int64
	queueOffset int64
	queueID     int32
	uniq        string
}

// sendHalf sends a transactional message as the Go client does (TRAN_MSG, PGROUP,
// sysFlag PREPARED) with extra properties.
func (e *txEnv) sendHalf(group, topic string, queueID int32, body string, born time.Time, extra ...string) halfSent {
	e.t.Helper()
	uniq := "C0A8000100002A9F0000" + strconv.FormatInt(born.UnixNano()%1e12, 16)
	props := message.Properties{}
	props.Set(message.PropertyTags, "TagA")
	props.Set(message.PropertyUniqClientMessageIDKeyIdx, uniq)
	props.Set(message.PropertyTransactionPrepared, "true")
	props.Set(message.PropertyProducerGroup, group)
	for i := 0; i+1 < len(extra); i += 2 {
		props.Set(extra[i], extra[i+1])
	}
	h := protocol.SendMessageRequestHeader{ProducerGroup: group, Topic: topic, DefaultTopic: meta.TopicAutoCreate, DefaultTopicQueueNums: 4,
		QueueID: queueID, SysFlag: message.TransactionPrepared, BornTimestamp: born.UnixMilli(), Flag: 7, Properties: props.String()}
	req := protocol.NewRequest(protocol.CodeSendMessage)
	h.Encode(&req.Ext)
	req.Body = []byte(body)
	resp := e.invoke(req)
	if resp.Code != int32(protocol.ResSuccess) {
		e.t.Fatalf("send half: %d %s", resp.Code, resp.Remark)
	}
	var rh protocol.SendMessageResponseHeader
	if err := rh.Decode(resp.Ext); err != nil {
		e.t.Fatal(err)
	}
	_, off, err := message.DecodeOffsetMsgID(rh.MsgID)
	if err != nil {
		e.t.Fatalf("send half: msgId %q: %v", rh.MsgID, err)
	}
	return halfSent{msgID: rh.MsgID, phyOffset: off, queueOffset: rh.QueueOffset, queueID: rh.QueueID, uniq: uniq}
}

func (e *txEnv) endTx(h protocol.EndTransactionRequestHeader) *protocol.Command {
	e.t.Helper()
	req := protocol.NewRequest(protocol.CodeEndTransaction)
	h.Encode(&req.Ext)
	return e.invoke(req)
}

func txEndHeader(group string, s halfSent, commitOrRollback int32) protocol.EndTransactionRequestHeader {
	return protocol.EndTransactionRequestHeader{ProducerGroup: group, TranStateTableOffset: s.queueOffset,
		CommitLogOffset: s.phyOffset, CommitOrRollback: commitOrRollback, MsgID: s.uniq, TransactionID: s.uniq}
}

// waitQueue waits until a queue holds n messages in its ConsumeQueue.
func (e *txEnv) waitQueue(topic string, queueID int32, n int64) {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for e.b.Store().MaxOffsetInQueue(topic, queueID) < n {
		if time.Now().After(deadline) {
			e.t.Fatalf("%s/%d has %d messages, want %d", topic, queueID, e.b.Store().MaxOffsetInQueue(topic, queueID), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitPastStore waits until the clock is past the newest store timestamp, so a round
// started now treats every stored half message as older than the round.
func (e *txEnv) waitPastStore() {
	e.t.Helper()
	now := time.Now().UnixMilli()
	deadline := time.Now().Add(time.Second)
	for time.Now().UnixMilli() <= now {
		if time.Now().After(deadline) {
			e.t.Fatal("clock does not advance")
		}
		time.Sleep(time.Millisecond)
	}
}

// read returns the messages of a queue from offset 0.
func (e *txEnv) read(topic string, queueID int32) []*transaction.Message {
	e.t.Helper()
	r := e.b.Store().GetMessage("test", topic, queueID, 0, 100, nil)
	if r == nil {
		e.t.Fatal("store closed")
	}
	defer r.Release()
	var out []*transaction.Message
	for _, buf := range r.Buffers {
		m, err := transaction.Decode(buf)
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func (e *txEnv) checkCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.checks)
}

func (e *txEnv) lastCheck() *protocol.Command {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.checks) == 0 {
		e.t.Fatal("no CHECK_TRANSACTION_STATE received")
	}
	return e.checks[len(e.checks)-1]
}

func txProp(t *testing.T, m *transaction.Message, key string) string {
	t.Helper()
	v, _ := m.Props.Get(key)
	return v
}

func TestBroker_PrepareHalfMessage_StoredInHalfTopic(t *testing.T) {
	e := newTxEnv(t, nil)
	s := e.sendHalf("PG", "TopicTx", 2, "hello", time.Now())
	if s.queueID != 2 || s.queueOffset != 0 || len(s.msgID) != 32 {
		t.Fatalf("send answer: %+v", s)
	}
	half, err := e.b.tx.LookHalf(s.phyOffset)
	if err != nil {
		t.Fatal(err)
	}
	r := half.Record
	if string(r.Topic) != meta.TopicTransHalf || r.QueueID != 0 || r.QueueOffset != 0 || r.PhysicalOffset != s.phyOffset {
		t.Fatalf("half record: topic %s queue %d queueOffset %d phy %d", r.Topic, r.QueueID, r.QueueOffset, r.PhysicalOffset)
	}
	if message.TransactionType(r.SysFlag) != message.TransactionNotType || r.Flag != 7 || string(r.Body) != "hello" {
		t.Fatalf("half record: sysFlag %#x flag %d body %q", r.SysFlag, r.Flag, r.Body)
	}
	for k, want := range map[string]string{message.PropertyRealTopic: "TopicTx", message.PropertyRealQueueID: "2",
		message.PropertyTransactionPrepared: "true", message.PropertyProducerGroup: "PG", message.PropertyCluster: "DefaultCluster"} {
		if got := txProp(t, half, k); got != want {
			t.Fatalf("half property %s = %q, want %q", k, got, want)
		}
	}
	e.waitQueue(meta.TopicTransHalf, 0, 1)
	if n := e.b.Store().MaxOffsetInQueue("TopicTx", 2); n != 0 {
		t.Fatalf("real topic has %d messages before commit", n)
	}
}

func TestBroker_PrepareHalfMessage_RejectTransactionMessage(t *testing.T) {
	e := newTxEnv(t, func(o *Options) { o.RejectTransactionMessage = true })
	req := protocol.NewRequest(protocol.CodeSendMessage)
	h := protocol.SendMessageRequestHeader{ProducerGroup: "PG", Topic: "TopicTx", DefaultTopic: meta.TopicAutoCreate, DefaultTopicQueueNums: 4,
		SysFlag: message.TransactionPrepared, BornTimestamp: time.Now().UnixMilli(), Properties: "TRAN_MSG\x01true\x02PGROUP\x01PG"}
	h.Encode(&req.Ext)
	req.Body = []byte("x")
	resp := e.invoke(req)
	if resp.Code != int32(protocol.ResNoPermission) || !strings.Contains(resp.Remark, "sending transaction message is forbidden") {
		t.Fatalf("answer %d %q", resp.Code, resp.Remark)
	}
}

func TestBroker_EndTransaction_Commit(t *testing.T) {
	e := newTxEnv(t, nil)
	s := e.sendHalf("PG", "TopicTx", 1, "commit-me", time.Now())
	resp := e.endTx(txEndHeader("PG", s, message.TransactionCommit))
	if resp.Code != int32(protocol.ResSuccess) || resp.HasRemark {
		t.Fatalf("commit answer: %d %q", resp.Code, resp.Remark)
	}
	e.waitQueue("TopicTx", 1, 1)
	got := e.read("TopicTx", 1)
	if len(got) != 1 {
		t.Fatalf("real topic has %d messages", len(got))
	}
	r := got[0].Record
	if string(r.Body) != "commit-me" || r.Flag != 7 || message.TransactionType(r.SysFlag) != message.TransactionCommit ||
		r.PreparedTransactionOffset != s.phyOffset || r.QueueOffset != 0 {
		t.Fatalf("committed record: body %q flag %d sysFlag %#x prepared %d queueOffset %d", r.Body, r.Flag, r.SysFlag, r.PreparedTransactionOffset, r.QueueOffset)
	}
	// Java's quirk: the committed string is the half message's, REAL_* and TRAN_MSG included.
	half, _ := e.b.tx.LookHalf(s.phyOffset)
	if string(r.Properties) != string(half.Record.Properties) {
		t.Fatalf("committed properties %q, half %q", r.Properties, half.Record.Properties)
	}
	if txProp(t, got[0], message.PropertyTransactionPrepared) != "true" || txProp(t, got[0], message.PropertyRealTopic) != "TopicTx" ||
		txProp(t, got[0], message.PropertyUniqClientMessageIDKeyIdx) != s.uniq {
		t.Fatalf("committed properties %q", r.Properties)
	}
	e.waitQueue(meta.TopicTransOpHalf, 0, 1)
	ops := e.read(meta.TopicTransOpHalf, 0)
	if len(ops) != 1 || string(ops[0].Record.Body) != "0" || string(ops[0].Record.Properties) != "WAIT\x01true\x02TAGS\x01d" ||
		ops[0].Record.BornHost != e.b.storeHost {
		t.Fatalf("op message: %d, body %q props %q", len(ops), ops[0].Record.Body, ops[0].Record.Properties)
	}
}

func TestBroker_EndTransaction_Rollback(t *testing.T) {
	e := newTxEnv(t, nil)
	e.sendHalf("PG", "TopicTx", 0, "first", time.Now())
	s := e.sendHalf("PG", "TopicTx", 0, "rollback-me", time.Now())
	if resp := e.endTx(txEndHeader("PG", s, message.TransactionRollback)); resp.Code != int32(protocol.ResSuccess) {
		t.Fatalf("rollback answer: %d %q", resp.Code, resp.Remark)
	}
	e.waitQueue(meta.TopicTransOpHalf, 0, 1)
	ops := e.read(meta.TopicTransOpHalf, 0)
	if len(ops) != 1 || string(ops[0].Record.Body) != "1" {
		t.Fatalf("op messages: %d", len(ops))
	}
	if n := e.b.Store().MaxOffsetInQueue("TopicTx", 0); n != 0 {
		t.Fatalf("rollback stored %d messages in the real topic", n)
	}
}

// A pending (unknown) state gets no answer (Java returns null); a value that is no state at
// all fails the header's checkFields in Java's decode: SYSTEM_ERROR.
func TestBroker_EndTransaction_UnknownIsNotAnswered(t *testing.T) {
	e := newTxEnv(t, nil)
	s := e.sendHalf("PG", "TopicTx", 0, "pending", time.Now())
	req := protocol.NewRequest(protocol.CodeEndTransaction)
	h := txEndHeader("PG", s, message.TransactionNotType)
	h.Encode(&req.Ext)
	if _, err := e.cl.Invoke(context.Background(), e.opts.ListenAddr, req, 300*time.Millisecond); !errors.Is(err, remoting.ErrTimeout) {
		t.Fatalf("commitOrRollback pending: want no answer, got %v", err)
	}
	for _, v := range []int32{3, 99} {
		req := protocol.NewRequest(protocol.CodeEndTransaction)
		h := txEndHeader("PG", s, v)
		h.Encode(&req.Ext)
		resp, err := e.cl.Invoke(context.Background(), e.opts.ListenAddr, req, 5*time.Second)
		if err != nil || resp.Code != int32(protocol.ResSystemError) {
			t.Fatalf("commitOrRollback %d: want SYSTEM_ERROR, got %v %v", v, resp, err)
		}
	}
	if n := e.b.Store().MaxPhyOffset(); n != s.phyOffset+int64(txRecordSize(t, e, s.phyOffset)) {
		t.Fatalf("an unknown state wrote something: max offset %d", n)
	}
}

func txRecordSize(t *testing.T, e *txEnv, off int64) int32 {
	t.Helper()
	m, err := e.b.tx.LookHalf(off)
	if err != nil {
		t.Fatal(err)
	}
	return m.Record.StoreSize
}

func TestBroker_EndTransaction_Mismatch(t *testing.T) {
	e := newTxEnv(t, nil)
	e.sendHalf("PG", "TopicTx", 0, "a", time.Now())
	s := e.sendHalf("PG", "TopicTx", 0, "b", time.Now())
	cases := []struct {
		name   string
		mutate func(*protocol.EndTransactionRequestHeader)
		code   protocol.ResponseCode
		remark string
	}{
		{"group", func(h *protocol.EndTransactionRequestHeader) { h.ProducerGroup = "other" }, protocol.ResSystemError, "The producer group wrong"},
		{"queue offset", func(h *protocol.EndTransactionRequestHeader) { h.TranStateTableOffset = 0 }, protocol.ResSystemError, "The transaction state table offset wrong"},
		{"no record", func(h *protocol.EndTransactionRequestHeader) { h.CommitLogOffset = s.phyOffset + 3 }, protocol.ResSystemError, "Find prepared transaction message failed"},
		{"past the end", func(h *protocol.EndTransactionRequestHeader) { h.CommitLogOffset = 1 << 40 }, protocol.ResSystemError, "Find prepared transaction message failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := txEndHeader("PG", s, message.TransactionCommit)
			c.mutate(&h)
			resp := e.endTx(h)
			if resp.Code != int32(c.code) || resp.Remark != c.remark {
				t.Fatalf("answer %d %q, want %d %q", resp.Code, resp.Remark, c.code, c.remark)
			}
		})
	}
	req := protocol.NewRequest(protocol.CodeEndTransaction)
	req.Ext.Set("producerGroup", "PG")
	if resp := e.invoke(req); resp.Code != int32(protocol.ResSystemError) || !strings.Contains(resp.Remark, "tranStateTableOffset") {
		t.Fatalf("missing fields: %d %q", resp.Code, resp.Remark)
	}
	if n := e.b.Store().MaxOffsetInQueue("TopicTx", 0); n != 0 {
		t.Fatalf("a refused END_TRANSACTION committed %d messages", n)
	}
	if n := e.b.Store().MaxOffsetInQueue(meta.TopicTransOpHalf, 0); n != 0 {
		t.Fatalf("a refused END_TRANSACTION wrote %d op messages", n)
	}
}

func TestBroker_EndTransaction_OnewayCommits(t *testing.T) {
	e := newTxEnv(t, nil)
	s := e.sendHalf("PG", "TopicTx", 3, "java-style", time.Now())
	req := protocol.NewRequest(protocol.CodeEndTransaction)
	h := txEndHeader("PG", s, message.TransactionCommit)
	h.Encode(&req.Ext)
	if err := e.cl.InvokeOneway(e.opts.ListenAddr, req); err != nil {
		t.Fatal(err)
	}
	e.waitQueue("TopicTx", 3, 1)
	e.waitQueue(meta.TopicTransOpHalf, 0, 1)
}

func TestBroker_EndTransaction_SlaveRefuses(t *testing.T) {
	e := newTxEnv(t, func(o *Options) { o.Role = RoleSlave })
	resp := e.endTx(protocol.EndTransactionRequestHeader{ProducerGroup: "PG", CommitOrRollback: message.TransactionCommit, MsgID: "x"})
	if resp.Code != int32(protocol.ResSlaveNotAvailable) || resp.HasRemark {
		t.Fatalf("slave answer %d %q", resp.Code, resp.Remark)
	}
}

func TestBroker_EndTransaction_CommitWithDelay(t *testing.T) {
	e := newTxEnv(t, nil)
	s := e.sendHalf("PG", "TopicTx", 1, "later", time.Now(), message.PropertyDelayTimeLevel, "2")
	half, _ := e.b.tx.LookHalf(s.phyOffset)
	if string(half.Record.Topic) != meta.TopicTransHalf {
		t.Fatalf("a delayed half message went to %s", half.Record.Topic)
	}
	if resp := e.endTx(txEndHeader("PG", s, message.TransactionCommit)); resp.Code != int32(protocol.ResSuccess) {
		t.Fatalf("commit answer: %d %q", resp.Code, resp.Remark)
	}
	e.waitQueue(meta.TopicSchedule, 1, 1)
	got := e.read(meta.TopicSchedule, 1)
	if len(got) != 1 || txProp(t, got[0], message.PropertyRealTopic) != "TopicTx" || txProp(t, got[0], message.PropertyRealQueueID) != "1" {
		t.Fatalf("delayed commit: %d records", len(got))
	}
	if _, ok := got[0].Props.Get(message.PropertyTransactionPrepared); ok {
		t.Fatalf("a delayed commit keeps TRAN_MSG (Java's store re-encodes the cleared map): %q", got[0].Record.Properties)
	}
	if message.TransactionType(got[0].Record.SysFlag) != message.TransactionCommit {
		t.Fatalf("sysFlag %#x", got[0].Record.SysFlag)
	}
}

func TestBroker_CheckTransactions_SendsCheckAndCommits(t *testing.T) {
	e := newTxEnv(t, nil)
	e.heartbeat("PG")
	s := e.sendHalf("PG", "TopicTx", 2, "unknown", time.Now().Add(-10*time.Second))
	e.waitQueue(meta.TopicTransHalf, 0, 1)
	e.waitPastStore()
	e.b.tx.Check()
	e.barrier()
	if n := e.checkCount(); n != 1 {
		t.Fatalf("%d checks, want 1", n)
	}
	req := e.lastCheck()
	if !req.IsOneway() {
		t.Fatal("CHECK_TRANSACTION_STATE is not oneway")
	}
	var h protocol.CheckTransactionStateRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		t.Fatal(err)
	}
	// The check names the re-put copy: queue offset 1, after the original.
	if h.TranStateTableOffset != 1 || h.CommitLogOffset <= s.phyOffset || h.MsgID != s.uniq || h.TransactionID != s.uniq ||
		h.OffsetMsgID != message.CreateOffsetMsgID(e.b.storeHost, h.CommitLogOffset) || h.Bname != "" {
		t.Fatalf("check header %+v (sent %+v)", h, s)
	}
	body, err := message.DecodeRecord(req.Body)
	if err != nil {
		t.Fatal(err)
	}
	if string(body.Topic) != "TopicTx" || body.QueueID != 2 || body.QueueOffset != 1 || body.PhysicalOffset != h.CommitLogOffset ||
		string(body.Body) != "unknown" || body.Flag != 7 || message.TransactionType(body.SysFlag) != 0 {
		t.Fatalf("check body: topic %s queue %d queueOffset %d phy %d body %q flag %d", body.Topic, body.QueueID, body.QueueOffset, body.PhysicalOffset, body.Body, body.Flag)
	}
	for k, want := range map[string]string{message.PropertyTransactionCheckTimes: "1", message.PropertyWaitStoreMsgOK: "false",
		message.PropertyProducerGroup: "PG", message.PropertyTransactionPrepared: "true"} {
		if v, _ := body.Property(k); string(v) != want {
			t.Fatalf("check body property %s = %q, want %q", k, v, want)
		}
	}
	copyMsg, err := e.b.tx.LookHalf(h.CommitLogOffset)
	if err != nil {
		t.Fatal(err)
	}
	if copyMsg.Record.Flag != 0 || txProp(t, copyMsg, message.PropertyTransactionCheckTimes) != "1" || strings.Contains(string(copyMsg.Record.Properties), "WAIT") {
		t.Fatalf("re-put copy: flag %d props %q", copyMsg.Record.Flag, copyMsg.Record.Properties)
	}
	if off := e.b.offsets.Query(TransCheckGroup, meta.TopicTransHalf, 0); off != 1 {
		t.Fatalf("half progress %d, want 1", off)
	}

	// The producer answers as the Go client does: offsets copied from the check header.
	resp := e.endTx(protocol.EndTransactionRequestHeader{ProducerGroup: "PG", TranStateTableOffset: h.TranStateTableOffset,
		CommitLogOffset: h.CommitLogOffset, CommitOrRollback: message.TransactionCommit, FromTransactionCheck: true, MsgID: s.uniq})
	if resp.Code != int32(protocol.ResSuccess) {
		t.Fatalf("commit answer: %d %q", resp.Code, resp.Remark)
	}
	e.waitQueue("TopicTx", 2, 1)
	e.waitQueue(meta.TopicTransOpHalf, 0, 1)
	committed := e.read("TopicTx", 2)[0]
	if committed.Record.Flag != 0 || committed.Record.PreparedTransactionOffset != h.CommitLogOffset {
		t.Fatalf("committed from the copy: flag %d prepared %d", committed.Record.Flag, committed.Record.PreparedTransactionOffset)
	}

	// The next round passes the committed copy and moves both offsets.
	e.b.tx.Check()
	e.barrier()
	if n := e.checkCount(); n != 1 {
		t.Fatalf("a committed transaction was checked again: %d checks", n)
	}
	if off := e.b.offsets.Query(TransCheckGroup, meta.TopicTransHalf, 0); off != 2 {
		t.Fatalf("half progress %d, want 2", off)
	}
	if off := e.b.offsets.Query(TransCheckGroup, meta.TopicTransOpHalf, 0); off != 1 {
		t.Fatalf("op progress %d, want 1", off)
	}
	if _, ok := e.b.topics.Get(meta.TopicTransHalf); !ok {
		t.Fatal("the half topic was not created by the first round")
	}
}

func TestBroker_CheckTransactions_YoungAndResolvedAreNotChecked(t *testing.T) {
	e := newTxEnv(t, func(o *Options) { o.TransactionTimeOut = time.Hour })
	e.heartbeat("PG")
	old := e.sendHalf("PG", "TopicTx", 0, "resolved", time.Now().Add(-2*time.Hour))
	e.sendHalf("PG", "TopicTx", 0, "young", time.Now())
	if resp := e.endTx(txEndHeader("PG", old, message.TransactionRollback)); resp.Code != int32(protocol.ResSuccess) {
		t.Fatalf("rollback: %d %q", resp.Code, resp.Remark)
	}
	e.waitQueue(meta.TopicTransHalf, 0, 2)
	e.waitQueue(meta.TopicTransOpHalf, 0, 1)
	e.waitPastStore()
	e.b.tx.Check()
	e.barrier()
	if n := e.checkCount(); n != 0 {
		t.Fatalf("%d checks, want 0", n)
	}
	// The resolved one is passed; the walk stops at the young one.
	if off := e.b.offsets.Query(TransCheckGroup, meta.TopicTransHalf, 0); off != 1 {
		t.Fatalf("half progress %d, want 1", off)
	}
	if off := e.b.offsets.Query(TransCheckGroup, meta.TopicTransOpHalf, 0); off != 1 {
		t.Fatalf("op progress %d, want 1", off)
	}
	if n := e.b.Store().MaxOffsetInQueue(meta.TopicTransHalf, 0); n != 2 {
		t.Fatalf("half queue has %d messages: something was re-put", n)
	}
}

func TestBroker_CheckTransactions_DiscardAfterCheckMax(t *testing.T) {
	e := newTxEnv(t, func(o *Options) { o.TransactionCheckMax = 2 })
	s := e.sendHalf("PG", "TopicTx", 1, "orphan", time.Now().Add(-time.Minute))
	// No producer is connected: each round re-puts the message and counts the check.
	e.waitQueue(meta.TopicTransHalf, 0, 1)
	for _, wantHalf := range []int64{2, 3, 3} {
		e.waitPastStore()
		e.b.tx.Check()
		e.waitQueue(meta.TopicTransHalf, 0, wantHalf)
	}
	e.waitQueue(meta.TopicTransCheckMax, 0, 1)
	got := e.read(meta.TopicTransCheckMax, 0)
	if len(got) != 1 || string(got[0].Record.Body) != "orphan" || txProp(t, got[0], message.PropertyTransactionCheckTimes) != "2" ||
		txProp(t, got[0], message.PropertyUniqClientMessageIDKeyIdx) != s.uniq {
		t.Fatalf("discarded: %d records", len(got))
	}
	tc, ok := e.b.topics.Get(meta.TopicTransCheckMax)
	if !ok || tc.ReadQueueNums != 1 || tc.Perm != protocol.PermRead|protocol.PermWrite {
		t.Fatalf("TRANS_CHECK_MAX_TIME_TOPIC config %+v %v", tc, ok)
	}
	if off := e.b.offsets.Query(TransCheckGroup, meta.TopicTransHalf, 0); off != 3 {
		t.Fatalf("half progress %d, want 3", off)
	}
}

func TestBroker_CheckTransactions_CheckImmunity(t *testing.T) {
	e := newTxEnv(t, nil)
	e.heartbeat("PG")
	e.sendHalf("PG", "TopicTx", 0, "immune", time.Now().Add(-time.Minute), message.PropertyCheckImmunityTimeInSeconds, "3600")
	e.waitQueue(meta.TopicTransHalf, 0, 1)
	e.waitPastStore()
	e.b.tx.Check()
	e.barrier()
	if n := e.checkCount(); n != 0 {
		t.Fatalf("an immune half message was checked: %d", n)
	}
	e.waitQueue(meta.TopicTransHalf, 0, 2)
	copyMsg := e.read(meta.TopicTransHalf, 0)[1]
	if txProp(t, copyMsg, message.PropertyTransactionPreparedQueueOffset) != "0" || txProp(t, copyMsg, message.PropertyWaitStoreMsgOK) != "false" ||
		txProp(t, copyMsg, message.PropertyTransactionCheckTimes) != "1" {
		t.Fatalf("immunity copy properties %q", copyMsg.Record.Properties)
	}
}

func TestBroker_CheckTransactions_ProgressSurvivesRestart(t *testing.T) {
	e := newTxEnv(t, nil)
	e.heartbeat("PG")
	s := e.sendHalf("PG", "TopicTx", 0, "across-restart", time.Now().Add(-time.Minute))
	e.waitQueue(meta.TopicTransHalf, 0, 1)
	e.waitPastStore()
	e.b.tx.Check()
	e.barrier()
	if e.checkCount() != 1 {
		t.Fatalf("%d checks before restart", e.checkCount())
	}
	e.restart()
	if off := e.b.offsets.Query(TransCheckGroup, meta.TopicTransHalf, 0); off != 1 {
		t.Fatalf("half progress after restart %d, want 1", off)
	}
	e.heartbeat("PG") // a new connection registers the producer again
	e.waitQueue(meta.TopicTransHalf, 0, 2)
	e.waitPastStore()
	e.b.tx.Check()
	e.barrier()
	if e.checkCount() != 2 {
		t.Fatalf("%d checks after restart, want 2", e.checkCount())
	}
	var h protocol.CheckTransactionStateRequestHeader
	req := e.lastCheck()
	if err := h.Decode(req.Ext); err != nil {
		t.Fatal(err)
	}
	body, _ := message.DecodeRecord(req.Body)
	if v, _ := body.Property(message.PropertyTransactionCheckTimes); h.TranStateTableOffset != 2 || string(v) != "2" || h.MsgID != s.uniq {
		t.Fatalf("check after restart: header %+v, check times %q", h, v)
	}
	resp := e.endTx(protocol.EndTransactionRequestHeader{ProducerGroup: "PG", TranStateTableOffset: h.TranStateTableOffset,
		CommitLogOffset: h.CommitLogOffset, CommitOrRollback: message.TransactionRollback, FromTransactionCheck: true, MsgID: s.uniq})
	if resp.Code != int32(protocol.ResSuccess) {
		t.Fatalf("rollback: %d %q", resp.Code, resp.Remark)
	}
	if n := e.b.Store().MaxOffsetInQueue("TopicTx", 0); n != 0 {
		t.Fatalf("rolled back message stored: %d", n)
	}
}

// newTxOfflineBroker opens a broker's managers and store without serving: handlers are
// called directly.
func newTxOfflineBroker(tb testing.TB, mutate func(*Options)) *Broker {
	tb.Helper()
	opts := DefaultOptions(tb.TempDir())
	opts.Store.MappedFileSizeCommitLog = 64 << 20
	opts.Store.MappedFileSizeConsumeQueue = 30000 * 20
	opts.Store.MaxHashSlotNum = 1000
	opts.Store.MaxIndexNum = 4000
	opts.ListenAddr = "127.0.0.1:10911"
	if mutate != nil {
		mutate(&opts)
	}
	b, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = b.store.Close() })
	return b
}

// prepareHalfDirect stores a half message through prepareHalfMessage and returns its
// CommitLog and queue offsets.
func prepareHalfDirect(tb testing.TB, b *Broker, group, topic string) (phyOffset, queueOffset int64) {
	tb.Helper()
	sc := &sendScratch{}
	sc.msg = message.Message{Topic: topic, QueueID: 0, Body: []byte("h"), SysFlag: message.TransactionPrepared,
		BornHost: b.storeHost, StoreHost: b.storeHost, BornTimestamp: time.Now().Add(-time.Minute).UnixMilli()}
	sc.props.Set(message.PropertyUniqClientMessageIDKeyIdx, "C0A8000100002A9F00000000000000AA")
	sc.props.Set(message.PropertyTransactionPrepared, "true")
	sc.props.Set(message.PropertyProducerGroup, group)
	resp := protocol.NewResponse(nil, protocol.ResSuccess, "")
	if r, err := b.prepareHalfMessage(nil, sc, resp, nil); err != nil || r.Code != 0 {
		tb.Fatalf("prepare: %v", err)
	}
	_, off, err := message.DecodeOffsetMsgID(resp.Ext.Value("msgId"))
	if err != nil {
		tb.Fatal(err)
	}
	qo, _ := strconv.ParseInt(resp.Ext.Value("queueOffset"), 10, 64)
	return off, qo
}

// BenchmarkBroker_Transaction_PrepareCommit is one transaction end to end without the
// network: the half message, END_TRANSACTION commit (lookup, real message, op message).
// BenchmarkBroker_Transaction_PlainPut is the plain store append it compares with.
func BenchmarkBroker_Transaction_PrepareCommit(b *testing.B) {
	br := newTxOfflineBroker(b, nil)
	ctx := &remoting.Context{Conn: &remoting.Conn{}}
	b.ReportAllocs()
	for b.Loop() {
		phy, qo := prepareHalfDirect(b, br, "PG", "TopicTx")
		req := protocol.NewRequest(protocol.CodeEndTransaction)
		h := protocol.EndTransactionRequestHeader{ProducerGroup: "PG", TranStateTableOffset: qo, CommitLogOffset: phy,
			CommitOrRollback: message.TransactionCommit, MsgID: "m"}
		h.Encode(&req.Ext)
		if resp, err := br.endTransaction(ctx, req); err != nil || resp.Code != 0 {
			b.Fatalf("commit: %v %v", resp, err)
		}
	}
}

func BenchmarkBroker_Transaction_PlainPut(b *testing.B) {
	br := newTxOfflineBroker(b, nil)
	props := []byte("UNIQ_KEY\x01C0A8000100002A9F00000000000000AA\x02CLUSTER\x01DefaultCluster")
	b.ReportAllocs()
	for b.Loop() {
		m := message.Message{Topic: "TopicPlain", Body: []byte("h"), BornHost: br.storeHost, StoreHost: br.storeHost, BornTimestamp: 1, Properties: props}
		if _, err := br.store.PutMessage(&m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBroker_Transaction_CheckRound is one check round over 1000 unresolved half
// messages older than the timeout, with no producer connected: each is re-put with its
// check count (the per-message cost of a round is ns/op / 1000).
func BenchmarkBroker_Transaction_CheckRound(b *testing.B) {
	br := newTxOfflineBroker(b, func(o *Options) {
		o.TransactionTimeOut = 0
		o.TransactionCheckMax = 1 << 30
	})
	for i := 0; i < 1000; i++ {
		prepareHalfDirect(b, br, "PG", "TopicTx")
	}
	lastPut := time.Now().UnixMilli()
	b.ReportAllocs()
	for b.Loop() {
		// Wait (untimed) until the last round's copies are dispatched and older than now.
		b.StopTimer()
		want := br.tx.ConsumeOffset(meta.TopicTransHalf, 0) + 1000
		deadline := time.Now().Add(10 * time.Second)
		for br.store.MaxOffsetInQueue(meta.TopicTransHalf, 0) < want || time.Now().UnixMilli() <= lastPut {
			if time.Now().After(deadline) {
				b.Fatal("dispatch does not catch up")
			}
			time.Sleep(time.Millisecond)
		}
		b.StartTimer()
		br.tx.Check()
		lastPut = time.Now().UnixMilli()
		if got := br.offsets.Query(TransCheckGroup, meta.TopicTransHalf, 0); got != want {
			b.Fatalf("round passed to %d, want %d", got, want)
		}
	}
}

// FuzzBroker_EndTransaction_Offsets sends END_TRANSACTION with arbitrary offsets and
// states against a store holding two half messages and a normal message: nothing may
// panic, and a message reaches the real topic only when the request names a half
// message exactly. Seeds: the exact first half message (commits), its queue offset
// off by one (refused), an offset inside a record (not found), rollback and unknown.
func FuzzBroker_EndTransaction_Offsets(f *testing.F) {
	b := newTxOfflineBroker(f, nil)
	var halves []int64
	for i := 0; i < 2; i++ {
		off, _ := prepareHalfDirect(f, b, "PG", "TopicTx")
		halves = append(halves, off)
	}
	if _, err := b.store.PutMessage(&message.Message{Topic: "Plain", Body: []byte("p"), BornHost: b.storeHost, StoreHost: b.storeHost,
		Properties: []byte("PGROUP\x01PG")}); err != nil {
		f.Fatal(err)
	}
	f.Add(halves[0], int64(0), int32(message.TransactionCommit), "PG")
	f.Add(halves[1], int64(0), int32(message.TransactionCommit), "PG")
	f.Add(halves[0]+5, int64(0), int32(message.TransactionCommit), "PG")
	f.Add(halves[1], int64(1), int32(message.TransactionRollback), "PG")
	f.Add(halves[1], int64(1), int32(0), "PG")
	f.Add(halves[1], int64(1), int32(99), "PG") // no state at all: SYSTEM_ERROR, as Java's checkFields
	ctx := &remoting.Context{Conn: &remoting.Conn{}}
	f.Fuzz(func(t *testing.T, commitLogOffset, queueOffset int64, state int32, group string) {
		beforePhy := b.store.MaxPhyOffset()
		req := protocol.NewRequest(protocol.CodeEndTransaction)
		h := protocol.EndTransactionRequestHeader{ProducerGroup: group, TranStateTableOffset: queueOffset, CommitLogOffset: commitLogOffset,
			CommitOrRollback: state, MsgID: "m"}
		h.Encode(&req.Ext)
		resp, err := b.endTransaction(ctx, req)
		wrote := b.store.MaxPhyOffset() != beforePhy
		if state != message.TransactionNotType && state != message.TransactionCommit && state != message.TransactionRollback {
			// Java's EndTransactionRequestHeader#checkFields refuses it in the decode.
			if pe, ok := err.(*protocol.Error); !ok || pe.Code != protocol.ResSystemError || wrote {
				t.Fatalf("state %d: %v / wrote %v, want SYSTEM_ERROR and nothing written", state, err, wrote)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		exact := group == "PG" && ((commitLogOffset == halves[0] && queueOffset == 0) || (commitLogOffset == halves[1] && queueOffset == 1))
		switch {
		case state != message.TransactionCommit && state != message.TransactionRollback:
			if resp != nil || wrote {
				t.Fatalf("state %d answered %v / wrote %v", state, resp, wrote)
			}
		case exact:
			if resp == nil || resp.Code != 0 || !wrote {
				t.Fatalf("exact request refused: %+v", resp)
			}
		default:
			if resp == nil || resp.Code == 0 || wrote {
				t.Fatalf("request not naming a half message accepted: %+v (wrote %v)", resp, wrote)
			}
		}
	})
}

// The leaf packages declare the system topic names they use themselves, so they do not
// import meta; they must stay the names the topic table knows.
func TestBroker_SystemTopicNames_LeafPackagesAgreeWithMeta(t *testing.T) {
	for _, c := range [][2]string{
		{schedule.Topic, meta.TopicSchedule},
		{transaction.HalfTopic, meta.TopicTransHalf},
		{transaction.OpHalfTopic, meta.TopicTransOpHalf},
		{transaction.CheckMaxTopic, meta.TopicTransCheckMax},
	} {
		if c[0] != c[1] {
			t.Errorf("leaf package names %q, meta %q", c[0], c[1])
		}
	}
}
