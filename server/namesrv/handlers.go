package namesrv

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// handlers is the NameServer's dispatch table, sorted by code (Java:
// DefaultRequestProcessor#processRequest). Every handler is cheap and runs inline.
func (s *Server) handlers() []remoting.Route {
	return []remoting.Route{
		{Code: protocol.CodePutKvConfig, Handler: s.putKVConfig},                                // 100
		{Code: protocol.CodeGetKvConfig, Handler: s.getKVConfig},                                // 101
		{Code: protocol.CodeDeleteKvConfig, Handler: s.deleteKVConfig},                          // 102
		{Code: protocol.CodeRegisterBroker, Handler: s.registerBroker},                          // 103
		{Code: protocol.CodeUnregisterBroker, Handler: s.unregisterBroker},                      // 104
		{Code: protocol.CodeGetRouteinfoByTopic, Handler: s.getRouteInfoByTopic, Borrow: true},  // 105: keeps nothing of the request
		{Code: protocol.CodeGetBrokerClusterInfo, Handler: s.getBrokerClusterInfo},              // 106
		{Code: protocol.CodeWipeWritePermOfBroker, Handler: s.wipeWritePermOfBroker},            // 205
		{Code: protocol.CodeGetAllTopicListFromNameserver, Handler: s.getAllTopicList},          // 206
		{Code: protocol.CodeDeleteTopicInNamesrv, Handler: s.deleteTopicInNamesrv},              // 216
		{Code: protocol.CodeGetKvlistByNamespace, Handler: s.getKVListByNamespace},              // 219
		{Code: protocol.CodeGetTopicsByCluster, Handler: s.getTopicsByCluster},                  // 224
		{Code: protocol.CodeGetSystemTopicListFromNs, Handler: s.getSystemTopicList},            // 304
		{Code: protocol.CodeGetUnitTopicList, Handler: s.getUnitTopicList},                      // 311
		{Code: protocol.CodeGetHasUnitSubTopicList, Handler: s.getHasUnitSubTopicList},          // 312
		{Code: protocol.CodeGetHasUnitSubUnunitTopicList, Handler: s.getHasUnitSubUnUnitTopics}, // 313
		{Code: protocol.CodeUpdateNamesrvConfig, Handler: s.updateConfig},                       // 318
		{Code: protocol.CodeGetNamesrvConfig, Handler: s.getConfig},                             // 319
		{Code: protocol.CodeQueryDataVersion, Handler: s.queryDataVersion},                      // 322
		{Code: protocol.CodeAddWritePermOfBroker, Handler: s.addWritePermOfBroker},              // 327
	}
}

func success(req *protocol.Command) *protocol.Command {
	return protocol.NewResponse(req, protocol.ResSuccess, "")
}
