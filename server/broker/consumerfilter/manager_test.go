package consumerfilter

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// testClock is a settable clock for the manager.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

func newTestFilterManager(t *testing.T, path string, clock *testClock) *Manager {
	t.Helper()
	m, err := New(Options{Path: path, MaxErrorRateOfBloomFilter: 20, ExpectConsumerNumUseFilter: 32}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if clock != nil {
		m.now = clock.now
	}
	return m
}

// TestBloomFilter_Generate_JavaGolden checks the bit positions against Java's
// BloomFilter.createByFn(20, 32).generate (../filter/testdata/golden.jsonl, see javagold).
func TestBloomFilter_Generate_JavaGolden(t *testing.T) {
	bf, err := newBloomFilter(20, 32)
	if err != nil {
		t.Fatal(err)
	}
	if bf.k != 3 || bf.m != 112 {
		t.Fatalf("k=%d m=%d, want Java's 3 and 112", bf.k, bf.m)
	}
	f, err := os.Open("../filter/testdata/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var g struct {
			Bloom  *string `json:"bloom"`
			BitPos []int32 `json:"bitPos"`
			BitNum int32   `json:"bitNum"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if g.Bloom == nil {
			continue
		}
		n++
		got := bf.generate(*g.Bloom)
		if !reflect.DeepEqual(got.BitPos, g.BitPos) || got.BitNum != g.BitNum {
			t.Errorf("generate(%q) = %v/%d, Java %v/%d", *g.Bloom, got.BitPos, got.BitNum, g.BitPos, g.BitNum)
		}
	}
	if n < 5 {
		t.Fatalf("only %d bloom goldens", n)
	}
}

func TestNewBloomFilter_BadSettings(t *testing.T) {
	for _, c := range [][2]int32{{0, 32}, {100, 32}, {20, 0}} {
		if _, err := newBloomFilter(c[0], c[1]); err == nil {
			t.Errorf("newBloomFilter(%d, %d) accepted", c[0], c[1])
		}
	}
}

// decodeStd parses fastjson text into generic values for comparison.
func decodeStd(t *testing.T, b []byte) any {
	t.Helper()
	std, err := compat.NormalizeJSON(b)
	if err != nil {
		t.Fatalf("normalize %s: %v", b, err)
	}
	var v any
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestManager_Persist_JavaGolden writes the table Java wrote for the same
// registrations (testdata/consumer_filter_golden.json, from Java's ConsumerFilterManager).
func TestManager_Persist_JavaGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "consumerFilter.json")
	clock := &testClock{t: time.UnixMilli(1690000000100)}
	m := newTestFilterManager(t, path, clock)
	m.RegisterOne("TopicA", "GroupA", "a > 5", "SQL92", 1690000000000)
	clock.t = time.UnixMilli(1690000000200)
	m.RegisterOne("TopicA", "GroupB", "TAGS IN ('x', 'y') AND b IS NOT NULL", "SQL92", 1700000000000000000)
	clock.t = time.UnixMilli(1690000000300)
	m.Unregister("GroupB")
	clock.t = time.UnixMilli(1690000000400)
	m.RegisterOne("TopicB", "GroupA", "c = 'it''s'", "SQL92", 1690000000001)
	// GroupB died at ...300, GroupA on TopicA is still alive: nothing is old enough to clean.
	clock.t = time.UnixMilli(1690000001000)
	if err := m.Persist(false); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/consumer_filter_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	// Map key order follows Java's hash order there and sorted order here; compare values.
	if g, w := decodeStd(t, got), decodeStd(t, want); !reflect.DeepEqual(g, w) {
		t.Fatalf("consumerFilter.json\n got: %s\nwant: %s", got, want)
	}
	if string(got) != string(compat.PrettyFastJSON(m.AppendJSON(nil))) {
		t.Fatal("the file is not the pretty form of AppendJSON")
	}
}

func TestManager_RegisterOne_Versions(t *testing.T) {
	clock := &testClock{t: time.UnixMilli(1000)}
	m := newTestFilterManager(t, filepath.Join(t.TempDir(), "cf.json"), clock)
	if m.RegisterOne("T", "G", "a > 5", "TAG", 1) || m.RegisterOne("T", "G", "", "SQL92", 1) {
		t.Fatal("TAG and empty expressions must not register")
	}
	if m.RegisterOne("T", "G", "a >", "SQL92", 1) {
		t.Fatal("an expression that does not compile registered")
	}
	if _, ok := m.Get("T", "G"); ok {
		t.Fatal("filter data exists after a failed compile")
	}
	if !m.RegisterOne("T", "G", "a > 5", "SQL92", 10) {
		t.Fatal("first registration refused")
	}
	d, ok := m.Get("T", "G")
	if !ok || d.Expression != "a > 5" || d.ClientVersion != 10 || d.BornTime != 1000 || d.Dead() || d.Compiled == nil {
		t.Fatalf("registered %+v", d)
	}
	if m.RegisterOne("T", "G", "a > 6", "SQL92", 9) {
		t.Fatal("an older version replaced the filter")
	}
	if d, _ := m.Get("T", "G"); d.Expression != "a > 5" {
		t.Fatalf("older version changed the expression to %q", d.Expression)
	}
	clock.t = time.UnixMilli(2000)
	if !m.RegisterOne("T", "G", "a > 6", "SQL92", 11) {
		t.Fatal("a newer version with a new expression was refused")
	}
	if d, _ := m.Get("T", "G"); d.Expression != "a > 6" || d.ClientVersion != 11 || d.BornTime != 2000 {
		t.Fatalf("after change: %+v", d)
	}
	if !m.RegisterOne("T", "G", "a > 6", "SQL92", 12) {
		t.Fatal("a newer version of the same expression was refused")
	}
	if d, _ := m.Get("T", "G"); d.ClientVersion != 12 || d.BornTime != 2000 {
		t.Fatalf("same expression, newer version: %+v", d)
	}
	// A newer expression that does not compile removes the filter (the client sees the error).
	if m.RegisterOne("T", "G", "a >>", "SQL92", 13) {
		t.Fatal("a broken newer expression registered")
	}
	if _, ok := m.Get("T", "G"); ok {
		t.Fatal("the old filter survived a broken newer expression")
	}
}

func TestManager_Register_DeadAndAlive(t *testing.T) {
	clock := &testClock{t: time.UnixMilli(1000)}
	m := newTestFilterManager(t, filepath.Join(t.TempDir(), "cf.json"), clock)
	subs := []protocol.SubscriptionData{
		{Topic: "T1", SubString: "a > 5", ExpressionType: "SQL92", SubVersion: 5},
		{Topic: "T2", SubString: "b = 'x'", ExpressionType: "SQL92", SubVersion: 5},
		{Topic: "%RETRY%G", SubString: "*", ExpressionType: "TAG", SubVersion: 5},
	}
	m.Register("G", subs)
	if len(m.ByTopic("T1")) != 1 || len(m.ByTopic("T2")) != 1 || len(m.ByTopic("%RETRY%G")) != 0 {
		t.Fatalf("registered T1 %v T2 %v retry %v", m.ByTopic("T1"), m.ByTopic("T2"), m.ByTopic("%RETRY%G"))
	}
	// The group stops subscribing T2: its filter there dies, T1 stays alive.
	clock.t = time.UnixMilli(2000)
	m.Register("G", subs[:1])
	if d, _ := m.Get("T2", "G"); !d.Dead() || d.DeadTime != 2000 {
		t.Fatalf("T2 after the group left it: %+v", d)
	}
	if d, _ := m.Get("T1", "G"); d.Dead() {
		t.Fatalf("T1 died: %+v", d)
	}
	// The group goes away: everything dies, and is still there for pulls.
	clock.t = time.UnixMilli(3000)
	m.Unregister("G")
	if d, ok := m.Get("T1", "G"); !ok || !d.Dead() || d.DeadTime != 3000 {
		t.Fatalf("T1 after unregister: %+v %v", d, ok)
	}
	// Same version again revives it (Java: reAlive).
	m.Register("G", subs)
	for _, topic := range []string{"T1", "T2"} {
		if d, _ := m.Get(topic, "G"); d.Dead() {
			t.Fatalf("%s not revived: %+v", topic, d)
		}
	}
}

func TestManager_Persist_CleansLongDead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cf.json")
	clock := &testClock{t: time.UnixMilli(1_000_000)}
	m := newTestFilterManager(t, path, clock)
	m.RegisterOne("T", "G1", "a > 5", "SQL92", 1)
	m.RegisterOne("T", "G2", "a > 5", "SQL92", 1)
	m.RegisterOne("U", "G1", "a > 5", "SQL92", 1)
	clock.t = clock.t.Add(time.Second)
	m.Unregister("G1")
	clock.t = clock.t.Add(24*time.Hour - time.Millisecond)
	if err := m.Persist(false); err != nil {
		t.Fatal(err)
	}
	if len(m.ByTopic("T")) != 2 {
		t.Fatal("G1 cleaned before 24 h of death")
	}
	clock.t = clock.t.Add(time.Millisecond)
	if err := m.Persist(false); err != nil {
		t.Fatal(err)
	}
	if got := m.ByTopic("T"); len(got) != 1 || got[0].ConsumerGroup != "G2" {
		t.Fatalf("after 24 h: %+v", got)
	}
	if len(m.ByTopic("U")) != 0 {
		t.Fatal("topic U kept with no filters")
	}
	var stored map[string]map[string]any
	std, _ := compat.NormalizeJSON(mustRead(t, path))
	if err := json.Unmarshal(std, &stored); err != nil {
		t.Fatal(err)
	}
	if _, ok := stored["filterDataByTopic"]["U"]; ok {
		t.Fatalf("persisted file still has U: %s", std)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestManager_Load_MarksDeadAndCompiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "consumerFilter.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// Java's own file for these registrations.
	if err := os.WriteFile(path, mustRead(t, "testdata/consumer_filter_golden.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Path: path, MaxErrorRateOfBloomFilter: 20, ExpectConsumerNumUseFilter: 32}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	a, ok := m.Get("TopicA", "GroupA")
	if !ok || a.Compiled == nil || a.Compiled.String() != "(a > 5)" || a.ClientVersion != 1690000000000 {
		t.Fatalf("TopicA/GroupA loaded as %+v", a)
	}
	if !a.Dead() {
		t.Fatal("an alive filter is not marked dead at load (its consumer must heartbeat again)")
	}
	b, _ := m.Get("TopicA", "GroupB")
	if b.DeadTime != 1690000000300 {
		t.Fatalf("a dead filter's deadTime changed at load: %d", b.DeadTime)
	}
	if c, _ := m.Get("TopicB", "GroupA"); c.Compiled == nil || c.Compiled.String() != "(c == 'it''s')" {
		t.Fatalf("TopicB/GroupA: %+v", c)
	}
	// A heartbeat with the same version revives it.
	m.RegisterOne("TopicA", "GroupA", "a > 5", "SQL92", 1690000000000)
	if a, _ := m.Get("TopicA", "GroupA"); a.Dead() {
		t.Fatal("not revived by its heartbeat")
	}
}

func TestManager_Load_OtherBloomSettingsIgnoresFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "consumerFilter.json")
	if err := os.WriteFile(path, mustRead(t, "testdata/consumer_filter_golden.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Path: path, MaxErrorRateOfBloomFilter: 20, ExpectConsumerNumUseFilter: 64}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ByTopic("TopicA"))+len(m.ByTopic("TopicB")) != 0 {
		t.Fatal("filter data of another bloom size was loaded (Java ignores the whole file)")
	}
}

func TestManager_Persist_RoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "consumerFilter.json")
	m := newTestFilterManager(t, path, nil)
	m.RegisterOne("T", "G", "a IN ('x', 'y') OR b IS NULL", "SQL92", 7)
	if err := m.Persist(false); err != nil {
		t.Fatal(err)
	}
	m2 := newTestFilterManager(t, path, nil)
	d, ok := m2.Get("T", "G")
	if !ok || d.Expression != "a IN ('x', 'y') OR b IS NULL" || d.ClientVersion != 7 || d.Compiled == nil || d.BloomFilterData == nil {
		t.Fatalf("reloaded %+v", d)
	}
}
