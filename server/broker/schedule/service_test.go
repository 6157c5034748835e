package schedule

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/store"
)

func TestParseLevels_Default(t *testing.T) {
	d, err := ParseLevels("")
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 18 || d[0] != time.Second || d[1] != 5*time.Second || d[4] != time.Minute || d[17] != 2*time.Hour {
		t.Fatalf("default table %v", d)
	}
}

func TestParseLevels_Units(t *testing.T) {
	d, err := ParseLevels("0s 2s 3m 4h 1d ") // Java's split drops the trailing empty field
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, 2 * time.Second, 3 * time.Minute, 4 * time.Hour, 24 * time.Hour}
	if len(d) != len(want) {
		t.Fatalf("got %v, want %v", d, want)
	}
	for i := range want {
		if d[i] != want[i] {
			t.Fatalf("level %d: %v, want %v", i+1, d[i], want[i])
		}
	}
}

func TestParseLevels_Bad(t *testing.T) {
	for _, s := range []string{"1s  2s", " 1s", "1x", "s", "1.5s", "abc"} {
		if _, err := ParseLevels(s); !errors.Is(err, ErrBadDelayLevel) {
			t.Errorf("%q: err %v, want ErrBadDelayLevel", s, err)
		}
	}
}

func TestAppendDelayOffsets_FastjsonLayout(t *testing.T) {
	got := string(appendDelayOffsets(nil, map[int]int64{10: 3, 2: 15, 1: 0}))
	if want := `{"offsetTable":{1:0,2:15,10:3}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	std, err := compat.NormalizeJSON([]byte(got))
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeDelayOffsets(std)
	if err != nil || len(back) != 3 || back[2] != 15 || back[10] != 3 {
		t.Fatalf("round trip %v %v", back, err)
	}
	if got := string(appendDelayOffsets(nil, nil)); got != `{"offsetTable":{}}` {
		t.Fatalf("empty table %s", got)
	}
}

func TestService_Load_JavaFileAndBakFallback(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "config", FileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// What a Java broker writes (fastjson pretty format).
	java := "{\n\t\"offsetTable\":{1:4,3:17\n\t}\n}"
	if err := os.WriteFile(path, []byte(java), 0o644); err != nil {
		t.Fatal(err)
	}
	st := openTestStore(t, root, "")
	defer st.Close()
	s, err := newTestService(st, root, "")
	if err != nil {
		t.Fatal(err)
	}
	if tb := s.Table(); len(tb) != 2 || tb[1] != 4 || tb[3] != 17 {
		t.Fatalf("loaded %v", tb)
	}
	// A corrupt main file falls back to .bak.
	if err := os.WriteFile(path+".bak", []byte(`{"offsetTable":{2:9}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"offsetTable":{2:`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(); err != nil {
		t.Fatal(err)
	}
	if tb := s.Table(); len(tb) != 1 || tb[2] != 9 {
		t.Fatalf("loaded from .bak %v", tb)
	}
}

func TestService_Deliver_WhenDueInOrder(t *testing.T) {
	root := t.TempDir()
	st := openTestStore(t, root, "1s 2s")
	defer st.Close()
	var parked []store.PutResult
	for _, body := range []string{"a", "b", "c"} {
		parked = append(parked, park(t, st, 1, "TopicA", 2, body, "custom", "v"))
	}
	s, err := newTestService(st, root, "1s 2s")
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Shutdown()
	waitFor(t, 5*time.Second, "three deliveries", func() bool { return st.MaxOffsetInQueue("TopicA", 2) == 3 })
	recs := records(t, st, "TopicA", 2)
	units := st.ConsumeQueueUnits("TopicA", 2, 0, 3)
	for i, r := range recs {
		if string(r.Body) != []string{"a", "b", "c"}[i] {
			t.Fatalf("delivery %d is %q: out of order", i, r.Body)
		}
		if lag := r.StoreTimestamp - parked[i].StoreTimestamp; lag < 1000 || lag > 1500 {
			t.Fatalf("delivery %d stored %d ms after it was parked, want 1000..1500", i, lag)
		}
		if r.Flag != 7 || r.BornHost != testBornHost || r.StoreHost != testHost || r.ReconsumeTimes != 0 || r.QueueID != 2 {
			t.Fatalf("delivery %d fields: flag %d born %v store %v reconsume %d queue %d", i, r.Flag, r.BornHost, r.StoreHost, r.ReconsumeTimes, r.QueueID)
		}
		props := message.ParseProperties(string(r.Properties))
		for k, want := range map[string]string{"DELAY": "1", "REAL_TOPIC": "TopicA", "REAL_QID": "2", "custom": "v", "TAGS": "TagA"} {
			if got, _ := props.Get(k); got != want {
				t.Fatalf("delivery %d: %s=%q, want %q (properties %q)", i, k, got, want, r.Properties)
			}
		}
		if units[i].TagsCode != int64(compat.JavaHashCode("TagA")) {
			t.Fatalf("delivery %d tag code %d, want hash of TAGS", i, units[i].TagsCode)
		}
	}
	if tb := s.Table(); tb[1] != 3 || len(tb) != 1 {
		t.Fatalf("table %v, want {1:3}", tb)
	}
}

func TestService_Shutdown_PersistsAndResumes(t *testing.T) {
	root := t.TempDir()
	st := openTestStore(t, root, "1s")
	defer st.Close()
	park(t, st, 1, "TopicR", 0, "one")
	park(t, st, 1, "TopicR", 0, "two")
	s, err := newTestService(st, root, "1s")
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	waitFor(t, 5*time.Second, "two deliveries", func() bool { return st.MaxOffsetInQueue("TopicR", 0) == 2 })
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "config", FileName))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n\t\"offsetTable\":{1:2\n\t}\n}"; string(data) != want {
		t.Fatalf("delayOffset.json is %q, want fastjson's pretty %q", data, want)
	}
	park(t, st, 1, "TopicR", 0, "three")
	s2, err := newTestService(st, root, "1s")
	if err != nil {
		t.Fatal(err)
	}
	s2.Start()
	defer s2.Shutdown()
	waitFor(t, 5*time.Second, "the third delivery", func() bool { return st.MaxOffsetInQueue("TopicR", 0) >= 3 })
	waitSettled(t, s2, st, 1, 3)
	recs := records(t, st, "TopicR", 0)
	if len(recs) != 3 || string(recs[2].Body) != "three" {
		t.Fatalf("%d deliveries, want one, two, three once each", len(recs))
	}
}

// A crash leaves delayOffset.json behind the deliveries; the restart must not deliver
// them again, but must deliver what was not delivered.
func TestService_Start_SkipsDeliveredAfterCrash(t *testing.T) {
	root := t.TempDir()
	st := openTestStore(t, root, "1s")
	defer st.Close()
	for _, b := range []string{"one", "two", "three"} {
		park(t, st, 1, "TopicC", 1, b)
	}
	s, err := newTestService(st, root, "1s")
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	waitFor(t, 5*time.Second, "three deliveries", func() bool { return st.MaxOffsetInQueue("TopicC", 1) == 3 })
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	// The state a crash before the first persist leaves: the table says nothing was
	// delivered. One more message was parked and is due too.
	path := filepath.Join(root, "config", FileName)
	if err := os.WriteFile(path, []byte(`{"offsetTable":{1:0}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	four := park(t, st, 1, "TopicC", 1, "four")
	// A producer's message in the same real queue must not confuse the check.
	putPlain(t, st, "TopicC", 1, "plain", 0)
	waitFor(t, 3*time.Second, "the fourth message to be due", func() bool { return time.Now().UnixMilli() > four.StoreTimestamp+1000 })

	s2, err := newTestService(st, root, "1s")
	if err != nil {
		t.Fatal(err)
	}
	s2.Start()
	defer s2.Shutdown()
	waitFor(t, 5*time.Second, "the fourth delivery", func() bool { return s2.Table()[1] == 4 })
	waitSettled(t, s2, st, 1, 4)
	var bodies []string
	for _, r := range records(t, st, "TopicC", 1) {
		bodies = append(bodies, string(r.Body))
	}
	if got := strings.Join(bodies, ","); got != "one,two,three,plain,four" {
		t.Fatalf("queue holds %s, want one,two,three,plain,four", got)
	}
}

func TestService_Persist_AfterDeliveriesFlushed(t *testing.T) {
	root := t.TempDir()
	st := openTestStore(t, root, "1s")
	defer st.Close()
	park(t, st, 1, "TopicF", 0, "x")
	s, err := newTestService(st, root, "1s")
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Shutdown()
	waitFor(t, 5*time.Second, "the delivery", func() bool { return s.Table()[1] == 1 })
	s.mu.Lock()
	end := s.lastEnd
	s.mu.Unlock()
	if err := s.persist(); err != nil {
		t.Fatal(err)
	}
	if f := st.FlushedOffset(); f < end {
		t.Fatalf("persisted with the CommitLog flushed to %d, the delivery ends at %d", f, end)
	}
	data, err := os.ReadFile(filepath.Join(root, "config", FileName))
	if err != nil || !strings.Contains(string(data), "1:1") {
		t.Fatalf("delayOffset.json %q %v", data, err)
	}
}

func TestService_Deliver_SkipsUndeliverable(t *testing.T) {
	root := t.TempDir()
	st := openTestStore(t, root, "1s")
	defer st.Close()
	park(t, st, 1, "TopicU", 0, "bad-qid", message.PropertyRealQueueID, "x")
	park(t, st, 1, message.TransHalfTopic, 0, "half")
	park(t, st, 1, "TopicU", 0, "good")
	s, err := newTestService(st, root, "1s")
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Shutdown()
	waitFor(t, 5*time.Second, "the good delivery", func() bool { return s.Table()[1] == 3 && st.MaxOffsetInQueue("TopicU", 0) == 1 })
	recs := records(t, st, "TopicU", 0)
	if len(recs) != 1 || string(recs[0].Body) != "good" {
		t.Fatalf("%d deliveries, want only the good one", len(recs))
	}
	if n := st.MaxOffsetInQueue(message.TransHalfTopic, 0); n != 0 {
		t.Fatalf("%d messages delivered to the half topic", n)
	}
}

func TestService_DeliverAt_CorrectsFarFuture(t *testing.T) {
	s := New(Config{Delays: []time.Duration{time.Second, 10 * time.Second}})
	now := int64(1_000_000)
	if got := s.deliverAt(2, now+5000, now); got != now+5000 {
		t.Fatalf("due in 5 s at level 2: %d", got)
	}
	if got := s.deliverAt(1, now+5000, now); got != now {
		t.Fatalf("due in 5 s at a 1 s level (clock stepped back): %d, want now", got)
	}
}

// BenchmarkService_Deliver measures the delivery loop: parked messages, all due,
// moved to their real queue by one level worker (compare with BenchmarkStore puts).
func BenchmarkService_Deliver(b *testing.B) {
	root := b.TempDir()
	st := openTestStore(b, root, "0s")
	defer st.Close()
	for i := 0; i < b.N; i++ {
		park(b, st, 1, "TopicB", 0, "0123456789012345678901234567890123456789012345678901234567890123")
	}
	waitFor(b, time.Minute, "dispatch", func() bool { return st.MaxOffsetInQueue(Topic, 0) == int64(b.N) })
	s, err := newTestService(st, root, "0s")
	if err != nil {
		b.Fatal(err)
	}
	w := s.newLevelWorker(1)
	b.ReportAllocs()
	b.ResetTimer()
	for w.next < int64(b.N) {
		w.round()
	}
	b.StopTimer()
	if n := st.MaxPhyOffset(); n == 0 || s.Table()[1] != int64(b.N) {
		b.Fatalf("delivered %d of %d", s.Table()[1], b.N)
	}
}

func FuzzParseLevels(f *testing.F) {
	for _, seed := range []string{
		defaultMessageDelayLevel, // Java's default table
		"1s",                     // one level
		"0s 1m 2h 3d ",           // every unit, trailing space (dropped like String#split)
		"1s  2s",                 // empty middle field: Java fails
		" 1s",                    // empty first field: Java fails
		"-1s +2s",                // signs Long.parseLong accepts
		"1x",                     // unknown unit
		"99999999999999999999s",  // number out of range
		"",                       // the default
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseLevels(s)
		if err != nil {
			if !errors.Is(err, ErrBadDelayLevel) {
				t.Fatalf("%q: error %v is not ErrBadDelayLevel", s, err)
			}
			return
		}
		if s == "" {
			s = defaultMessageDelayLevel
		}
		if want := len(strings.Split(strings.TrimRight(s, " "), " ")); len(d) != want {
			t.Fatalf("%q: %d levels, want %d", s, len(d), want)
		}
	})
}

func FuzzDecodeDelayOffsets(f *testing.F) {
	for _, seed := range []string{
		"{\n\t\"offsetTable\":{1:4,3:17\n\t}\n}", // Java's pretty file
		`{"offsetTable":{1:0,2:15}}`,             // GET_ALL_DELAY_OFFSET body
		`{"offsetTable":{}}`,                     // nothing delivered yet
		`{"offsetTable":{"2":9}}`,                // quoted keys
		`{"offsetTable":{x:1}}`,                  // a key that is not a level
		`{"offsetTable":{1:-5}}`,                 // negative offset (corrected at start)
		`{}`,                                     // no table
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		std, err := compat.NormalizeJSON(data)
		if err != nil {
			return
		}
		table, err := decodeDelayOffsets(std)
		if err != nil {
			return
		}
		std2, err := compat.NormalizeJSON(appendDelayOffsets(nil, table))
		if err != nil {
			t.Fatalf("our own encoding of %v does not parse: %v", table, err)
		}
		back, err := decodeDelayOffsets(std2)
		if err != nil || len(back) != len(table) {
			t.Fatalf("round trip of %v: %v %v", table, back, err)
		}
		for k, v := range table {
			if back[k] != v {
				t.Fatalf("round trip of %v: %v", table, back)
			}
		}
	})
}

// BenchmarkService_PlainPut is the baseline for BenchmarkService_Deliver:
// the same message stored straight on its topic, as a plain send's append would.
func BenchmarkService_PlainPut(b *testing.B) {
	st := openTestStore(b, b.TempDir(), "0s")
	defer st.Close()
	var p message.Properties
	for _, kv := range [][2]string{{"TAGS", "TagA"}, {"KEYS", "k-x"}, {"UNIQ_KEY", "C0A80001000000000000000000000001"},
		{"CLUSTER", "DefaultCluster"}, {"DELAY", "1"}, {"REAL_TOPIC", "TopicB"}, {"REAL_QID", "0"}} {
		p.Set(kv[0], kv[1])
	}
	m := message.Message{Topic: "TopicB", Flag: 7, Body: []byte("0123456789012345678901234567890123456789012345678901234567890123"),
		BornTimestamp: time.Now().UnixMilli(), BornHost: testBornHost, StoreHost: testHost, Properties: p.AppendTo(nil)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := st.PutMessage(&m); err != nil {
			b.Fatal(err)
		}
	}
}

// A crash before the first persist leaves no delayOffset.json: the restart must find how
// far delivery got (here 173 of 301, one of them undeliverable) from the real queues.
func TestService_Start_FindsDeliveredPrefixWithoutFile(t *testing.T) {
	root := t.TempDir()
	st := openTestStore(t, root, "1s")
	defer st.Close()
	var last store.PutResult
	for i := 0; i < 301; i++ {
		if i == 100 {
			park(t, st, 1, "TopicP", 0, "undeliverable", message.PropertyRealQueueID, "x")
			continue
		}
		last = park(t, st, 1, "TopicP", int32(i%3), strconv.Itoa(i))
	}
	waitFor(t, 5*time.Second, "all parked messages due and dispatched", func() bool {
		return time.Now().UnixMilli() > last.StoreTimestamp+1000 && st.MaxOffsetInQueue(Topic, 0) == 301
	})
	s, err := newTestService(st, root, "1s")
	if err != nil {
		t.Fatal(err)
	}
	w := s.newLevelWorker(1)
	for _, u := range st.ConsumeQueueUnits(Topic, 0, 0, 173) {
		if !w.deliver(u) {
			t.Fatalf("deliver at %d failed", w.next)
		}
	}
	// Crash: nothing persisted. Start again.
	s2, err := newTestService(st, root, "1s")
	if err != nil {
		t.Fatal(err)
	}
	s2.Start()
	defer s2.Shutdown()
	waitFor(t, 5*time.Second, "the rest delivered", func() bool {
		return s2.Table()[1] == 301 && st.MaxOffsetInQueue("TopicP", 0)+st.MaxOffsetInQueue("TopicP", 1)+st.MaxOffsetInQueue("TopicP", 2) >= 300
	})
	waitSettled(t, s2, st, 1, 301)
	seen := map[string]int{}
	for q := int32(0); q < 3; q++ {
		for _, r := range records(t, st, "TopicP", q) {
			seen[string(r.Body)]++
		}
	}
	if len(seen) != 300 {
		t.Fatalf("%d distinct messages delivered, want 300", len(seen))
	}
	for b, n := range seen {
		if n != 1 {
			t.Fatalf("message %s delivered %d times", b, n)
		}
	}
}
