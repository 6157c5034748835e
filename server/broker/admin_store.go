package broker

// Store administration and inspection. Java: AdminBrokerProcessor.
//
//   - GET_SYSTEM_TOPIC_LIST_FROM_BROKER (305): TopicList of TopicValidator's system
//     topics: the built-in ones plus the cluster and broker name topics and the trace
//     topic when traceTopicEnable (Java adds those at start), sorted.
//   - CLEAN_EXPIRED_CONSUMEQUEUE (306): destroys the ConsumeQueues whose every unit
//     points before the first CommitLog file (never SCHEDULE_TOPIC_XXXX).
//   - DELETE_EXPIRED_COMMITLOG (329): the store's cleaner deletes expired CommitLog files
//     on its next rounds even outside deleteWhen (Java: executeDeleteFilesManually).
//   - CLEAN_UNUSED_TOPIC (316): destroys the ConsumeQueues of topics the broker no
//     longer has (not the schedule, transaction-op and LMQ topics); their statistics go
//     too when autoDeleteUnusedStats.
//   - QUERY_CONSUME_QUEUE (321): count units of one ConsumeQueue from index, with its
//     min and max index; with consumerGroup, the group's subscription and its SQL92
//     filter data (pretty JSON, "null" without one) or "<group>@<topic> is not online!".
//     A queue that never received a message is "<queueId>@<topic> is not exist!" (Java
//     also counts queues some read created); an index outside the queue answers SUCCESS
//     with remark "Index <i> of <queueId>@<topic> is not exist!" and no body, as Java.
//     ConsumeQueue extension units (enableConsumeQueueExt) are not built, so the ext
//     fields never appear.
//   - GET_ALL_PRODUCER_INFO (328): ProducerTableInfo {"data":{group:[ProducerInfo..]}}
//     (remoteIP as Java's SocketAddress#toString, "/ip:port").

import (
	"github.com/skyrocket-mq/skyrocket/store/timer"
	"sort"
	"strconv"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) getSystemTopicListFromBroker(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	// Java: TopicConfigManager's constructor adds the cluster, the broker and the
	// <cluster>_REPLY_TOPIC to TopicValidator's system topics, which this answers.
	set := map[string]bool{b.opts.ClusterName: true, b.opts.BrokerName: true, b.opts.ClusterName + "_" + meta.ReplyTopicPostfix: true}
	for _, t := range meta.SystemTopicSet() {
		set[t] = true
	}
	if b.opts.TraceTopicEnable {
		set[b.opts.MsgTraceTopicName] = true
	}
	list := protocol.TopicList{TopicList: make([]string, 0, len(set))}
	for t := range set {
		list.TopicList = append(list.TopicList, t)
	}
	sort.Strings(list.TopicList)
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = list.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) cleanExpiredConsumeQueue(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	b.log.Warn().Msg("invoke cleanExpiredConsumeQueue start.")
	b.store.CleanExpiredConsumeQueue()
	b.log.Warn().Msg("invoke cleanExpiredConsumeQueue end.")
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) deleteExpiredCommitLog(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	b.log.Warn().Msg("invoke deleteExpiredCommitLog start.")
	b.store.ExecuteDeleteFilesManually()
	b.log.Warn().Msg("invoke deleteExpiredCommitLog end.")
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) cleanUnusedTopic(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	b.log.Warn().Msg("invoke cleanUnusedTopic start.")
	keep := map[string]bool{}
	for _, t := range b.topics.Names() {
		keep[t] = true
	}
	keep[timer.Topic] = true // the timing wheel's parked messages (timer.go), not in the topic table
	before := b.store.Topics()
	b.store.CleanUnusedTopics(keep)
	if b.autoDeleteUnusedStats() {
		after := map[string]bool{}
		for _, t := range b.store.Topics() {
			after[t] = true
		}
		for _, t := range before {
			if !after[t] {
				b.stats.OnTopicDeleted(t)
			}
		}
	}
	b.log.Warn().Msg("invoke cleanUnusedTopic end.")
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) queryConsumeQueue(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryConsumeQueueRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	maxIndex := b.store.MaxOffsetInQueue(h.Topic, h.QueueID)
	if maxIndex <= 0 {
		return nil, protocol.Errorf(protocol.ResSystemError, "%d@%s is not exist!", h.QueueID, h.Topic)
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	var filterData string
	var sub *protocol.SubscriptionData
	if !isBlank(h.ConsumerGroup) {
		if s, ok := b.consumers.Subscription(h.ConsumerGroup, h.Topic); ok {
			sub = &s
			filterData = "null"
			if fd, ok := b.filters.Get(h.Topic, h.ConsumerGroup); ok {
				filterData = string(compat.PrettyFastJSON(fd.AppendJSON(nil)))
			}
		} else {
			filterData = h.ConsumerGroup + "@" + h.Topic + " is not online!"
		}
	}
	units := b.store.ConsumeQueueUnits(h.Topic, h.QueueID, h.Index, int(h.Count))
	if len(units) == 0 {
		resp.SetRemark("Index " + strconv.FormatInt(h.Index, 10) + " of " + strconv.Itoa(int(h.QueueID)) + "@" + h.Topic + " is not exist!")
		return resp, nil
	}
	body := protocol.QueryConsumeQueueResponseBody{SubscriptionData: sub, FilterData: filterData, MaxQueueIndex: maxIndex,
		MinQueueIndex: b.store.MinOffsetInQueue(h.Topic, h.QueueID), QueueData: make([]protocol.ConsumeQueueData, len(units))}
	for i, u := range units {
		body.QueueData[i] = protocol.ConsumeQueueData{PhysicOffset: u.PhyOffset, PhysicSize: u.Size, TagsCode: u.TagsCode}
	}
	resp.Body = body.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) getAllProducerInfo(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	groups := b.producers.Groups()
	info := protocol.ProducerTableInfo{Data: make(map[string][]protocol.ProducerInfo, len(groups))}
	for g, chans := range groups {
		sort.Slice(chans, func(i, j int) bool { return chans[i].ClientID < chans[j].ClientID })
		list := make([]protocol.ProducerInfo, len(chans))
		for i, c := range chans {
			list[i] = protocol.ProducerInfo{ClientID: c.ClientID, RemoteIP: "/" + c.Conn.RemoteAddr(), Language: c.Language,
				Version: c.Version, LastUpdateTimestamp: c.LastUpdate.UnixMilli()}
		}
		info.Data[g] = list
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = info.AppendJSON(nil)
	return resp, nil
}
