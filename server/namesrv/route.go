package namesrv

// GET_ROUTEINFO_BY_TOPIC (105), GET_BROKER_CLUSTER_INFO (106).
// Java: DefaultRequestProcessor#getRouteInfoByTopic / #getBrokerClusterInfo.
//
// - Requesters of version ≥ V4_9_4, or with acceptStandardJsonOnly=true, get standard JSON
//   (quoted broker-id keys); everyone else gets fastjson's unquoted numeric keys. Both
//   forms are compact and always carry brokerAddrs and queueDatas (the Go client panics or
//   rejects the route otherwise).
// - With orderMessageEnable, orderTopicConf comes from the ORDER_TOPIC_CONFIG namespace.
// - Unknown topic: TOPIC_NOT_EXIST with Java's remark and FAQ suffix.
// - Encoded routes are cached per topic until the route table or KV store changes, so a
//   route query is a map lookup and a write.

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// faqSuffix is FAQUrl.suggestTodo(FAQUrl.APPLY_TOPIC_URL).
const faqSuffix = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."

type cachedRoute struct {
	version uint64
	body    [2][]byte // [0] fastjson form, [1] standard JSON
}

type routeCache struct {
	m      sync.Map // topic → *cachedRoute
	kvGen  atomic.Uint64
	misses atomic.Uint64
}

func (s *Server) getRouteInfoByTopic(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetRouteInfoRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	standard := req.Version >= protocol.VersionV4_9_4 || (h.HasAcceptStandardJsonOnly && h.AcceptStandardJsonOnly)
	form := 0
	if standard {
		form = 1
	}
	ver := s.routes.Version()<<16 ^ s.cache.kvGen.Load()
	var cached *cachedRoute
	if v, ok := s.cache.m.Load(h.Topic); ok {
		cached = v.(*cachedRoute)
		if cached.version == ver && cached.body[form] != nil {
			resp := success(req)
			resp.Body = cached.body[form]
			return resp, nil
		}
	}
	s.cache.misses.Add(1)
	route := s.routes.Route(h.Topic)
	if route == nil {
		return nil, &protocol.Error{Code: protocol.ResTopicNotExist, Remark: "No topic route info in name server for the topic: " + h.Topic + faqSuffix}
	}
	if s.opts.OrderMessageEnable {
		route.OrderTopicConf, _ = s.kv.Get(NamespaceOrderTopicConfig, h.Topic)
	}
	// Only the form asked for is encoded (clients of one version all ask for the same);
	// the other form of the same version is kept. Entries are never modified once stored.
	c := &cachedRoute{version: ver}
	if cached != nil && cached.version == ver {
		c.body = cached.body
	}
	c.body[form] = route.AppendJSON(nil, standard)
	s.cache.m.Store(strings.Clone(h.Topic), c) // h.Topic is borrowed from the read buffer
	resp := success(req)
	resp.Body = c.body[form]
	return resp, nil
}

func (s *Server) getBrokerClusterInfo(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	resp := success(req)
	resp.Body = s.routes.ClusterInfo().AppendJSON(nil)
	return resp, nil
}
