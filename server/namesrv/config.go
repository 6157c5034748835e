package namesrv

// UPDATE_NAMESRV_CONFIG (318), GET_NAMESRV_CONFIG (319).
// Java: DefaultRequestProcessor#updateConfig / #getConfig. The body is properties text;
// black-listed keys (configBlackList, configStorePath, kvConfigPath, rocketmqHome and the
// configured list) answer NO_PERMISSION "Can not update config in black list.".

import (
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (s *Server) updateConfig(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	s.log.Info().Str("client", ctx.Conn.RemoteAddr()).Msg("updateConfig called")
	if len(req.Body) == 0 {
		return success(req), nil
	}
	kvs, err := compat.ParseProperties(req.Body)
	if err != nil {
		return nil, protocol.Errorf(protocol.ResSystemError, "string2Properties error")
	}
	props := compat.PropertiesMap(kvs)
	if s.opts.Config == nil {
		return nil, protocol.Errorf(protocol.ResSystemError, "name server configuration is not updatable in this process")
	}
	black := append([]string{"configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome"}, s.opts.Config.BlackList()...)
	for _, k := range black {
		if _, ok := props[k]; ok {
			return nil, protocol.Errorf(protocol.ResNoPermission, "Can not update config in black list.")
		}
	}
	if err := s.opts.Config.Update(props); err != nil {
		return nil, protocol.Errorf(protocol.ResSystemError, "%v", err)
	}
	return success(req), nil
}

func (s *Server) getConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	resp := success(req)
	if s.opts.Config != nil {
		if txt := s.opts.Config.Format(); txt != "" {
			resp.Body = []byte(txt)
		}
	}
	return resp, nil
}
