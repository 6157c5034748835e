package conformance

// The broker's /metrics against the two Grafana dashboards of rocketmq-exporter
// (testdata/dashboards, see ORIGIN.md): after a send/consume workload, every series name
// their panels and variables query is served, with the label keys the queries use
// (selectors, by-clauses, label_values, legends of bare-metric panels), except the
// labels Prometheus adds from the scrape config (Env, Cluster as the second dashboard's
// README asks, instance, job). Then the values are checked against what the admin
// codes the exporter calls (28, 202, 208, 315) answer at the same moment.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
)

// notServed are the dashboard series the broker does not serve, with the reason. The
// test fails when one of them is served (shrink the list) or another one is missing.
// Empty: the rocketmq_client_* families are served with metricsClientStatsEnable (the
// broker polls its consumers with GET_CONSUMER_RUNNING_INFO), which this test turns on.
var notServed = map[string]string{}

// scrapeLabels are added by Prometheus, not by the target.
var scrapeLabels = map[string]bool{"Env": true, "Cluster": true, "instance": true, "job": true, "__name__": true}

type dashTarget struct{ expr, legend string }

// dashboardTargets returns every query of a dashboard: panel targets and templating queries.
func dashboardTargets(t *testing.T, path string) []dashTarget {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var out []dashTarget
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if e, ok := x["expr"].(string); ok && e != "" {
				l, _ := x["legendFormat"].(string)
				out = append(out, dashTarget{e, l})
			}
			if q, ok := x["query"].(string); ok && strings.Contains(q, "rocketmq_") {
				out = append(out, dashTarget{q, ""})
			} else if q, ok := x["query"].(map[string]any); ok {
				if s, ok := q["query"].(string); ok && strings.Contains(s, "rocketmq_") {
					out = append(out, dashTarget{s, ""})
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	return out
}

var (
	reMetric   = regexp.MustCompile(`rocketmq_[a-z0-9_]+`)
	reSelector = regexp.MustCompile(`(rocketmq_[a-z0-9_]+)\s*\{([^}]*)\}`)
	reSelKey   = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)`)
	reAgg      = regexp.MustCompile(`(?:sum|max|min|avg|count)\s*(?:by\s*\(([^)]*)\))?\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?:by\s*\(([^)]*)\))?`)
	reLegend   = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	reLabelVal = regexp.MustCompile(`label_values\(\s*(rocketmq_[a-z0-9_]+)[^,]*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)`)
)

func splitLabels(s string) []string {
	var out []string
	for _, l := range strings.Split(s, ",") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// requiredLabels maps each series name the targets use to the label keys they need.
func requiredLabels(targets []dashTarget) map[string]map[string]bool {
	req := map[string]map[string]bool{}
	need := func(m string, labels ...string) {
		if req[m] == nil {
			req[m] = map[string]bool{}
		}
		for _, l := range labels {
			if !scrapeLabels[l] {
				req[m][l] = true
			}
		}
	}
	for _, tg := range targets {
		names := reMetric.FindAllString(tg.expr, -1)
		for _, m := range names {
			need(m)
		}
		for _, s := range reSelector.FindAllStringSubmatch(tg.expr, -1) {
			for _, k := range reSelKey.FindAllStringSubmatch(s[2], -1) {
				need(s[1], k[1])
			}
		}
		for _, a := range reAgg.FindAllStringSubmatch(tg.expr, -1) {
			inner := reMetric.FindAllString(a[2], -1)
			for _, m := range inner {
				need(m, append(splitLabels(a[1]), splitLabels(a[3])...)...)
			}
		}
		for _, lv := range reLabelVal.FindAllStringSubmatch(tg.expr, -1) {
			need(lv[1], lv[2])
		}
		if len(names) == 1 && !reAgg.MatchString(tg.expr) {
			for _, l := range reLegend.FindAllStringSubmatch(tg.legend, -1) {
				need(names[0], l[1])
			}
		}
	}
	return req
}

func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// gaugeValue returns the value of the series of fam whose labels include want.
func gaugeValue(fams map[string]*dto.MetricFamily, fam string, want map[string]string) (float64, bool) {
	f := fams[fam]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, lp := range m.Label {
			have[lp.GetName()] = lp.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		return m.GetGauge().GetValue(), true
	}
	return 0, false
}

func TestConformance_Metrics_DashboardSeries(t *testing.T) {
	c := startCluster(t, nil)
	srv, err := metrics.Listen(metrics.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	srv.Registry.MustRegister(metrics.NewBrokerCollector(c.broker), c.broker.Figures())
	w := newWire(t, c.broker.Addr())

	// Workload: 40 sends, a push consumer that takes them all; the group's retry topic
	// and its dead-letter topic exist (the exporter lists both kinds).
	topic, group := unique("Dash"), unique("DashG")
	p := newProducer(t, c.nsAddr())
	for i := 0; i < 40; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("dash-%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	got := newReceived()
	stop := startPushConsumer(t, c.nsAddr(), group, topic, all, collect(got))
	eventually(t, 30*time.Second, "40 consumed", func() bool { n, _ := got.count(); return n == 40 })
	c.broker.EnableClientMetrics(time.Second) // metricsClientStatsEnable, polled every second here
	eventually(t, 30*time.Second, "the consumer's running info polled", func() bool {
		v, ok := gaugeValue(scrape(t, srv.Addr()), "rocketmq_client_consumer_pull_tps", map[string]string{"group": group, "topic": topic})
		return ok && v >= 0
	})
	dlq := "%DLQ%" + group
	if r := w.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: dlq, DefaultTopic: "TBW102",
		ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6, TopicFilterType: "SINGLE_TAG"}, nil); r.Code != 0 {
		t.Fatalf("create %s: %d %s", dlq, r.Code, r.Remark)
	}
	retry := "%RETRY%" + group
	eventually(t, 30*time.Second, "the consumer's offsets committed", func() bool {
		r := w.call(protocol.CodeGetConsumeStats, &protocol.GetConsumeStatsRequestHeader{ConsumerGroup: group, Topic: topic}, nil)
		var cs struct {
			OffsetTable map[string]struct{ BrokerOffset, ConsumerOffset int64 } `json:"offsetTable"`
		}
		stdJSON(t, r.Body, &cs)
		var done int64
		for _, v := range cs.OffsetTable {
			done += v.ConsumerOffset
		}
		return done == 40
	})
	if _, ok := c.broker.TopicConfig(retry); ok {
		// The client commits its retry queue's offset like any other; commit it here too so
		// the retry series exist however the client batches its commits.
		w.call(protocol.CodeUpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: retry}, nil)
	} else {
		t.Fatalf("the consumer's retry topic %s was not created", retry)
	}
	// Series and label keys: scraped while the consumer is online (its client series).
	clientFams := scrape(t, srv.Addr())
	stop() // quiescent from here: the values below do not move

	req := map[string]map[string]bool{}
	for _, f := range []string{"testdata/dashboards/rocketmq_exporter_overview.json", "testdata/dashboards/rocketmq_exporter.json"} {
		tg := dashboardTargets(t, f)
		if len(tg) < 20 {
			t.Fatalf("%s: only %d queries found", f, len(tg))
		}
		for m, ls := range requiredLabels(tg) {
			if req[m] == nil {
				req[m] = map[string]bool{}
			}
			for l := range ls {
				req[m][l] = true
			}
		}
	}
	fams := clientFams
	names := make([]string, 0, len(req))
	for m := range req {
		names = append(names, m)
	}
	sort.Strings(names)
	served := 0
	for _, m := range names {
		f := fams[m]
		if why, skip := notServed[m]; skip {
			if f != nil && len(f.Metric) > 0 {
				t.Errorf("%s is served now: remove it from notServed (%s)", m, why)
			}
			continue
		}
		if f == nil || len(f.Metric) == 0 {
			t.Errorf("%s: queried by a dashboard, not served", m)
			continue
		}
		if f.GetType() != dto.MetricType_GAUGE {
			t.Errorf("%s: type %v, want gauge (as the exporter)", m, f.GetType())
		}
		for l := range req[m] {
			if !hasLabel(f, l) {
				t.Errorf("%s: no label %q (a dashboard query uses it)", m, l)
			}
		}
		served++
	}
	t.Logf("%d series names queried by the dashboards, %d served, %d not built (%v)", len(names), served, len(notServed), sortedNames(notServed))
	if served < 45 {
		t.Errorf("only %d dashboard series served", served)
	}

	// Values, against the admin codes at the same moment. The stats windows move every
	// 10 s: retry until a scrape before and after the admin calls agree.
	eventually(t, 60*time.Second, "scrape and admin codes agree", func() bool {
		before := scrape(t, srv.Addr())
		kvResp := w.call(protocol.CodeGetBrokerRuntimeInfo, nil, nil)
		var kv struct{ Table map[string]string }
		stdJSON(t, kvResp.Body, &kv)
		ts := w.call(protocol.CodeGetTopicStatsInfo, &protocol.GetTopicStatsInfoRequestHeader{Topic: topic}, nil)
		var tstats struct {
			OffsetTable map[string]struct{ MaxOffset int64 } `json:"offsetTable"`
		}
		stdJSON(t, ts.Body, &tstats)
		csr := w.call(protocol.CodeGetConsumeStats, &protocol.GetConsumeStatsRequestHeader{ConsumerGroup: group, Topic: topic}, nil)
		var cstats struct {
			OffsetTable map[string]struct{ BrokerOffset, ConsumerOffset int64 } `json:"offsetTable"`
		}
		stdJSON(t, csr.Body, &cstats)
		view := func(name, key string) float64 {
			r := w.call(protocol.CodeViewBrokerStatsData, &protocol.ViewBrokerStatsDataRequestHeader{StatsName: name, StatsKey: key}, nil)
			if r.Code != 0 {
				return math.NaN()
			}
			var bs struct{ StatsMinute struct{ Tps float64 } }
			stdJSON(t, r.Body, &bs)
			return bs.StatsMinute.Tps
		}
		cluster := c.opts.ClusterName
		brokerTPS, brokerQPS := view("BROKER_PUT_NUMS", cluster), view("BROKER_GET_NUMS", cluster)
		topicTPS, groupTPS := view("TOPIC_PUT_NUMS", topic), view("GROUP_GET_NUMS", topic+"@"+group)
		after := scrape(t, srv.Addr())

		var maxSum, consSum, diff float64
		for _, v := range tstats.OffsetTable {
			maxSum += float64(v.MaxOffset)
		}
		for _, v := range cstats.OffsetTable {
			consSum += float64(v.ConsumerOffset)
			diff += float64(v.BrokerOffset - v.ConsumerOffset)
		}
		type check struct {
			fam    string
			labels map[string]string
			want   float64
		}
		checks := []check{
			{"rocketmq_producer_offset", map[string]string{"topic": topic}, maxSum},
			{"rocketmq_consumer_offset", map[string]string{"topic": topic, "group": group}, consSum},
			{"rocketmq_group_diff", map[string]string{"topic": topic, "group": group}, diff},
			{"rocketmq_broker_tps", nil, brokerTPS},
			{"rocketmq_broker_qps", nil, brokerQPS},
			{"rocketmq_producer_tps", map[string]string{"topic": topic}, topicTPS},
			{"rocketmq_consumer_tps", map[string]string{"topic": topic, "group": group}, groupTPS},
		}
		for _, fam := range []string{"rocketmq_brokeruntime_msg_put_total_today_now", "rocketmq_brokeruntime_msg_gettotal_today_now",
			"rocketmq_brokeruntime_commitlog_maxoffset", "rocketmq_brokeruntime_commitlog_minoffset",
			"rocketmq_brokeruntime_putmessage_times_total", "rocketmq_brokeruntime_put_message_size_total",
			"rocketmq_brokeruntime_put_message_average_size", "rocketmq_brokeruntime_earliest_message_timestamp",
			"rocketmq_brokeruntime_msg_puttotal_todaymorning", "rocketmq_brokeruntime_send_threadpoolqueue_capacity",
			"rocketmq_brokeruntime_remain_transientstore_buffer_numbs", "rocketmq_brokeruntime_dispatch_behind_bytes"} {
			v, ok := metrics.RuntimeValue(fam, kv.Table)
			if !ok {
				t.Fatalf("GET_BROKER_RUNTIME_INFO lacks what %s reads: %v", fam, kv.Table)
			}
			checks = append(checks, check{fam, nil, v})
		}
		agree := true
		for _, ck := range checks {
			b, ok1 := gaugeValue(before, ck.fam, ck.labels)
			a, ok2 := gaugeValue(after, ck.fam, ck.labels)
			if !ok1 || !ok2 {
				t.Fatalf("%s%v not served", ck.fam, ck.labels)
			}
			if b != a || math.Abs(a-ck.want) > 1e-9*math.Max(1, math.Abs(a)) {
				t.Logf("%s%v: scrape %v then %v, admin %v", ck.fam, ck.labels, b, a, ck.want)
				agree = false
			}
		}
		if maxSum != 40 || consSum != 40 {
			t.Fatalf("admin: max offsets %v, consumer offsets %v, want 40 and 40", maxSum, consSum)
		}
		return agree
	})

	// A consumer gone is gone from the client series at the next poll.
	eventually(t, 30*time.Second, "the stopped consumer's client series gone", func() bool {
		_, ok := gaugeValue(scrape(t, srv.Addr()), "rocketmq_client_consumer_pull_tps", map[string]string{"group": group})
		return !ok
	})
	// A deleted topic disappears from the next scrape.
	w.call(protocol.CodeDeleteTopicInBroker, &protocol.DeleteTopicRequestHeader{Topic: topic}, nil)
	fams = scrape(t, srv.Addr())
	if _, ok := gaugeValue(fams, "rocketmq_producer_offset", map[string]string{"topic": topic}); ok {
		t.Errorf("deleted topic %s still served", topic)
	}
}

func hasLabel(f *dto.MetricFamily, l string) bool {
	for _, m := range f.Metric {
		for _, lp := range m.Label {
			if lp.GetName() == l {
				return true
			}
		}
	}
	return false
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
