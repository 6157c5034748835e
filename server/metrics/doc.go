// Package metrics is a node's HTTP endpoint: Prometheus text on /metrics, liveness on
// /healthz, readiness on /readyz and, when asked for, net/http/pprof under /debug/pprof/.
// It runs on net/http's goroutines, never on a gnet event loop.
//
// For the broker it serves rocketmq-exporter's 89 gauge families (exporter_families.go:
// the same names, HELP texts, label keys and the gauge type, so Grafana dashboard 10477
// and the exporter's second dashboard work with no exporter) computed on each scrape
// from the broker's own state through BrokerSource (a custom prometheus.Collector:
// nothing is cached, so a deleted topic or group is gone from the next scrape), the
// runtime families parsed from the GET_BROKER_RUNTIME_INFO table exactly as the exporter
// parses it (runtime.go), and the broker's own figures (figures.go): send and pull
// latency histograms, the SYNC_FLUSH/SYNC_MASTER group commit's size and wait, the
// CommitLog flush's time (skyrocket_store_commitlog_flush_seconds), HA lag
// per slave, held pulls, pool queues, connections; plus client_golang's Go runtime and
// process collectors. The exporter reads masters only; a slave serves only its own
// figures. The NameServer gets a few route-table gauges (namesrv.go).
//
// The six rocketmq_client_* families need a GET_CONSUMER_RUNNING_INFO (307) call to every
// consumer: the broker makes them from a background goroutine once a minute when
// metricsClientStatsEnable is set (off by default). rocketmq_group_dlqdiff,
// rocketmq_group_consume_tps and rocketmq_group_consume_total_offset are declared and stay
// empty, as in the exporter.
//
// The package imports no other package of this repository: the broker and the server
// package implement its interfaces.
package metrics
