package configs

import (
	"fmt"
	"strconv"
)

// Skyrocket's own keys, no Java 4.x config object has them: they stay in FileProps
// (GET_BROKER_CONFIG reports them only when the file sets them, as Java reports any
// key of its file) and are not reported as unknown.
const (
	// KeyMetricsPort is the port of the HTTP endpoint serving /metrics, /healthz and
	// /readyz; 0 turns it off. The broker's default is 5557 (rocketmq-exporter's port,
	// and the 5.x broker's metricsPromExporterPort); the NameServer's 5558.
	KeyMetricsPort = "metricsPort"
	// KeyMetricsPprofEnable serves net/http/pprof under /debug/pprof/ on that endpoint.
	KeyMetricsPprofEnable = "metricsPprofEnable"
	// KeyMetricsClientStatsEnable makes a broker ask every online consumer for its
	// running info (GET_CONSUMER_RUNNING_INFO) once a minute, as rocketmq-exporter does,
	// for the rocketmq_client_* families. Off by default: a request to every client.
	KeyMetricsClientStatsEnable = "metricsClientStatsEnable"
)

// Default metrics ports.
const (
	DefaultBrokerMetricsPort  = 5557
	DefaultNamesrvMetricsPort = 5558
)

func isSkyrocketKey(k string) bool {
	return k == KeyMetricsPort || k == KeyMetricsPprofEnable || k == KeyMetricsClientStatsEnable
}

// Metrics are the HTTP endpoint's settings.
type Metrics struct {
	Port        int // 0: off
	Pprof       bool
	ClientStats bool // a broker polls its consumers for rocketmq_client_*
}

// MetricsFrom reads the metrics keys of props, with def as the default port.
func MetricsFrom(props map[string]string, def int) (Metrics, error) {
	m := Metrics{Port: def}
	if v, ok := props[KeyMetricsPort]; ok {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return m, fmt.Errorf("%w: %s=%q", ErrInvalidValue, KeyMetricsPort, v)
		}
		m.Port = p
	}
	if v, ok := props[KeyMetricsPprofEnable]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return m, fmt.Errorf("%w: %s=%q", ErrInvalidValue, KeyMetricsPprofEnable, v)
		}
		m.Pprof = b
	}
	if v, ok := props[KeyMetricsClientStatsEnable]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return m, fmt.Errorf("%w: %s=%q", ErrInvalidValue, KeyMetricsClientStatsEnable, v)
		}
		m.ClientStats = b
	}
	return m, nil
}
