package stats

// Minute-window reads for the metrics endpoint (server/metrics): the same figures
// VIEW_BROKER_STATS_DATA (315) answers, without parsing a Java key per series.

// BrokerMinute returns the minute tps of BROKER_PUT_NUMS and BROKER_GET_NUMS.
func (s *Manager) BrokerMinute() (putTPS, getTPS float64) {
	s.init()
	return s.brokerPutNums.minuteTPS(statsKey{}), s.brokerGetNums.minuteTPS(statsKey{})
}

// TopicPutMinute returns the minute tps of TOPIC_PUT_NUMS and TOPIC_PUT_SIZE of topic.
func (s *Manager) TopicPutMinute(topic string) (numsTPS, sizeTPS float64) {
	s.init()
	k := statsKey{topic: topic}
	return s.topicPutNums.minuteTPS(k), s.topicPutSize.minuteTPS(k)
}

// GroupGetMinute returns the minute tps of GROUP_GET_NUMS and GROUP_GET_SIZE and the
// minute sum of SNDBCK_PUT_NUMS of group on topic.
func (s *Manager) GroupGetMinute(group, topic string) (numsTPS, sizeTPS float64, sendBackSum int64) {
	s.init()
	k := statsKey{topic: topic, group: group}
	if it := s.sndbckPutNums.get(k); it != nil {
		sendBackSum = it.window(&it.minute).Sum
	}
	return s.groupGetNums.minuteTPS(k), s.groupGetSize.minuteTPS(k), sendBackSum
}

func (s *statsSet) minuteTPS(k statsKey) float64 {
	it := s.get(k)
	if it == nil {
		return 0
	}
	return it.window(&it.minute).TPS
}
