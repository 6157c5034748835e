package broker

// UPDATE_AND_CREATE_ACL_CONFIG (50), DELETE_ACL_CONFIG (51), GET_BROKER_CLUSTER_ACL_INFO
// (52), UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53). Java: AdminBrokerProcessor, which hands
// them to the PlainAccessValidator. ACL is not built in Skyrocket, and a broker
// configured with aclEnable=true refuses to start (OptionsFrom), so every
// Skyrocket broker behaves as a Java broker with aclEnable=false: it has no validator,
// and Java's handlers fail on the missing validator and answer their failure codes,
// 209 / 210 / 211, with the exception's message. Skyrocket answers the same codes with
// a remark that says why. For 52 Java answers nothing at all (the handler logs and
// returns null, so the caller times out); Skyrocket answers SYSTEM_ERROR with the same
// remark instead of letting the caller wait. conformance/UNSUPPORTED.md lists the four.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// RemarkACLNotSupported is the remark of every ACL admin request.
const RemarkACLNotSupported = "ACL is not enabled on this broker (aclEnable=false): Skyrocket does not implement ACL"

func (b *Broker) updateAndCreateACLConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.CreateAccessConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return nil, protocol.Errorf(protocol.ResUpdateAndCreateAclConfigFailed, RemarkACLNotSupported)
}

func (b *Broker) deleteACLConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.DeleteAccessConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return nil, protocol.Errorf(protocol.ResDeleteAclConfigFailed, RemarkACLNotSupported)
}

func (b *Broker) getBrokerClusterACLInfo(_ *remoting.Context, _ *protocol.Command) (*protocol.Command, error) {
	return nil, protocol.Errorf(protocol.ResSystemError, RemarkACLNotSupported)
}

func (b *Broker) updateGlobalWhiteAddrsConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.UpdateGlobalWhiteAddrsConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return nil, protocol.Errorf(protocol.ResUpdateGlobalWhiteAddrsConfigFailed, RemarkACLNotSupported)
}
