package namesrv

// GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206), DELETE_TOPIC_IN_NAMESRV (216),
// GET_TOPICS_BY_CLUSTER (224), GET_SYSTEM_TOPIC_LIST_FROM_NS (304), GET_UNIT_TOPIC_LIST (311),
// GET_HAS_UNIT_SUB_TOPIC_LIST (312), GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST (313),
// WIPE_WRITE_PERM_OF_BROKER (205), ADD_WRITE_PERM_OF_BROKER (327).
// Java: DefaultRequestProcessor and RouteInfoManager of the same names. Topic lists are
// TopicList JSON bodies; the system list also names one broker address.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// Topic sysFlag bits (Java: TopicSysFlag).
const (
	topicFlagUnit    = 0x1
	topicFlagUnitSub = 0x2
)

func topicListResponse(req *protocol.Command, tl protocol.TopicList) *protocol.Command {
	if tl.TopicList == nil {
		tl.TopicList = []string{}
	}
	resp := success(req)
	resp.Body = tl.AppendJSON(nil)
	return resp
}

func (s *Server) getAllTopicList(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return topicListResponse(req, protocol.TopicList{TopicList: s.routes.Topics()}), nil
}

func (s *Server) deleteTopicInNamesrv(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.DeleteTopicFromNamesrvRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	s.routes.DeleteTopic(h.Topic, h.ClusterName)
	return success(req), nil
}

func (s *Server) getTopicsByCluster(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetTopicsByClusterRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return topicListResponse(req, protocol.TopicList{TopicList: s.routes.TopicsByCluster(h.Cluster)}), nil
}

func (s *Server) getSystemTopicList(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return topicListResponse(req, s.routes.SystemTopics()), nil
}

func (s *Server) getUnitTopicList(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return topicListResponse(req, protocol.TopicList{TopicList: s.routes.UnitTopics(func(f int32) bool { return f&topicFlagUnit != 0 })}), nil
}

func (s *Server) getHasUnitSubTopicList(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return topicListResponse(req, protocol.TopicList{TopicList: s.routes.UnitTopics(func(f int32) bool { return f&topicFlagUnitSub != 0 })}), nil
}

func (s *Server) getHasUnitSubUnUnitTopics(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return topicListResponse(req, protocol.TopicList{TopicList: s.routes.UnitTopics(func(f int32) bool {
		return f&topicFlagUnit == 0 && f&topicFlagUnitSub != 0
	})}), nil
}

func (s *Server) wipeWritePermOfBroker(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.WipeWritePermOfBrokerRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	n := s.routes.WritePerm(h.BrokerName, false)
	s.log.Info().Str("broker", h.BrokerName).Str("client", ctx.Conn.RemoteAddr()).Int("topics", n).Msg("wipe write perm of broker")
	resp := success(req)
	rh := protocol.WipeWritePermOfBrokerResponseHeader{WipeTopicCount: int32(n)}
	rh.Encode(&resp.Ext)
	return resp, nil
}

func (s *Server) addWritePermOfBroker(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.AddWritePermOfBrokerRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	n := s.routes.WritePerm(h.BrokerName, true)
	s.log.Info().Str("broker", h.BrokerName).Str("client", ctx.Conn.RemoteAddr()).Int("topics", n).Msg("add write perm of broker")
	resp := success(req)
	rh := protocol.AddWritePermOfBrokerResponseHeader{AddTopicCount: int32(n)}
	rh.Encode(&resp.Ext)
	return resp, nil
}
