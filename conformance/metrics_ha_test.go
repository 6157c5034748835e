package conformance

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
)

// TestHA_Metrics_SlaveLagAndGroupCommit: a SYNC_MASTER's /metrics collector reports its
// slave (skyrocket_broker_ha_slave_lag_bytes and the exporter's
// rocketmq_broker_commitlog_diff, labelled with the slave's address, 0 once caught up)
// and the sends that waited for the slave (the group-commit histograms); the slave
// serves none of the exporter's families (the exporter reads masters only).
func TestHA_Metrics_SlaveLagAndGroupCommit(t *testing.T) {
	p := startHAPair(t, broker.RoleSyncMaster, nil)
	topic := unique("TMH")
	prod := newProducer(t, p.ns.Addr())
	eventually(t, 20*time.Second, "the slave to connect", func() bool {
		res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("probe")))
		return err == nil && res.Status == primitive.SendOK
	})
	for i := 0; i < 20; i++ {
		if res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("m"))); err != nil || res.Status != primitive.SendOK {
			t.Fatalf("send %d: %v %v", i, res, err)
		}
	}
	p.waitCaughtUp(10 * time.Second)

	gather := func(b *broker.Broker) map[string][]string {
		reg := prometheus.NewRegistry()
		reg.MustRegister(metrics.NewBrokerCollector(b), b.Figures())
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, mf := range mfs {
			for _, m := range mf.Metric {
				var ls []string
				for _, lp := range m.Label {
					ls = append(ls, lp.GetName()+"="+lp.GetValue())
				}
				v := m.GetGauge().GetValue()
				if h := m.GetHistogram(); h != nil {
					v = float64(h.GetSampleCount())
				}
				out[mf.GetName()] = append(out[mf.GetName()], strings.Join(ls, ",")+" "+strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
		return out
	}
	eventually(t, 10*time.Second, "the master to report its slave caught up", func() bool {
		m := gather(p.master.broker)
		lag, diff := m["skyrocket_broker_ha_slave_lag_bytes"], m["rocketmq_broker_commitlog_diff"]
		return len(lag) == 1 && strings.HasSuffix(lag[0], " 0") && len(diff) == 1 && strings.HasSuffix(diff[0], " 0") &&
			strings.Contains(diff[0], "brokerIP=")
	})
	m := gather(p.master.broker)
	if w := m["skyrocket_broker_sync_flush_wait_seconds"]; len(w) != 1 || strings.HasSuffix(w[0], " 0") {
		t.Errorf("SYNC_MASTER sends waited for the slave, histogram %v", w)
	}
	if g := m["skyrocket_broker_sync_flush_group_size"]; len(g) != 1 || strings.HasSuffix(g[0], " 0") {
		t.Errorf("group size histogram %v", g)
	}
	s := gather(p.slave.broker)
	for name := range s {
		if strings.HasPrefix(name, "rocketmq_") {
			t.Errorf("the slave serves the exporter's %s", name)
		}
	}
	if len(s["skyrocket_broker_connections"]) != 1 {
		t.Errorf("the slave lacks its own figures: %v", s)
	}
}
