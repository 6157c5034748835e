package namesrv

// PUT_KV_CONFIG (100), GET_KV_CONFIG (101), DELETE_KV_CONFIG (102), GET_KVLIST_BY_NAMESPACE (219).
// Java: DefaultRequestProcessor#putKVConfig / #getKVConfig / #deleteKVConfig /
// #getKVListByNamespace, KVConfigManager. Not found answers QUERY_NOT_FOUND with Java's remark.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (s *Server) putKVConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.PutKVConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	err := s.kv.Put(h.Namespace, h.Key, h.Value)
	s.cache.kvGen.Add(1)
	if err != nil {
		s.log.Error().Err(err).Msg("persist kv config")
	}
	return success(req), nil
}

func (s *Server) getKVConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetKVConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	v, ok := s.kv.Get(h.Namespace, h.Key)
	if !ok {
		return nil, protocol.Errorf(protocol.ResQueryNotFound, "No config item, Namespace: %s Key: %s", h.Namespace, h.Key)
	}
	resp := success(req)
	rh := protocol.GetKVConfigResponseHeader{Value: v}
	rh.Encode(&resp.Ext)
	return resp, nil
}

func (s *Server) deleteKVConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.DeleteKVConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	err := s.kv.Delete(h.Namespace, h.Key)
	s.cache.kvGen.Add(1)
	if err != nil {
		s.log.Error().Err(err).Msg("persist kv config")
	}
	return success(req), nil
}

func (s *Server) getKVListByNamespace(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetKVListByNamespaceRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	m := s.kv.Namespace(h.Namespace)
	if m == nil {
		return nil, protocol.Errorf(protocol.ResQueryNotFound, "No config item, Namespace: %s", h.Namespace)
	}
	resp := success(req)
	t := protocol.KVTable{Table: m}
	resp.Body = t.AppendJSON(nil)
	return resp, nil
}
