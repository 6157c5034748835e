package broker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// call runs a handler the way the dispatcher does and turns a protocol.Error into the
// response it becomes.
func call(t *testing.T, h remoting.Handler, code protocol.RequestCode, hdr interface{ Encode(*protocol.Ext) }, body []byte) *protocol.Command {
	t.Helper()
	req := protocol.NewRequest(code)
	if hdr != nil {
		hdr.Encode(&req.Ext)
	}
	req.Body = body
	resp, err := h(&remoting.Context{}, req)
	if err != nil {
		pe, ok := err.(*protocol.Error)
		if !ok {
			t.Fatalf("%v: %v", code, err)
		}
		return protocol.NewResponse(req, pe.Code, pe.Remark)
	}
	return resp
}

// extOnly encodes exactly the given extFields (a Java client omits null fields).
type extOnly protocol.Ext

func (e extOnly) Encode(dst *protocol.Ext) { *dst = append(*dst, e...) }

func properties(t *testing.T, body []byte) map[string]string {
	t.Helper()
	kvs, err := compat.ParseProperties(body)
	if err != nil {
		t.Fatalf("properties %q: %v", body, err)
	}
	return compat.PropertiesMap(kvs)
}

func TestBroker_GetBrokerConfig_WholeConfigurationAndVersion(t *testing.T) {
	b := newTestBroker(t, nil)
	resp := call(t, b.getBrokerConfig, protocol.CodeGetBrokerConfig, nil, nil)
	if resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("code %v %q", resp.ResponseCode(), resp.Remark)
	}
	p := properties(t, resp.Body)
	for k, want := range map[string]string{"brokerName": "broker-a", "brokerClusterName": "DefaultCluster", "brokerPermission": "6",
		"storePathRootDir": b.opts.Store.RootDir, "fileReservedTime": "72", "brokerRole": "ASYNC_MASTER"} {
		if p[k] != want {
			t.Errorf("%s=%q, want %q", k, p[k], want)
		}
	}
	if len(p) < 150 {
		t.Errorf("%d properties, want the four config objects (150+)", len(p))
	}
	var v protocol.DataVersion
	if err := json.Unmarshal([]byte(resp.Ext.Value("version")), &v); err != nil || v.Timestamp == 0 {
		t.Errorf("version header %q: %v", resp.Ext.Value("version"), err)
	}
}

func TestBroker_UpdateBrokerConfig_BlackListAndBadBody(t *testing.T) {
	b := newTestBroker(t, nil)
	for _, body := range []string{"brokerConfigPath=/x\n", "rocketmqHome=/x\n", "configBlackList=a\n", "fileReservedTime=1\nbrokerConfigPath=/x\n"} {
		resp := call(t, b.updateBrokerConfig, protocol.CodeUpdateBrokerConfig, nil, []byte(body))
		if resp.ResponseCode() != protocol.ResNoPermission || resp.Remark != "Can not update config in black list." {
			t.Errorf("%q: %v %q, want NO_PERMISSION and Java's remark", body, resp.ResponseCode(), resp.Remark)
		}
	}
	if p := properties(t, call(t, b.getBrokerConfig, protocol.CodeGetBrokerConfig, nil, nil).Body); p["fileReservedTime"] != "72" {
		t.Errorf("a refused update changed fileReservedTime to %s", p["fileReservedTime"])
	}
	if resp := call(t, b.updateBrokerConfig, protocol.CodeUpdateBrokerConfig, nil, nil); resp.ResponseCode() != protocol.ResSuccess {
		t.Errorf("empty body: %v, want SUCCESS (Java: no body, nothing to do)", resp.ResponseCode())
	}
}

func TestBroker_UpdateBrokerConfig_PersistsAndAppliesPermission(t *testing.T) {
	b := newTestBroker(t, nil)
	before := call(t, b.getBrokerConfig, protocol.CodeGetBrokerConfig, nil, nil).Ext.Value("version")
	resp := call(t, b.updateBrokerConfig, protocol.CodeUpdateBrokerConfig, nil,
		[]byte("brokerPermission=4\nfileReservedTime=48\nautoDeleteUnusedStats=true\nnoSuchKey=1\nflushDiskType=NOPE\n"))
	if resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("update: %v %q", resp.ResponseCode(), resp.Remark)
	}
	got := call(t, b.getBrokerConfig, protocol.CodeGetBrokerConfig, nil, nil)
	p := properties(t, got.Body)
	if p["brokerPermission"] != "4" || p["fileReservedTime"] != "48" || p["flushDiskType"] != "ASYNC_FLUSH" {
		t.Errorf("after update brokerPermission=%s fileReservedTime=%s flushDiskType=%s, want 4, 48, ASYNC_FLUSH (bad value ignored)",
			p["brokerPermission"], p["fileReservedTime"], p["flushDiskType"])
	}
	if _, ok := p["noSuchKey"]; ok {
		t.Error("an unknown key was added to the configuration (Java merges only known keys)")
	}
	var v1, v2 protocol.DataVersion
	_ = json.Unmarshal([]byte(before), &v1)
	_ = json.Unmarshal([]byte(got.Ext.Value("version")), &v2)
	if v2.Counter != v1.Counter+1 {
		t.Errorf("version counter %d -> %d, want +1", v1.Counter, v2.Counter)
	}
	if b.brokerPermission() != 4 || !b.autoDeleteUnusedStats() {
		t.Errorf("runtime brokerPermission %d autoDeleteUnusedStats %v, want 4 and true", b.brokerPermission(), b.autoDeleteUnusedStats())
	}
	file, err := os.ReadFile(filepath.Join(b.opts.Store.RootDir, "config", "broker.properties"))
	if err != nil {
		t.Fatalf("persisted file: %v", err)
	}
	if fp := properties(t, file); fp["fileReservedTime"] != "48" || fp["brokerName"] != "broker-a" {
		t.Errorf("persisted fileReservedTime=%q brokerName=%q, want the whole configuration with the update", fp["fileReservedTime"], fp["brokerName"])
	}
}

func TestBroker_UpdateBrokerConfig_WritesTheLoadedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "broker.conf")
	if err := os.WriteFile(path, []byte("brokerName=broker-a\nmyOwnKey=kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := configs.NewBroker()
	if _, err := cfg.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	b := newTestBroker(t, func(o *Options) { o.Config = cfg })
	call(t, b.updateBrokerConfig, protocol.CodeUpdateBrokerConfig, nil, []byte("deleteWhen=02\nmyOwnKey=changed\n"))
	fp := properties(t, readFile(t, path))
	if fp["deleteWhen"] != "02" || fp["myOwnKey"] != "changed" {
		t.Errorf("broker.conf deleteWhen=%q myOwnKey=%q, want 02 and changed", fp["deleteWhen"], fp["myOwnKey"])
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// javaRuntimeKeys are the keys AdminBrokerProcessor#prepareRuntimeInfo (4.9.8) always
// writes, with how rocketmq-exporter's BrokerRuntimeStats parses them.
var javaRuntimeKeys = map[string]string{
	"brokerVersionDesc": "text", "brokerVersion": "long", "bootTimestamp": "long", "runtime": "text",
	"putMessageEntireTimeMax": "long", "putMessageTimesTotal": "long", "putMessageFailedTimes": "long",
	"putMessageSizeTotal": "long", "putMessageDistributeTime": "text", "putMessageAverageSize": "double",
	"dispatchMaxBuffer": "long", "getMessageEntireTimeMax": "long", "putTps": "tps", "getFoundTps": "tps",
	"getMissTps": "tps", "getTotalTps": "tps", "getTransferedTps": "tps", "putLatency99": "double", "putLatency999": "double",
	"commitLogDiskRatio": "double", "consumeQueueDiskRatio": "double", "commitLogMinOffset": "long", "commitLogMaxOffset": "long",
	"msgPutTotalYesterdayMorning": "long", "msgPutTotalTodayMorning": "long", "msgPutTotalTodayNow": "long",
	"msgGetTotalYesterdayMorning": "long", "msgGetTotalTodayMorning": "long", "msgGetTotalTodayNow": "long",
	"sendThreadPoolQueueSize": "long", "sendThreadPoolQueueCapacity": "long", "pullThreadPoolQueueSize": "long",
	"pullThreadPoolQueueCapacity": "long", "queryThreadPoolQueueSize": "long", "queryThreadPoolQueueCapacity": "long",
	"EndTransactionQueueSize": "long", "EndTransactionThreadPoolQueueCapacity": "long", "dispatchBehindBytes": "long",
	"pageCacheLockTimeMills": "long", "sendThreadPoolQueueHeadWaitTimeMills": "long", "pullThreadPoolQueueHeadWaitTimeMills": "long",
	"queryThreadPoolQueueHeadWaitTimeMills": "long", "earliestMessageTimeStamp": "long", "startAcceptSendRequestTimeStamp": "long",
	"remainTransientStoreBufferNumbs": "long", "remainHowManyDataToFlush": "bytes", "commitLogDirCapacity": "capacity",
}

func TestBroker_RuntimeInfo_EveryJavaKeyParses(t *testing.T) {
	b := newTestBroker(t, nil)
	res, _ := putPlain(t, b.store, "TopicA", 0, "m1", 0)
	resp := call(t, b.getBrokerRuntimeInfo, protocol.CodeGetBrokerRuntimeInfo, nil, nil)
	var kv protocol.KVTable
	if err := json.Unmarshal(resp.Body, &kv); err != nil {
		t.Fatalf("body %s: %v", resp.Body, err)
	}
	for k, kind := range javaRuntimeKeys {
		v, ok := kv.Table[k]
		if !ok {
			t.Errorf("key %s missing", k)
			continue
		}
		var err error
		switch kind {
		case "long":
			_, err = strconv.ParseInt(v, 10, 64)
		case "double":
			_, err = strconv.ParseFloat(v, 64)
		case "tps": // "a b c", each part empty until its window fills (exporter: split and parse)
			for _, part := range strings.Fields(v) {
				if _, e := strconv.ParseFloat(part, 64); e != nil {
					err = e
				}
			}
			if strings.Count(v, " ") != 2 {
				t.Errorf("%s=%q: want three space separated windows", k, v)
			}
		case "bytes":
			_, err = strconv.ParseFloat(strings.Fields(v)[0], 64)
		case "capacity": // exporter: words 2,3 and 6,7 with the trailing ',' / '.' dropped
			if f := strings.Fields(v); len(f) != 8 || f[0] != "Total" || f[4] != "Free" {
				t.Errorf("%s=%q: want \"Total : <n> <unit>, Free : <n> <unit>.\"", k, v)
			}
		}
		if err != nil {
			t.Errorf("%s=%q does not parse as %s: %v", k, v, kind, err)
		}
	}
	if kv.Table["brokerVersionDesc"] != "V4_9_8" || kv.Table["brokerVersion"] != "409" {
		t.Errorf("version %s %s", kv.Table["brokerVersionDesc"], kv.Table["brokerVersion"])
	}
	if kv.Table["msgPutTotalTodayNow"] != "1" || kv.Table["commitLogMaxOffset"] != strconv.Itoa(int(res.WroteBytes)) {
		t.Errorf("msgPutTotalTodayNow=%s commitLogMaxOffset=%s after one put of %d bytes", kv.Table["msgPutTotalTodayNow"],
			kv.Table["commitLogMaxOffset"], res.WroteBytes)
	}
	if ts, _ := strconv.ParseInt(kv.Table["earliestMessageTimeStamp"], 10, 64); ts != res.StoreTimestamp {
		t.Errorf("earliestMessageTimeStamp %d, want the first record's store time %d", ts, res.StoreTimestamp)
	}
	if kv.Table["putMessageAverageSize"] != strconv.Itoa(int(res.WroteBytes))+".0" {
		t.Errorf("putMessageAverageSize %q, want Java's double text", kv.Table["putMessageAverageSize"])
	}
}

func TestBroker_ResumeCheckHalfMessage_PutsBackWithZeroChecks(t *testing.T) {
	b := newTestBroker(t, nil)
	res, _ := putPlain(t, b.store, meta.TopicTransHalf, 0, "half", 0, message.PropertyTransactionCheckTimes, "5",
		message.PropertyRealTopic, "TopicA", message.PropertyRealQueueID, "1")
	id := message.CreateOffsetMsgID(b.storeHost, res.WroteOffset)
	resp := call(t, b.resumeCheckHalfMessage, protocol.CodeResumeCheckHalfMessage, &protocol.ResumeCheckHalfMessageRequestHeader{MsgID: id}, nil)
	if resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("resume: %v %q", resp.ResponseCode(), resp.Remark)
	}
	var recs []message.Record
	waitFor(t, 3*time.Second, "the re-put half message", func() bool {
		recs = records(t, b.store, meta.TopicTransHalf, 0)
		return len(recs) == 2
	})
	wantProps(t, recs[1], map[string]string{message.PropertyTransactionCheckTimes: "0", message.PropertyRealTopic: "TopicA"})
	if string(recs[1].Body) != "half" || recs[1].Flag != 7 {
		t.Errorf("re-put body %q flag %d", recs[1].Body, recs[1].Flag)
	}
	bad := call(t, b.resumeCheckHalfMessage, protocol.CodeResumeCheckHalfMessage, &protocol.ResumeCheckHalfMessageRequestHeader{MsgID: "zz"}, nil)
	if bad.ResponseCode() != protocol.ResSystemError || bad.Remark != "Exception was thrown when putting message back to RMQ_SYS_TRANS_HALF_TOPIC." {
		t.Errorf("bad msgId: %v %q", bad.ResponseCode(), bad.Remark)
	}
}

func TestBroker_ACL_AnswersAsJavaWithACLDisabled(t *testing.T) {
	b := newTestBroker(t, nil)
	for _, c := range []struct {
		h    remoting.Handler
		code protocol.RequestCode
		hdr  interface{ Encode(*protocol.Ext) }
		want protocol.ResponseCode
	}{
		{b.updateAndCreateACLConfig, protocol.CodeUpdateAndCreateAclConfig, &protocol.CreateAccessConfigRequestHeader{AccessKey: "ak"}, protocol.ResUpdateAndCreateAclConfigFailed},
		{b.deleteACLConfig, protocol.CodeDeleteAclConfig, &protocol.DeleteAccessConfigRequestHeader{AccessKey: "ak"}, protocol.ResDeleteAclConfigFailed},
		{b.updateGlobalWhiteAddrsConfig, protocol.CodeUpdateGlobalWhiteAddrsConfig,
			&protocol.UpdateGlobalWhiteAddrsConfigRequestHeader{GlobalWhiteAddrs: "10.*", AclFileFullPath: "/x"}, protocol.ResUpdateGlobalWhiteAddrsConfigFailed},
		{b.getBrokerClusterACLInfo, protocol.CodeGetBrokerClusterAclInfo, nil, protocol.ResSystemError},
	} {
		resp := call(t, c.h, c.code, c.hdr, nil)
		if resp.ResponseCode() != c.want || resp.Remark != RemarkACLNotSupported {
			t.Errorf("%v: %v %q, want %v", c.code, resp.ResponseCode(), resp.Remark, c.want)
		}
	}
	// 4.9.8 declares aclFileFullPath @CFNotNull: mqadmin without -p is refused before the validator.
	resp := call(t, b.updateGlobalWhiteAddrsConfig, protocol.CodeUpdateGlobalWhiteAddrsConfig, extOnly{{Key: "globalWhiteAddrs", Value: "10.*"}}, nil)
	if resp.ResponseCode() != protocol.ResSystemError || !strings.Contains(resp.Remark, "<aclFileFullPath> is null") {
		t.Errorf("no aclFileFullPath: %v %q", resp.ResponseCode(), resp.Remark)
	}
}

// FuzzDecodeFastJSON_SubscriptionGroup feeds UPDATE_AND_CREATE_SUBSCRIPTIONGROUP bodies to
// the decoder: no panic, and fields the body lacks keep Java's defaults.
func FuzzDecodeFastJSON_SubscriptionGroup(f *testing.F) {
	f.Add([]byte(`{"groupName":"G","retryMaxTimes":3}`))                          // a partial body: defaults for the rest
	f.Add([]byte(`{"brokerId":0,"consumeBroadcastEnable":true,"groupName":"G"}`)) // fastjson's order
	f.Add([]byte(`{groupName:"G"}`))                                              // unquoted key (fastjson reads it)
	f.Add([]byte(`{"groupName":"G","retryQueueNums":"x"}`))                       // wrong type
	f.Add([]byte(`[]`))                                                           // not an object
	f.Fuzz(func(t *testing.T, body []byte) {
		c := protocol.NewSubscriptionGroupConfig("")
		lower := strings.ToLower(string(body))
		untouched := !strings.Contains(lower, "notify") && !strings.Contains(lower, `\`) // no key that could name the field
		if err := decodeFastJSON(body, &c); err == nil && untouched && !c.NotifyConsumerIdsChangedEnable {
			t.Fatalf("%q lost the default notifyConsumerIdsChangedEnable=true", body)
		}
	})
}
