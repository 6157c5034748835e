package timer

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/store"
)

// waitFor: conformance/testkit.Eventually.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, d, what, cond)
}

func openTestStore(t testing.TB, root string) *store.Store {
	t.Helper()
	sc := store.DefaultConfig(root)
	sc.MappedFileSizeCommitLog = 8 << 20
	sc.MappedFileSizeConsumeQueue = 100000 * 20
	sc.MaxHashSlotNum = 1000
	sc.MaxIndexNum = 4000
	st, err := store.Open(sc)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// startedService opens a store in a temporary directory and starts a timer service with
// precision 100 ms on it; both are shut down when the test ends.
func startedService(t testing.TB) (*store.Store, *Service) {
	t.Helper()
	root := t.TempDir()
	st := openTestStore(t, root)
	t.Cleanup(func() { st.Close() })
	s := newTestService(st, root, 100)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown() })
	return st, s
}

func newTestService(st *store.Store, root string, precision int64) *Service {
	return New(Config{Store: st, Dir: filepath.Join(root, "timer"), PrecisionMs: precision, SegmentSize: entrySize * 1000})
}

var testHost = netip.MustParseAddrPort("127.0.0.1:10911")

var seq atomic.Int64

// park stores a timer message as the broker's send hook leaves it, due at dueMs, and
// returns its UNIQ_KEY.
func park(t testing.TB, st *store.Store, realTopic string, qid int32, dueMs, _ int64) string {
	t.Helper()
	uniq := fmt.Sprintf("C0A80001%024d", seq.Add(1))
	parkAs(t, st, realTopic, qid, dueMs, uniq)
	return uniq
}

// parkWithKey is park with a given UNIQ_KEY, queue 0.
func parkWithKey(t testing.TB, st *store.Store, realTopic string, dueMs int64, uniq string) {
	t.Helper()
	parkAs(t, st, realTopic, 0, dueMs, uniq)
}

func parkAs(t testing.TB, st *store.Store, realTopic string, qid int32, dueMs int64, uniq string) {
	t.Helper()
	var p message.Properties
	p.Set(message.PropertyTags, "TagA")
	p.Set(message.PropertyKeys, "k-"+uniq)
	p.Set(message.PropertyUniqClientMessageIDKeyIdx, uniq)
	p.Set(PropertyDeliverMs, strconv.FormatInt(dueMs, 10))
	p.Set(PropertyOutMs, strconv.FormatInt(dueMs, 10))
	p.Set(message.PropertyRealTopic, realTopic)
	p.Set(message.PropertyRealQueueID, strconv.Itoa(int(qid)))
	m := message.Message{Topic: Topic, QueueID: 0, Flag: 3, Body: []byte("body-" + uniq), BornTimestamp: time.Now().UnixMilli(),
		BornHost: testHost, StoreHost: testHost, Properties: p.AppendTo(nil)}
	if _, err := st.PutMessage(&m); err != nil {
		t.Fatal(err)
	}
}

// delivered returns the records of a real queue, with their store times.
func delivered(t testing.TB, st *store.Store, topic string, q int32) []message.Record {
	t.Helper()
	var out []message.Record
	for _, u := range st.ConsumeQueueUnits(topic, q, st.MinOffsetInQueue(topic, q), 1<<20) {
		b, release, err := st.MessageByOffset(u.PhyOffset)
		if err != nil {
			t.Fatal(err)
		}
		r, err := message.DecodeRecord(append([]byte(nil), b...))
		release()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// parkMarker stores a delete marker as the broker's send hook leaves it: due at dueMs,
// TIMER_DEL_UNIQKEY = key (5.x's RecallMessageProcessor#buildMessage).
func parkMarker(t testing.TB, st *store.Store, realTopic string, dueMs int64, key string) {
	t.Helper()
	var p message.Properties
	p.Set(message.PropertyUniqClientMessageIDKeyIdx, fmt.Sprintf("C0A80001%024d", seq.Add(1)))
	p.Set(PropertyDelUniqKey, key)
	p.Set(PropertyDeliverMs, strconv.FormatInt(dueMs, 10))
	p.Set(PropertyOutMs, strconv.FormatInt(dueMs, 10))
	p.Set(message.PropertyRealTopic, realTopic)
	p.Set(message.PropertyRealQueueID, "0")
	m := message.Message{Topic: Topic, Body: []byte("0"), BornTimestamp: time.Now().UnixMilli(),
		BornHost: testHost, StoreHost: testHost, Properties: p.AppendTo(nil)}
	if _, err := st.PutMessage(&m); err != nil {
		t.Fatal(err)
	}
}
