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
		{Code: protocol.CodeSendMessage, Handler: b.sendMessage, Borrow: true},                                            // 10
		{Code: protocol.CodePullMessage, Handler: b.pullMessage, Pool: p.pull},                                            // 11
		{Code: protocol.CodeQueryMessage, Handler: b.queryMessage, Pool: p.query},                                         // 12
		{Code: protocol.CodeQueryConsumerOffset, Handler: b.queryConsumerOffset, Borrow: true},                            // 14
		{Code: protocol.CodeUpdateConsumerOffset, Handler: b.updateConsumerOffset, Borrow: true},                          // 15
		{Code: protocol.CodeUpdateAndCreateTopic, Handler: b.updateAndCreateTopic, Pool: p.admin},                         // 17
		{Code: protocol.CodeGetAllTopicConfig, Handler: b.getAllTopicConfig, Pool: p.admin},                               // 21
		{Code: protocol.CodeUpdateBrokerConfig, Handler: b.updateBrokerConfig, Pool: p.admin},                             // 25
		{Code: protocol.CodeGetBrokerConfig, Handler: b.getBrokerConfig, Pool: p.admin},                                   // 26
		{Code: protocol.CodeGetBrokerRuntimeInfo, Handler: b.getBrokerRuntimeInfo, Pool: p.admin},                         // 28
		{Code: protocol.CodeSearchOffsetByTimestamp, Handler: b.searchOffsetByTimestamp, Borrow: true},                    // 29
		{Code: protocol.CodeGetMaxOffset, Handler: b.getMaxOffset, Borrow: true},                                          // 30
		{Code: protocol.CodeGetMinOffset, Handler: b.getMinOffset, Borrow: true},                                          // 31
		{Code: protocol.CodeGetEarliestMsgStoretime, Handler: b.getEarliestMsgStoretime, Borrow: true},                    // 32
		{Code: protocol.CodeViewMessageById, Handler: b.viewMessageByID, Pool: p.query},                                   // 33
		{Code: protocol.CodeHeartBeat, Handler: b.heartBeat, Pool: p.client},                                              // 34
		{Code: protocol.CodeUnregisterClient, Handler: b.unregisterClient, Pool: p.client},                                // 35
		{Code: protocol.CodeConsumerSendMsgBack, Handler: b.consumerSendMsgBack, Pool: p.send},                            // 36
		{Code: protocol.CodeEndTransaction, Handler: b.endTransaction, Pool: p.send},                                      // 37
		{Code: protocol.CodeGetConsumerListByGroup, Handler: b.getConsumerListByGroup},                                    // 38
		{Code: protocol.CodeLockBatchMq, Handler: b.lockBatchMQ},                                                          // 41
		{Code: protocol.CodeUnlockBatchMq, Handler: b.unlockBatchMQ},                                                      // 42
		{Code: protocol.CodeGetAllConsumerOffset, Handler: b.getAllConsumerOffset, Pool: p.admin},                         // 43
		{Code: protocol.CodeGetAllDelayOffset, Handler: b.getAllDelayOffset, Pool: p.admin},                               // 45
		{Code: protocol.CodeCheckClientConfig, Handler: b.checkClientConfig, Pool: p.client},                              // 46
		{Code: protocol.CodeUpdateAndCreateAclConfig, Handler: b.updateAndCreateACLConfig, Pool: p.admin},                 // 50
		{Code: protocol.CodeDeleteAclConfig, Handler: b.deleteACLConfig, Pool: p.admin},                                   // 51
		{Code: protocol.CodeGetBrokerClusterAclInfo, Handler: b.getBrokerClusterACLInfo, Pool: p.admin},                   // 52
		{Code: protocol.CodeUpdateGlobalWhiteAddrsConfig, Handler: b.updateGlobalWhiteAddrsConfig, Pool: p.admin},         // 53
		{Code: protocol.CodeUpdateAndCreateSubscriptiongroup, Handler: b.updateAndCreateSubscriptionGroup, Pool: p.admin}, // 200
		{Code: protocol.CodeGetAllSubscriptiongroupConfig, Handler: b.getAllSubscriptionGroupConfig, Pool: p.admin},       // 201
		{Code: protocol.CodeGetTopicStatsInfo, Handler: b.getTopicStatsInfo, Pool: p.admin},                               // 202
		{Code: protocol.CodeGetConsumerConnectionList, Handler: b.getConsumerConnectionList, Pool: p.admin},               // 203
		{Code: protocol.CodeGetProducerConnectionList, Handler: b.getProducerConnectionList, Pool: p.admin},               // 204
		{Code: protocol.CodeDeleteSubscriptiongroup, Handler: b.deleteSubscriptionGroup, Pool: p.admin},                   // 207
		{Code: protocol.CodeGetConsumeStats, Handler: b.getConsumeStats, Pool: p.admin},                                   // 208
		{Code: protocol.CodeDeleteTopicInBroker, Handler: b.deleteTopicInBroker, Pool: p.admin},                           // 215
		{Code: protocol.CodeInvokeBrokerToResetOffset, Handler: b.invokeBrokerToResetOffset, Pool: p.admin},               // 222
		{Code: protocol.CodeInvokeBrokerToGetConsumerStatus, Handler: b.invokeBrokerToGetConsumerStatus, Pool: p.admin},   // 223
		{Code: protocol.CodeQueryTopicConsumeByWho, Handler: b.queryTopicConsumeByWho, Pool: p.admin},                     // 300
		{Code: protocol.CodeQueryConsumeTimeSpan, Handler: b.queryConsumeTimeSpan, Pool: p.admin},                         // 303
		{Code: protocol.CodeGetSystemTopicListFromBroker, Handler: b.getSystemTopicListFromBroker, Pool: p.admin},         // 305
		{Code: protocol.CodeCleanExpiredConsumequeue, Handler: b.cleanExpiredConsumeQueue, Pool: p.admin},                 // 306
		{Code: protocol.CodeGetConsumerRunningInfo, Handler: b.getConsumerRunningInfo, Pool: p.admin},                     // 307
		{Code: protocol.CodeQueryCorrectionOffset, Handler: b.queryCorrectionOffset, Pool: p.admin},                       // 308
		{Code: protocol.CodeConsumeMessageDirectly, Handler: b.consumeMessageDirectly, Pool: p.admin},                     // 309
		{Code: protocol.CodeSendMessageV2, Handler: b.sendMessage, Borrow: true},                                          // 310
		{Code: protocol.CodeCloneGroupOffset, Handler: b.cloneGroupOffset, Pool: p.admin},                                 // 314
		{Code: protocol.CodeViewBrokerStatsData, Handler: b.viewBrokerStatsData, Pool: p.admin},                           // 315
		{Code: protocol.CodeCleanUnusedTopic, Handler: b.cleanUnusedTopic, Pool: p.admin},                                 // 316
		{Code: protocol.CodeGetBrokerConsumeStats, Handler: b.getBrokerConsumeStats, Pool: p.admin},                       // 317
		{Code: protocol.CodeSendBatchMessage, Handler: b.sendMessage, Borrow: true},                                       // 320
		{Code: protocol.CodeQueryConsumeQueue, Handler: b.queryConsumeQueue, Pool: p.admin},                               // 321
		{Code: protocol.CodeResumeCheckHalfMessage, Handler: b.resumeCheckHalfMessage, Pool: p.admin},                     // 323
		{Code: protocol.CodeSendReplyMessage, Handler: b.sendReplyMessage, Pool: p.send},                                  // 324
		{Code: protocol.CodeSendReplyMessageV2, Handler: b.sendReplyMessage, Pool: p.send},                                // 325
		{Code: protocol.CodeGetAllProducerInfo, Handler: b.getAllProducerInfo, Pool: p.admin},                             // 328
		{Code: protocol.CodeDeleteExpiredCommitlog, Handler: b.deleteExpiredCommitLog, Pool: p.admin},                     // 329
	}
}
