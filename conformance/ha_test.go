package conformance

// Master/slave replication between two Skyrocket brokers in one process, driven by the
// unmodified Go client: SYNC_MASTER answers, the slave's byte-identical CommitLog, the
// slave's metadata sync, and consuming from the slave while the master is down.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

// haPair is a NameServer with a master and a slave of one broker group.
type haPair struct {
	t             *testing.T
	ns            *namesrv.Server
	master, slave *cluster // each cluster's ns is the shared one
}

// haBrokerOptions are a broker of group broker-ha with small files.
func haBrokerOptions(t *testing.T, ns string, role broker.Role, id int64) broker.Options {
	o := broker.DefaultOptions(filepath.Join(t.TempDir(), "store"))
	o.ListenAddr = fmt.Sprintf("127.0.0.1:%d", freeBrokerPort(t))
	o.BrokerIP1 = "127.0.0.1"
	o.BrokerName = "broker-ha"
	o.BrokerID = id
	o.Role = role
	o.NamesrvAddrs = []string{ns}
	o.SlaveSyncPeriod = 500 * time.Millisecond
	o.Store.MappedFileSizeCommitLog = 1 << 20 // a test run crosses CommitLog files
	o.Store.MappedFileSizeConsumeQueue = 30000 * 20
	o.Store.MaxHashSlotNum = 1000
	o.Store.MaxIndexNum = 4000
	if role == broker.RoleSlave {
		o.Store.Slave = true
	}
	return o
}

func startHAPair(t *testing.T, masterRole broker.Role, mutate func(master, slave *broker.Options)) *haPair {
	t.Helper()
	p := &haPair{t: t, ns: startNamesrv(t, namesrv.Options{})}
	mo := haBrokerOptions(t, p.ns.Addr(), masterRole, 0)
	so := haBrokerOptions(t, p.ns.Addr(), broker.RoleSlave, 1)
	if mutate != nil {
		mutate(&mo, &so)
	}
	p.master = &cluster{t: t, ns: p.ns, opts: mo, root: filepath.Dir(mo.Store.RootDir)}
	p.master.startBroker()
	p.slave = &cluster{t: t, ns: p.ns, opts: so, root: filepath.Dir(so.Store.RootDir)}
	p.slave.startBroker()
	return p
}

// waitCaughtUp waits until the slave holds the master's whole CommitLog.
func (p *haPair) waitCaughtUp(d time.Duration) {
	p.t.Helper()
	eventually(p.t, d, "the slave to catch up", func() bool {
		return p.slave.broker.Store().MaxPhyOffset() == p.master.broker.Store().MaxPhyOffset()
	})
}

// sameCommitLog compares the CommitLog files of two store roots byte for byte over the
// range both hold (from the slave's first file).
func sameCommitLog(t *testing.T, masterDir, slaveDir string, upTo int64) {
	t.Helper()
	files, err := os.ReadDir(slaveDir)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, f := range files {
		s, err := os.ReadFile(filepath.Join(slaveDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m, err := os.ReadFile(filepath.Join(masterDir, f.Name()))
		if err != nil {
			t.Fatalf("slave file %s is not on the master: %v", f.Name(), err)
		}
		var start int64
		fmt.Sscanf(f.Name(), "%d", &start)
		n := int64(len(s))
		if upTo-start < n {
			n = max(upTo-start, 0)
		}
		if !bytes.Equal(s[:n], m[:n]) {
			i := 0
			for i < int(n) && s[i] == m[i] {
				i++
			}
			t.Fatalf("CommitLog %s differs at byte %d (offset %d)", f.Name(), i, start+int64(i))
		}
		compared += int(n)
	}
	if compared == 0 {
		t.Fatal("no CommitLog bytes compared")
	}
	t.Logf("slave CommitLog identical to the master's over %d bytes in %d files", compared, len(files))
}

func TestHA_SyncMaster_GoClient_SendOKReplicatedAndConsumedFromSlave(t *testing.T) {
	p := startHAPair(t, broker.RoleSyncMaster, nil)
	topic := unique("THA")
	prod := newProducer(t, p.ns.Addr())
	eventually(t, 20*time.Second, "the slave to connect", func() bool {
		res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("probe")))
		return err == nil && res.Status == primitive.SendOK
	})
	const n = 300
	body := strings.Repeat("x", 4000) // 300 x 4 KB: over one 1 MiB CommitLog file
	var sent []string
	for i := 0; i < n; i++ {
		b := fmt.Sprintf("%s-%d-%s", topic, i, body)
		res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte(b)))
		if err != nil || res.Status != primitive.SendOK {
			t.Fatalf("send %d under SYNC_MASTER with the slave up: %v %v", i, res, err)
		}
		sent = append(sent, b)
	}
	p.waitCaughtUp(10 * time.Second)
	end := p.master.broker.Store().MaxPhyOffset()
	sameCommitLog(t, filepath.Join(p.master.opts.Store.RootDir, "commitlog"), filepath.Join(p.slave.opts.Store.RootDir, "commitlog"), end)

	// Metadata reached the slave: the topic (auto-created on the master).
	eventually(t, 10*time.Second, "the topic on the slave", func() bool {
		_, ok := p.slave.broker.TopicConfig(topic)
		return ok
	})

	// A throttled consumer starts on the master; the master goes away and the consumer
	// keeps consuming from the slave (the Go client queries offsets from brokerId 0 only,
	// so a group that starts while the master is down cannot: rocketmq-client-go#1055).
	got := newReceived()
	startPushConsumer(t, p.ns.Addr(), unique("CGHA"), topic, all, collect(got),
		consumer.WithPullBatchSize(1), consumer.WithPullThresholdForQueue(1), consumer.WithConsumeTPS(20))
	eventually(t, 30*time.Second, "the consumer to start on the master", func() bool {
		d, _ := got.count()
		return d >= 5
	})
	p.master.stopBroker()
	before, _ := got.count()
	eventually(t, 90*time.Second, "every message, the rest from the slave", func() bool {
		d, _ := got.count()
		return d >= n+1
	})
	t.Logf("%d messages consumed before the master stopped, %d after, from the slave", before, n+1-before)
	if before >= n {
		t.Fatalf("the consumer had %d of %d messages before the master stopped: nothing read from the slave", before, n+1)
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	for _, b := range sent {
		if _, ok := got.msgs[b]; !ok {
			t.Fatalf("message %q... not consumed from the slave", b[:30])
		}
	}
}

func TestHA_SyncMaster_NoSlave_SlaveNotAvailable(t *testing.T) {
	c := startCluster(t, func(o *broker.Options) { o.Role = broker.RoleSyncMaster })
	topic := unique("THANoSlave")
	prod := newProducer(t, c.nsAddr())
	res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("alone")))
	if err != nil || res.Status != primitive.SendSlaveNotAvailable {
		t.Fatalf("SYNC_MASTER without a slave: %v %v, want SLAVE_NOT_AVAILABLE", res, err)
	}
	// The message is stored all the same (Java).
	w := newWire(t, c.opts.ListenAddr)
	queueSizes(t, w, topic, 1)
}

func TestHA_SyncMaster_SlaveGone_SlaveNotAvailableThenOKAgain(t *testing.T) {
	p := startHAPair(t, broker.RoleSyncMaster, nil)
	topic := unique("THAGone")
	prod := newProducer(t, p.ns.Addr())
	eventually(t, 20*time.Second, "SEND_OK", func() bool {
		res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("probe")))
		return err == nil && res.Status == primitive.SendOK
	})
	p.slave.stopBroker()
	eventually(t, 20*time.Second, "SLAVE_NOT_AVAILABLE with the slave stopped", func() bool {
		res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("no slave")))
		return err == nil && res.Status == primitive.SendSlaveNotAvailable
	})
	p.slave.startBroker()
	eventually(t, 30*time.Second, "SEND_OK once the slave is back", func() bool {
		res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("back")))
		return err == nil && res.Status == primitive.SendOK
	})
	p.waitCaughtUp(10 * time.Second)
	sameCommitLog(t, filepath.Join(p.master.opts.Store.RootDir, "commitlog"), filepath.Join(p.slave.opts.Store.RootDir, "commitlog"),
		p.master.broker.Store().MaxPhyOffset())
}

func TestHA_Slave_MetadataSyncAndRefusals(t *testing.T) {
	p := startHAPair(t, broker.RoleAsyncMaster, nil)
	mw := newWire(t, p.master.opts.ListenAddr)
	sw := newWire(t, p.slave.opts.ListenAddr)
	topic, group := unique("THAMeta"), unique("CGHAMeta")
	if r := mw.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102",
		ReadQueueNums: 3, WriteQueueNums: 3, Perm: 6, TopicFilterType: "SINGLE_TAG"}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create topic: %v %q", r.ResponseCode(), r.Remark)
	}
	if r := mw.call(protocol.CodeUpdateAndCreateSubscriptiongroup, nil, []byte(`{"groupName":"`+group+`","retryQueueNums":1}`)); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create group: %v %q", r.ResponseCode(), r.Remark)
	}
	if r := mw.call(protocol.CodeUpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: 1, CommitOffset: 7}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("commit offset: %v %q", r.ResponseCode(), r.Remark)
	}
	eventually(t, 10*time.Second, "topic, group and offset on the slave", func() bool {
		tc, ok := p.slave.broker.TopicConfig(topic)
		if !ok || tc.ReadQueueNums != 3 {
			return false
		}
		r := sw.call(protocol.CodeGetAllSubscriptiongroupConfig, nil, nil)
		if !strings.Contains(string(r.Body), group) {
			return false
		}
		r = sw.call(protocol.CodeQueryConsumerOffset, &protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: 1}, nil)
		var h protocol.QueryConsumerOffsetResponseHeader
		_ = h.Decode(r.Ext)
		return r.ResponseCode() == protocol.ResSuccess && h.Offset == 7
	})
	// delayOffset.json comes over verbatim.
	eventually(t, 10*time.Second, "delayOffset.json on the slave", func() bool {
		_, err := os.Stat(filepath.Join(p.slave.opts.Store.RootDir, "config", "delayOffset.json"))
		return err == nil
	})

	// A slave refuses sends (14), END_TRANSACTION (11) and topic admin writes (1).
	r := sw.call(protocol.CodeSendMessage, &protocol.SendMessageRequestHeader{ProducerGroup: "PG", Topic: topic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, BornTimestamp: time.Now().UnixMilli()}, []byte("x"))
	if r.ResponseCode() != protocol.ResServiceNotAvailable {
		t.Fatalf("send to the slave: %v %q", r.ResponseCode(), r.Remark)
	}
	r = sw.call(protocol.CodeEndTransaction, &protocol.EndTransactionRequestHeader{ProducerGroup: "PG", TranStateTableOffset: 1, CommitLogOffset: 1,
		CommitOrRollback: 8, MsgID: "x"}, nil)
	if r.ResponseCode() != protocol.ResSlaveNotAvailable {
		t.Fatalf("END_TRANSACTION on the slave: %v %q", r.ResponseCode(), r.Remark)
	}
	r = sw.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: topic + "x", DefaultTopic: "TBW102",
		ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6, TopicFilterType: "SINGLE_TAG"}, nil)
	if r.ResponseCode() != protocol.ResSystemError || !strings.HasPrefix(r.Remark, "Can't modify topic or subscription group from slave broker") {
		t.Fatalf("create topic on the slave: %v %q", r.ResponseCode(), r.Remark)
	}
}
