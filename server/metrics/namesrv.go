package metrics

import "github.com/prometheus/client_golang/prometheus"

// NamesrvFigures are a NameServer's figures at one moment.
type NamesrvFigures struct {
	LiveBrokers  int    // broker addresses registered and not expired
	BrokerNames  int    // broker names (master/slave sets)
	Clusters     int    // clusters
	Topics       int    // topics with a route
	RouteVersion uint64 // bumped at every route change
}

var (
	descNsLiveBrokers = prometheus.NewDesc("skyrocket_namesrv_live_brokers", "Broker addresses registered with this NameServer and not expired.", nil, nil)
	descNsBrokerNames = prometheus.NewDesc("skyrocket_namesrv_broker_names", "Broker names (master/slave sets) known to this NameServer.", nil, nil)
	descNsClusters    = prometheus.NewDesc("skyrocket_namesrv_clusters", "Clusters known to this NameServer.", nil, nil)
	descNsTopics      = prometheus.NewDesc("skyrocket_namesrv_topics", "Topics with a route on this NameServer.", nil, nil)
	descNsVersion     = prometheus.NewDesc("skyrocket_namesrv_route_version", "Route table version, bumped at every change.", nil, nil)
)

// NamesrvCollector is a prometheus.Collector over a NameServer's route table, read at
// each scrape through read.
type NamesrvCollector struct{ read func() NamesrvFigures }

// NewNamesrvCollector returns the collector.
func NewNamesrvCollector(read func() NamesrvFigures) *NamesrvCollector {
	return &NamesrvCollector{read: read}
}

// Describe implements prometheus.Collector.
func (c *NamesrvCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descNsLiveBrokers, descNsBrokerNames, descNsClusters, descNsTopics, descNsVersion} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *NamesrvCollector) Collect(ch chan<- prometheus.Metric) {
	f := c.read()
	g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	g(descNsLiveBrokers, float64(f.LiveBrokers))
	g(descNsBrokerNames, float64(f.BrokerNames))
	g(descNsClusters, float64(f.Clusters))
	g(descNsTopics, float64(f.Topics))
	g(descNsVersion, float64(f.RouteVersion))
}
