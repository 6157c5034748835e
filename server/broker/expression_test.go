package broker

import (
	"errors"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/clients"
	"github.com/skyrocket-mq/skyrocket/server/broker/consumerfilter"
	"github.com/skyrocket-mq/skyrocket/server/broker/filter"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
)

// filterBroker is a Broker with just what expressionFilter reads.
func filterBroker(t *testing.T, mutate func(*Options)) *Broker {
	t.Helper()
	o := DefaultOptions(t.TempDir())
	o.EnablePropertyFilter = true
	if mutate != nil {
		mutate(&o)
	}
	m, err := consumerfilter.New(consumerfilter.Options{Path: filepath.Join(o.Store.RootDir, "config", "consumerFilter.json"),
		MaxErrorRateOfBloomFilter: 20, ExpectConsumerNumUseFilter: 32}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return &Broker{opts: o, log: zerolog.Nop(), filters: m}
}

// record builds a stored record with the given properties (k1, v1, k2, v2, ...).
func record(topic string, kv ...string) []byte {
	var props []byte
	for i := 0; i+1 < len(kv); i += 2 {
		props = message.AppendProperty(props, kv[i], kv[i+1])
	}
	host := netip.MustParseAddrPort("127.0.0.1:10911")
	return message.AppendRecord(nil, &message.Message{Topic: topic, Body: []byte("body"), Properties: props,
		BornHost: host, StoreHost: host}, 0, 0, 1)
}

func pullHeader(group, topic string, sysFlag int32, expr, typ string, subVersion int64) *protocol.PullMessageRequestHeader {
	return &protocol.PullMessageRequestHeader{ConsumerGroup: group, Topic: topic, SysFlag: sysFlag, Subscription: expr,
		ExpressionType: typ, SubVersion: subVersion}
}

func TestBroker_ExpressionFilter_HeartbeatPath(t *testing.T) {
	b := filterBroker(t, nil)
	sub := &protocol.SubscriptionData{Topic: "T", SubString: "a > 5", ExpressionType: ExpressionSQL92, SubVersion: 10}
	resp := &protocol.Command{}
	if _, r := b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 0), sub, resp); r == nil ||
		r.Code != int32(protocol.ResFilterDataNotExist) || r.Remark != remarkFilterDataNotExist {
		t.Fatalf("no filter data: %+v", r)
	}
	b.filters.RegisterOne("T", "G", "a > 5", ExpressionSQL92, 10)
	if _, r := b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 11), sub, &protocol.Command{}); r == nil ||
		r.Code != int32(protocol.ResFilterDataNotLatest) || r.Remark != remarkFilterDataNotLatest {
		t.Fatalf("filter data older than the pull: %+v", r)
	}
	f, r := b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 0), sub, &protocol.Command{})
	if r != nil {
		t.Fatalf("refused: %d %s", r.Code, r.Remark)
	}
	if !f.MatchByConsumeQueue(12345) {
		t.Fatal("a SQL92 filter must pass every ConsumeQueue unit (no bitmap)")
	}
	if !f.MatchByCommitLog(record("T", "a", "6")) || f.MatchByCommitLog(record("T", "a", "5")) || f.MatchByCommitLog(record("T")) {
		t.Fatal("a > 5 matched wrongly")
	}
	if f.MatchByCommitLog([]byte{1, 2, 3}) {
		t.Fatal("a corrupt record matched")
	}
}

func TestBroker_ExpressionFilter_PropertyFilterDisabled(t *testing.T) {
	b := filterBroker(t, func(o *Options) { o.EnablePropertyFilter = false })
	sub := &protocol.SubscriptionData{Topic: "T", SubString: "a > 5", ExpressionType: ExpressionSQL92}
	// Java checks the filter data first: a missing one is still FILTER_DATA_NOT_EXIST.
	if _, r := b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 0), sub, &protocol.Command{}); r == nil || r.Code != int32(protocol.ResFilterDataNotExist) {
		t.Fatalf("no filter data: %+v", r)
	}
	b.filters.RegisterOne("T", "G", "a > 5", ExpressionSQL92, 0)
	want := "The broker does not support consumer to filter message by SQL92"
	if _, r := b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 0), sub, &protocol.Command{}); r == nil ||
		r.Code != int32(protocol.ResSystemError) || r.Remark != want {
		t.Fatalf("heartbeat path: %+v", r)
	}
	for _, expr := range []string{"a > 5", "a >"} {
		s := &protocol.SubscriptionData{Topic: "T", SubString: expr, ExpressionType: ExpressionSQL92}
		if _, r := b.expressionFilter(pullHeader("G", "T", pullFlagSubscription, expr, "SQL92", 0), s, &protocol.Command{}); r == nil ||
			r.Code != int32(protocol.ResSystemError) || r.Remark != want {
			t.Fatalf("FLAG_SUBSCRIPTION %q: %+v", expr, r)
		}
	}
	tag := buildSubscription("T", "*", "TAG")
	if f, r := b.expressionFilter(pullHeader("G", "T", pullFlagSubscription, "*", "TAG", 0), &tag, &protocol.Command{}); r != nil || f == nil {
		t.Fatalf("a TAG pull was refused: %+v", r)
	}
}

func TestBroker_ExpressionFilter_FlagSubscription(t *testing.T) {
	b := filterBroker(t, nil)
	for _, expr := range []string{"", "a >", "a = 1 AND"} {
		s := &protocol.SubscriptionData{Topic: "T", SubString: expr, ExpressionType: ExpressionSQL92}
		if _, r := b.expressionFilter(pullHeader("G", "T", pullFlagSubscription, expr, "SQL92", 0), s, &protocol.Command{}); r == nil ||
			r.Code != int32(protocol.ResSubscriptionParseFailed) || r.Remark != remarkSubscriptionParse {
			t.Fatalf("%q: %+v", expr, r)
		}
	}
	s := &protocol.SubscriptionData{Topic: "T", SubString: "TAGS IN ('x', 'y') AND b IS NULL", ExpressionType: ExpressionSQL92}
	f, r := b.expressionFilter(pullHeader("G", "T", pullFlagSubscription, s.SubString, "SQL92", 0), s, &protocol.Command{})
	if r != nil {
		t.Fatalf("refused: %+v", r)
	}
	if !f.MatchByCommitLog(record("T", "TAGS", "x")) || f.MatchByCommitLog(record("T", "TAGS", "x", "b", "1")) || f.MatchByCommitLog(record("T", "TAGS", "z")) {
		t.Fatal("TAGS IN filter matched wrongly")
	}
	// No filter data is needed and none is registered by a pull.
	if _, ok := b.filters.Get("T", "G"); ok {
		t.Fatal("a FLAG_SUBSCRIPTION pull registered filter data")
	}
}

func TestBroker_ExpressionFilter_RetrySupport(t *testing.T) {
	b := filterBroker(t, func(o *Options) { o.FilterSupportRetry = true })
	b.filters.RegisterOne("T", "G", "a > 5", ExpressionSQL92, 0)
	retry := buildSubscription(meta.RetryTopic("G"), "*", "TAG")
	f, r := b.expressionFilter(pullHeader("G", meta.RetryTopic("G"), 0, "", "TAG", 0), &retry, &protocol.Command{})
	if r != nil {
		t.Fatalf("refused: %+v", r)
	}
	if !f.MatchByConsumeQueue(1) {
		t.Fatal("* refused a unit")
	}
	if !f.MatchByCommitLog(record(meta.RetryTopic("G"), "RETRY_TOPIC", "T", "a", "9")) {
		t.Fatal("a retried message matching the origin topic's filter was refused")
	}
	if f.MatchByCommitLog(record(meta.RetryTopic("G"), "RETRY_TOPIC", "T", "a", "1")) {
		t.Fatal("a retried message not matching the origin topic's filter was delivered")
	}
	if !f.MatchByCommitLog(record(meta.RetryTopic("G"), "RETRY_TOPIC", "Other", "a", "1")) {
		t.Fatal("a retried message from a topic without a filter must be delivered")
	}
	if !f.MatchByCommitLog(record(meta.RetryTopic("G"), "a", "1")) {
		t.Fatal("a retried message without RETRY_TOPIC must be delivered")
	}
	// Without filterSupportRetry the retry topic is a plain tag subscription.
	plain := filterBroker(t, nil)
	plain.filters.RegisterOne("T", "G", "a > 5", ExpressionSQL92, 0)
	f, _ = plain.expressionFilter(pullHeader("G", meta.RetryTopic("G"), 0, "", "TAG", 0), &retry, &protocol.Command{})
	if !f.MatchByCommitLog(record(meta.RetryTopic("G"), "RETRY_TOPIC", "T", "a", "1")) {
		t.Fatal("retry messages were filtered with filterSupportRetry off")
	}
	// A normal topic under filterSupportRetry filters as usual.
	sub := &protocol.SubscriptionData{Topic: "T", SubString: "a > 5", ExpressionType: ExpressionSQL92}
	f, _ = b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 0), sub, &protocol.Command{})
	if f.MatchByCommitLog(record("T", "a", "1")) || !f.MatchByCommitLog(record("T", "a", "7")) {
		t.Fatal("filterSupportRetry broke the normal topic's filter")
	}
	tagSub := buildSubscription("T", "TagA", "TAG")
	f, _ = b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 0), &tagSub, &protocol.Command{})
	if f.MatchByConsumeQueue(12345) || !f.MatchByCommitLog(record("T", "a", "1")) {
		t.Fatal("filterSupportRetry broke a tag subscription")
	}
}

func TestCompileExpression_Remarks(t *testing.T) {
	if err := compileExpression("SQL92", "a > 5 AND b = 'x'"); err != nil {
		t.Fatal(err)
	}
	err := compileExpression("SQL92", "a BETWEEN 7 AND 3")
	if !errors.Is(err, filter.ErrInvalidSelector) ||
		err.Error() != "java.lang.RuntimeException: Illegal values of between, left value(7) must less than or equal to right value(3)" {
		t.Fatalf("between: %v", err)
	}
	if err := compileExpression("SQL93", "a > 5"); !errors.Is(err, consumerfilter.ErrUnsupportedExpressionType) || !strings.Contains(err.Error(), "SQL93") {
		t.Fatalf("unknown type: %v", err)
	}
}

func TestBroker_FiltersOnConsumerEvent_UnregisterKillsFilters(t *testing.T) {
	b := filterBroker(t, nil)
	b.registerFilters(&protocol.ConsumerData{GroupName: "G", SubscriptionDataSet: []protocol.SubscriptionData{
		{Topic: "T", SubString: "a > 5", ExpressionType: ExpressionSQL92, SubVersion: 1}}})
	if d, ok := b.filters.Get("T", "G"); !ok || d.Dead() {
		t.Fatalf("heartbeat did not register: %+v", d)
	}
	b.filtersOnConsumerEvent(clients.ConsumerChanged, "G", nil)
	if d, _ := b.filters.Get("T", "G"); d.Dead() {
		t.Fatal("a membership change killed the filter")
	}
	b.filtersOnConsumerEvent(clients.ConsumerUnregister, "G", nil)
	if d, _ := b.filters.Get("T", "G"); !d.Dead() {
		t.Fatal("the group left but its filter is alive")
	}
}

func BenchmarkSQLFilter_MatchByCommitLog(b *testing.B) {
	e, err := filter.Compile("a > 5 AND b = 'x' AND TAGS IN ('TagA', 'TagB')")
	if err != nil {
		b.Fatal(err)
	}
	f := &sqlFilter{expr: e}
	rec := record("T", "TAGS", "TagA", "KEYS", "k1", "UNIQ_KEY", "0A0B0C0D0E0F", "a", "7", "b", "x")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !f.MatchByCommitLog(rec) {
			b.Fatal("no match")
		}
	}
}

func TestRecordProps_Property_AsLookupProperty(t *testing.T) {
	raws := []string{
		"a\x011\x02b\x012", "a\x011\x02a\x012", "\x02a\x011\x02", "a\x01\x02b\x01x", "ab\x02a\x01", "\x01a\x02a\x01v",
		"k\x01v\x01w\x02k2\x01v2", "x\x02y\x02z\x011", "", "a\x01b", "TAGS\x01T\x02KEYS\x01k1 k2\x02a\x017\x02",
	}
	for _, raw := range raws {
		var p recordProps
		p.reset([]byte(raw))
		for _, name := range []string{"a", "b", "k", "k2", "z", "TAGS", "KEYS", "", "x"} {
			want, wok := message.LookupProperty([]byte(raw), name)
			got, gok := p.Property(name)
			if gok != wok || got != string(want) {
				t.Errorf("%q: Property(%q) = %q, %v; LookupProperty %q, %v", raw, name, got, gok, want, wok)
			}
		}
	}
}

func TestMatchesArrived_HeldPullWakesOnlyForMatches(t *testing.T) {
	b := filterBroker(t, nil)
	b.filters.RegisterOne("T", "G", "a > 5", ExpressionSQL92, 0)
	sub := &protocol.SubscriptionData{Topic: "T", SubString: "a > 5", ExpressionType: ExpressionSQL92}
	f, r := b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 0), sub, &protocol.Command{})
	if r != nil {
		t.Fatal(r.Remark)
	}
	if !matchesArrived(f, message.AppendProperty(nil, "a", "6")) || matchesArrived(f, message.AppendProperty(nil, "a", "5")) {
		t.Fatal("a > 5 judged an arrival wrongly")
	}
	tag := buildSubscription("T", "TagA", "TAG")
	tf, _ := b.expressionFilter(pullHeader("G", "T", 0, "", "TAG", 0), &tag, &protocol.Command{})
	if !matchesArrived(tf, message.AppendProperty(nil, "TAGS", "TagB")) {
		t.Fatal("a tag filter has no properties stage: its code check decides")
	}
	rb := filterBroker(t, func(o *Options) { o.FilterSupportRetry = true })
	rb.filters.RegisterOne("T", "G", "a > 5", ExpressionSQL92, 0)
	retry := buildSubscription(meta.RetryTopic("G"), "*", "TAG")
	rf, _ := rb.expressionFilter(pullHeader("G", meta.RetryTopic("G"), 0, "", "TAG", 0), &retry, &protocol.Command{})
	props := message.AppendProperty(message.AppendProperty(nil, "RETRY_TOPIC", "T"), "a", "1")
	if matchesArrived(rf, props) || !matchesArrived(rf, message.AppendProperty(nil, "RETRY_TOPIC", "T")[:0]) {
		t.Fatal("retry filter judged an arrival wrongly")
	}
}
