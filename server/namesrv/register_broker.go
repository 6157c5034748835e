package namesrv

// REGISTER_BROKER (103), UNREGISTER_BROKER (104), QUERY_DATA_VERSION (322).
// Java: DefaultRequestProcessor#registerBrokerWithFilterServer / #registerBroker /
// #unregisterBroker / #queryBrokerTopicConfig, RouteInfoManager#registerBroker.
//
// - A body from a broker of version ≥ V3_0_11 is a RegisterBrokerBody (JSON, or the zlib
//   form when the header says compressed); older brokers send a bare
//   TopicConfigSerializeWrapper. A missing body registers with data version 0/0.
// - The compressed form is refused, as Java refuses it, at its first malformed topic entry,
//   and also (Java has no such limits) when it announces more than protocol.MaxRegisterTopics
//   topics or inflates past protocol.MaxRegisterInflated. Queue counts above
//   protocol.MaxQueueNums are lowered to it in the routes (RouteTable#updateQueueData).
// - bodyCrc32 ≠ 0 is checked against CRC32(body) & 0x7FFFFFFF: "crc32 not match".
// - Slaves learn their master's address and HA address in the response header; the
//   body is the ORDER_TOPIC_CONFIG namespace as a KVTable, or nothing.

import (
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (s *Server) registerBroker(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.RegisterBrokerRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if h.BodyCrc32 != 0 && compat.CRC32(req.Body) != h.BodyCrc32 {
		s.log.Warn().Str("remote", ctx.Conn.RemoteAddr()).Msg("receive registerBroker request, crc32 not match")
		return nil, protocol.Errorf(protocol.ResSystemError, "crc32 not match")
	}
	var topics *protocol.TopicConfigSerializeWrapper
	var filterServers []string
	if len(req.Body) > 0 {
		if req.Version >= protocol.VersionV3_0_11 {
			body, err := protocol.DecodeRegisterBrokerBody(req.Body, h.Compressed)
			if err != nil {
				return nil, protocol.Errorf(protocol.ResSystemError,
					"org.apache.rocketmq.remoting.exception.RemotingCommandException: Failed to decode RegisterBrokerBody")
			}
			topics, filterServers = &body.TopicConfigSerializeWrapper, body.FilterServerList
		} else {
			var w protocol.TopicConfigSerializeWrapper
			if err := protocol.UnmarshalBody(req.Body, &w); err != nil {
				return nil, protocol.Errorf(protocol.ResSystemError, "%v", err)
			}
			topics = &w
		}
	} else {
		topics = &protocol.TopicConfigSerializeWrapper{}
	}
	res := s.routes.Register(h.ClusterName, h.BrokerAddr, h.BrokerName, h.BrokerID, h.HaServerAddr, topics, filterServers, ctx.Conn)
	resp := success(req)
	rh := protocol.RegisterBrokerResponseHeader{HaServerAddr: res.HAServerAddr, MasterAddr: res.MasterAddr}
	rh.Encode(&resp.Ext)
	if m := s.kv.Namespace(NamespaceOrderTopicConfig); m != nil {
		t := protocol.KVTable{Table: m}
		resp.Body = t.AppendJSON(nil)
	}
	return resp, nil
}

func (s *Server) unregisterBroker(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.UnRegisterBrokerRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	s.routes.Unregister(h.ClusterName, h.BrokerAddr, h.BrokerName, h.BrokerID)
	return success(req), nil
}

func (s *Server) queryDataVersion(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryDataVersionRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	var dv protocol.DataVersion
	if err := protocol.UnmarshalBody(req.Body, &dv); err != nil {
		return nil, protocol.Errorf(protocol.ResSystemError, "%v", err)
	}
	changed, known := s.routes.DataVersionChanged(h.BrokerAddr, dv)
	resp := success(req)
	if known != nil {
		resp.Body = known.AppendJSON(nil)
	}
	rh := protocol.QueryDataVersionResponseHeader{Changed: changed}
	rh.Encode(&resp.Ext)
	return resp, nil
}
