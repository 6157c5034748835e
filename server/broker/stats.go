package broker

import (
	"sync/atomic"
)

// brokerStats counts what the runtime-info and stats requests report (Java:
// BrokerStatsManager, BrokerStats). Counters are cumulative since start.
type brokerStats struct {
	putNums      atomic.Int64 // messages stored
	putBytes     atomic.Int64
	getNums      atomic.Int64 // messages handed to consumers
	getBytes     atomic.Int64
	sendBackNums atomic.Int64
}

func (s *brokerStats) start(*Broker) {}

// groupGetTPS is the messages per second the group pulled from topic over the last minute
// (Java: BrokerStatsManager#tpsGroupGetNums). Not tracked yet: reported as 0.
func (s *brokerStats) groupGetTPS(group, topic string) float64 { return 0 }

func (s *brokerStats) incPut(n, size int64) {
	s.putNums.Add(n)
	s.putBytes.Add(size)
}

func (s *brokerStats) incGet(n, size int64) {
	s.getNums.Add(n)
	s.getBytes.Add(size)
}
