package broker

// UPDATE_AND_CREATE_ACL_CONFIG (50), DELETE_ACL_CONFIG (51), GET_BROKER_CLUSTER_ACL_INFO
// (52), UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53). Java: AdminBrokerProcessor, which hands
// them to the PlainAccessValidator (4.9.8). With aclEnable=true they change the ACL
// files (server/broker/acl) and answer as Java: 0 with no remark, or 209 / 210 / 211
// with the exception's message or Java's "has been ... failed." remark. They run on the
// admin pool: the file writes never touch an event loop. None is an admin-only code:
// any account with a valid signature, or any whitelisted address, may change the ACL,
// as in Java.
//
// With aclEnable=false Java has no validator: 50/51/53 fail with a NullPointerException
// (209/210/211 and the NPE's JDK-dependent text) and 52 answers nothing at all. Skyrocket
// answers the same codes with a remark that says why, and 52 answers SYSTEM_ERROR instead
// of letting the caller time out.
//
// Not like Java: 50 reloads the account from the file at once (Java rebuilds it from the
// request alone until its watcher reloads the file, up to 5 s later); 53 cleans the path
// before its ROCKETMQ_HOME check and refuses patterns that would make the file unloadable.

import (
	"sort"
	"strconv"
	"strings"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/acl"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// RemarkACLNotSupported is the remark of every ACL admin request when aclEnable=false.
const RemarkACLNotSupported = "ACL is not enabled on this broker (aclEnable=false)"

// javaSplit is Java's String#split(","): trailing empty strings are dropped, and an empty
// string gives [""] (UtilAll#split; absent gives nil).
func javaSplit(s string, present bool) []string {
	if !present {
		return nil
	}
	if s == "" {
		return []string{""}
	}
	parts := strings.Split(s, ",")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

func (b *Broker) updateAndCreateACLConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.CreateAccessConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if b.acl == nil {
		return nil, protocol.Errorf(protocol.ResUpdateAndCreateAclConfigFailed, RemarkACLNotSupported)
	}
	tp, tpOK := req.Ext.Get("topicPerms")
	gp, gpOK := req.Ext.Get("groupPerms")
	err := b.acl.UpdateAccount(acl.AccountUpdate{
		AccessKey: h.AccessKey, SecretKey: h.SecretKey, WhiteRemoteAddress: h.WhiteRemoteAddress, Admin: h.Admin,
		DefaultTopicPerm: h.DefaultTopicPerm, DefaultGroupPerm: h.DefaultGroupPerm,
		TopicPerms: javaSplit(tp, tpOK), GroupPerms: javaSplit(gp, gpOK),
	})
	if err != nil {
		b.log.Warn().Err(err).Str("accessKey", h.AccessKey).Msg("acl: update access config")
		return nil, protocol.Errorf(protocol.ResUpdateAndCreateAclConfigFailed, "%s", err.Error())
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) deleteACLConfig(x *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.DeleteAccessConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if b.acl == nil {
		return nil, protocol.Errorf(protocol.ResDeleteAclConfigFailed, RemarkACLNotSupported)
	}
	b.log.Info().Str("remote", x.Conn.RemoteAddr()).Str("accessKey", h.AccessKey).Msg("acl: delete access config")
	ok, err := b.acl.DeleteAccount(h.AccessKey)
	if err != nil {
		return nil, protocol.Errorf(protocol.ResDeleteAclConfigFailed, "%s", err.Error())
	}
	if !ok {
		return nil, protocol.Errorf(protocol.ResDeleteAclConfigFailed,
			"The accesskey[%s] corresponding to accessConfig has been deleted failed.", h.AccessKey)
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) getBrokerClusterACLInfo(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	if b.acl == nil {
		return nil, protocol.Errorf(protocol.ResSystemError, RemarkACLNotSupported)
	}
	def, all := b.acl.Versions()
	h := protocol.GetBrokerAclConfigResponseHeader{
		Version:           string(appendDataVersion(nil, def)),
		AllAclFileVersion: string(appendVersionMap(nil, all)),
		BrokerName:        b.opts.BrokerName,
		BrokerAddr:        b.addr,
		ClusterName:       b.opts.ClusterName,
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	h.Encode(&resp.Ext)
	return resp, nil
}

func (b *Broker) updateGlobalWhiteAddrsConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.UpdateGlobalWhiteAddrsConfigRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if b.acl == nil {
		return nil, protocol.Errorf(protocol.ResUpdateGlobalWhiteAddrsConfigFailed, RemarkACLNotSupported)
	}
	ok, err := b.acl.UpdateGlobalWhiteAddrs(javaSplit(h.GlobalWhiteAddrs, true), h.AclFileFullPath)
	if err != nil {
		return nil, protocol.Errorf(protocol.ResUpdateGlobalWhiteAddrsConfigFailed, "%s", err.Error())
	}
	if !ok {
		return nil, protocol.Errorf(protocol.ResUpdateGlobalWhiteAddrsConfigFailed,
			"The globalWhiteAddresses[%s] has been updated failed.", h.GlobalWhiteAddrs)
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

// appendDataVersion writes fastjson's DataVersion: {"counter":N,"timestamp":T}.
func appendDataVersion(dst []byte, dv acl.DataVersion) []byte {
	dst = append(dst, `{"counter":`...)
	dst = strconv.AppendInt(dst, dv.Counter, 10)
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, dv.Timestamp, 10)
	return append(dst, '}')
}

// appendVersionMap writes a path → DataVersion HashMap as fastjson does: in the map's
// iteration order.
func appendVersionMap(dst []byte, m map[string]acl.DataVersion) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // ties within one bucket come out by name (Java: by load order)
	dst = append(dst, '{')
	for i, idx := range acl.JavaHashMapOrder(keys) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = compat.AppendJSONString(dst, keys[idx])
		dst = append(dst, ':')
		dst = appendDataVersion(dst, m[keys[idx]])
	}
	return append(dst, '}')
}
