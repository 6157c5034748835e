package namesrv

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// handlers is the NameServer's dispatch table, sorted by code (Java:
// DefaultRequestProcessor#processRequest). Lookups run inline on the event loop; what
// may take long runs on a pool of 8 workers (Java: serverWorkerThreads): registration
// (decodes and inflates the broker's topic table), unregistration, writes of
// kvConfig.json or the config file (fsync), and answers that walk the whole table.
func (s *Server) handlers() []remoting.Route {
	p := &remoting.Pool{Name: "namesrv", Workers: 8, Queue: 10000}
	return []remoting.Route{
		{Code: protocol.CodePutKvConfig, Handler: s.putKVConfig, Pool: p},                                // 100
		{Code: protocol.CodeGetKvConfig, Handler: s.getKVConfig},                                         // 101
		{Code: protocol.CodeDeleteKvConfig, Handler: s.deleteKVConfig, Pool: p},                          // 102
		{Code: protocol.CodeRegisterBroker, Handler: s.registerBroker, Pool: p},                          // 103
		{Code: protocol.CodeUnregisterBroker, Handler: s.unregisterBroker, Pool: p},                      // 104
		{Code: protocol.CodeGetRouteinfoByTopic, Handler: s.getRouteInfoByTopic, Borrow: true},           // 105: keeps nothing of the request
		{Code: protocol.CodeGetBrokerClusterInfo, Handler: s.getBrokerClusterInfo, Pool: p},              // 106
		{Code: protocol.CodeWipeWritePermOfBroker, Handler: s.wipeWritePermOfBroker},                     // 205
		{Code: protocol.CodeGetAllTopicListFromNameserver, Handler: s.getAllTopicList, Pool: p},          // 206
		{Code: protocol.CodeDeleteTopicInNamesrv, Handler: s.deleteTopicInNamesrv, Pool: p},              // 216
		{Code: protocol.CodeGetKvlistByNamespace, Handler: s.getKVListByNamespace},                       // 219
		{Code: protocol.CodeGetTopicsByCluster, Handler: s.getTopicsByCluster, Pool: p},                  // 224
		{Code: protocol.CodeGetSystemTopicListFromNs, Handler: s.getSystemTopicList, Pool: p},            // 304
		{Code: protocol.CodeGetUnitTopicList, Handler: s.getUnitTopicList, Pool: p},                      // 311
		{Code: protocol.CodeGetHasUnitSubTopicList, Handler: s.getHasUnitSubTopicList, Pool: p},          // 312
		{Code: protocol.CodeGetHasUnitSubUnunitTopicList, Handler: s.getHasUnitSubUnUnitTopics, Pool: p}, // 313
		{Code: protocol.CodeUpdateNamesrvConfig, Handler: s.updateConfig, Pool: p},                       // 318
		{Code: protocol.CodeGetNamesrvConfig, Handler: s.getConfig},                                      // 319
		{Code: protocol.CodeQueryDataVersion, Handler: s.queryDataVersion},                               // 322
		{Code: protocol.CodeAddWritePermOfBroker, Handler: s.addWritePermOfBroker},                       // 327
	}
}

func success(req *protocol.Command) *protocol.Command {
	return protocol.NewResponse(req, protocol.ResSuccess, "")
}
