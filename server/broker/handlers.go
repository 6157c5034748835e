package broker

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// handlers is the broker's dispatch table, sorted by code (Java:
// BrokerController#registerProcessor). Routes without a pool run inline on the event
// loop; Borrow routes read the request in place in the read buffer (they keep no string
// of it: managers clone the names they store); codes missing here answer REQUEST_CODE_NOT_SUPPORTED (Broker.unknownCode), and
// conformance/UNSUPPORTED.md lists them.
func (b *Broker) handlers() []remoting.Route {
	p := &b.pools
	return []remoting.Route{
		{Code: protocol.CodeSendMessage, Handler: b.sendMessage, Borrow: true},                                          // 10
		{Code: protocol.CodePullMessage, Handler: b.pullMessage, Pool: p.pull},                                          // 11
		{Code: protocol.CodeQueryMessage, Handler: b.queryMessage, Pool: p.query},                                       // 12
		{Code: protocol.CodeQueryConsumerOffset, Handler: b.queryConsumerOffset, Borrow: true},                          // 14
		{Code: protocol.CodeUpdateConsumerOffset, Handler: b.updateConsumerOffset, Borrow: true},                        // 15
		{Code: protocol.CodeUpdateAndCreateTopic, Handler: b.updateAndCreateTopic, Pool: p.admin},                       // 17
		{Code: protocol.CodeGetAllTopicConfig, Handler: b.getAllTopicConfig, Pool: p.admin},                             // 21
		{Code: protocol.CodeSearchOffsetByTimestamp, Handler: b.searchOffsetByTimestamp, Borrow: true},                  // 29
		{Code: protocol.CodeGetMaxOffset, Handler: b.getMaxOffset, Borrow: true},                                        // 30
		{Code: protocol.CodeGetMinOffset, Handler: b.getMinOffset, Borrow: true},                                        // 31
		{Code: protocol.CodeGetEarliestMsgStoretime, Handler: b.getEarliestMsgStoretime, Borrow: true},                  // 32
		{Code: protocol.CodeViewMessageById, Handler: b.viewMessageByID, Pool: p.query},                                 // 33
		{Code: protocol.CodeHeartBeat, Handler: b.heartBeat},                                                            // 34
		{Code: protocol.CodeUnregisterClient, Handler: b.unregisterClient},                                              // 35
		{Code: protocol.CodeConsumerSendMsgBack, Handler: b.consumerSendMsgBack, Pool: p.send},                          // 36
		{Code: protocol.CodeEndTransaction, Handler: b.endTransaction, Pool: p.send},                                    // 37
		{Code: protocol.CodeGetConsumerListByGroup, Handler: b.getConsumerListByGroup},                                  // 38
		{Code: protocol.CodeLockBatchMq, Handler: b.lockBatchMQ},                                                        // 41
		{Code: protocol.CodeUnlockBatchMq, Handler: b.unlockBatchMQ},                                                    // 42
		{Code: protocol.CodeGetAllConsumerOffset, Handler: b.getAllConsumerOffset, Pool: p.admin},                       // 43
		{Code: protocol.CodeGetAllDelayOffset, Handler: b.getAllDelayOffset, Pool: p.admin},                             // 45
		{Code: protocol.CodeCheckClientConfig, Handler: b.checkClientConfig},                                            // 46
		{Code: protocol.CodeGetAllSubscriptiongroupConfig, Handler: b.getAllSubscriptionGroupConfig, Pool: p.admin},     // 201
		{Code: protocol.CodeGetTopicStatsInfo, Handler: b.getTopicStatsInfo, Pool: p.admin},                             // 202
		{Code: protocol.CodeGetConsumerConnectionList, Handler: b.getConsumerConnectionList, Pool: p.admin},             // 203
		{Code: protocol.CodeGetProducerConnectionList, Handler: b.getProducerConnectionList, Pool: p.admin},             // 204
		{Code: protocol.CodeGetConsumeStats, Handler: b.getConsumeStats, Pool: p.admin},                                 // 208
		{Code: protocol.CodeDeleteTopicInBroker, Handler: b.deleteTopicInBroker, Pool: p.admin},                         // 215
		{Code: protocol.CodeInvokeBrokerToResetOffset, Handler: b.invokeBrokerToResetOffset, Pool: p.admin},             // 222
		{Code: protocol.CodeInvokeBrokerToGetConsumerStatus, Handler: b.invokeBrokerToGetConsumerStatus, Pool: p.admin}, // 223
		{Code: protocol.CodeQueryTopicConsumeByWho, Handler: b.queryTopicConsumeByWho, Pool: p.admin},                   // 300
		{Code: protocol.CodeGetConsumerRunningInfo, Handler: b.getConsumerRunningInfo, Pool: p.admin},                   // 307
		{Code: protocol.CodeConsumeMessageDirectly, Handler: b.consumeMessageDirectly, Pool: p.admin},                   // 309
		{Code: protocol.CodeSendMessageV2, Handler: b.sendMessage, Borrow: true},                                        // 310
		{Code: protocol.CodeSendBatchMessage, Handler: b.sendMessage, Borrow: true},                                     // 320
		{Code: protocol.CodeSendReplyMessage, Handler: b.sendReplyMessage, Pool: p.send},                                // 324
		{Code: protocol.CodeSendReplyMessageV2, Handler: b.sendReplyMessage, Pool: p.send},                              // 325
	}
}
