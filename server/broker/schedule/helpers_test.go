package schedule

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

// waitSettled waits until level's worker has passed want (every message before it was
// delivered or skipped: nothing more can be delivered from them) and the store has
// dispatched every delivery, so a test may then count what arrived, duplicates included.
func waitSettled(t testing.TB, s *Service, st *store.Store, level int, want int64) {
	t.Helper()
	waitFor(t, 5*time.Second, fmt.Sprintf("level %d to pass offset %d", level, want), func() bool { return s.Table()[level] >= want })
	waitFor(t, 5*time.Second, "deliveries dispatched", func() bool { return st.DispatchBehindBytes() == 0 })
}

// openTestStore opens a store under root with small files and the delays given.
func openTestStore(t testing.TB, root, delays string) *store.Store {
	t.Helper()
	sc := store.DefaultConfig(root)
	sc.MappedFileSizeCommitLog = 4 << 20
	sc.MappedFileSizeConsumeQueue = 10000 * 20
	sc.MaxHashSlotNum = 1000
	sc.MaxIndexNum = 4000
	sc.MessageDelayLevel = delays
	st, err := store.Open(sc)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var testHost = netip.MustParseAddrPort("127.0.0.1:10911")
var testBornHost = netip.MustParseAddrPort("10.1.2.3:50000")

var uniqSeq atomic.Int64

// putPlain stores a message on topic/queue as a producer's send would, and returns the
// result and its UNIQ_KEY.
func putPlain(t testing.TB, st *store.Store, topic string, queue int32, body string, reconsume int32, extra ...string) (store.PutResult, string) {
	t.Helper()
	uniq := fmt.Sprintf("C0A80001%024d", uniqSeq.Add(1))
	var p message.Properties
	p.Set(message.PropertyTags, "TagA")
	p.Set(message.PropertyKeys, "k-"+body)
	p.Set(message.PropertyUniqClientMessageIDKeyIdx, uniq)
	p.Set(message.PropertyCluster, "DefaultCluster")
	for i := 0; i+1 < len(extra); i += 2 {
		p.Set(extra[i], extra[i+1])
	}
	m := message.Message{Topic: topic, QueueID: queue, Flag: 7, Body: []byte(body), BornTimestamp: time.Now().UnixMilli() - 5,
		BornHost: testBornHost, StoreHost: testHost, ReconsumeTimes: reconsume, Properties: p.AppendTo(nil)}
	res, err := st.PutMessage(&m)
	if err != nil {
		t.Fatal(err)
	}
	return res, uniq
}

// park stores a delayed message as the send path leaves it: in SCHEDULE_TOPIC_XXXX
// queue level-1 with DELAY, REAL_TOPIC and REAL_QID.
func park(t testing.TB, st *store.Store, level int, realTopic string, realQid int32, body string, extra ...string) store.PutResult {
	t.Helper()
	props := append([]string{message.PropertyDelayTimeLevel, strconv.Itoa(level), message.PropertyRealTopic, realTopic,
		message.PropertyRealQueueID, strconv.Itoa(int(realQid))}, extra...)
	res, _ := putPlain(t, st, Topic, int32(level-1), body, 0, props...)
	return res
}

// records returns the decoded records of a queue, in queue order; the bodies and
// properties are copies.
func records(t testing.TB, st *store.Store, topic string, queue int32) []message.Record {
	t.Helper()
	var out []message.Record
	for _, u := range st.ConsumeQueueUnits(topic, queue, st.MinOffsetInQueue(topic, queue), 1<<20) {
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

// newTestService builds a service over st with its file under root/config, and loads it.
func newTestService(st *store.Store, root, delays string) (*Service, error) {
	d, err := ParseLevels(delays)
	if err != nil {
		return nil, err
	}
	s := New(Config{Store: st, Delays: d, Path: filepath.Join(root, "config", FileName)})
	return s, s.Load()
}
