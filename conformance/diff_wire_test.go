package conformance

// Raw-wire helpers of the differential runs: sends with fixed headers (so both brokers store
// the same record but for store-side fields), pulls decoded into comparable trees.

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"strconv"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// fixedBorn is the bornTimestamp of every raw send, so records differ only where brokers do.
const fixedBorn = "1700000000000"

// props encodes key, value pairs in the given order.
func props(kv ...string) string {
	var b []byte
	for i := 0; i+1 < len(kv); i += 2 {
		b = message.AppendProperty(b, kv[i], kv[i+1])
	}
	return string(b)
}

// sendV2 is a SEND_MESSAGE_V2 (310) request as the Java producer builds it.
func sendV2(topic string, queueID int, sysFlag, flag int32, properties string, body []byte) *protocol.Command {
	c := req(protocol.CodeSendMessageV2, "a", "DiffPG", "b", topic, "c", "TBW102", "d", "4", "e", strconv.Itoa(queueID),
		"f", strconv.Itoa(int(sysFlag)), "g", fixedBorn, "h", strconv.Itoa(int(flag)), "i", properties, "j", "0", "k", "false",
		"m", "false")
	c.Body = body
	return c
}

func zlibBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pull is a PULL_MESSAGE (11) request for up to 32 messages with FLAG_SUBSCRIPTION (the
// subscription "*" travels with the request, so the group needs no heartbeat).
func pull(group, topic string, queueID int, offset int64) *protocol.Command {
	return pullFlags(group, topic, queueID, offset, 4)
}

// pullFlags is pull with the given PullSysFlag bits (1 commit offset, 2 suspend, 4 subscription).
func pullFlags(group, topic string, queueID int, offset int64, sysFlag int) *protocol.Command {
	return req(protocol.CodePullMessage, "consumerGroup", group, "topic", topic, "queueId", strconv.Itoa(queueID),
		"queueOffset", strconv.FormatInt(offset, 10), "maxMsgNums", "32", "sysFlag", strconv.Itoa(sysFlag), "commitOffset", "0",
		"suspendTimeoutMillis", "0", "subscription", "*", "subVersion", "0", "expressionType", "TAG")
}

// recordTree turns a stored record into a comparable tree (addresses normalized).
func recordTree(s *side, r *message.Record) map[string]any {
	p := map[string]any{}
	pp := message.ParseProperties(string(r.Properties))
	for _, kv := range pp.All() {
		p[kv.Key] = s.norm(kv.Value)
	}
	return map[string]any{
		"storeSize": r.StoreSize, "bodyCRC": r.BodyCRC, "queueId": r.QueueID, "flag": r.Flag,
		"queueOffset": r.QueueOffset, "physicalOffset": r.PhysicalOffset, "sysFlag": r.SysFlag,
		"bornTimestamp": r.BornTimestamp, "bornHost": s.norm(r.BornHost.String()), "storeTimestamp": r.StoreTimestamp,
		"storeHost": s.norm(r.StoreHost.String()), "reconsumeTimes": r.ReconsumeTimes,
		"preparedTransactionOffset": r.PreparedTransactionOffset, "body": hex.EncodeToString(r.Body),
		"topic": string(r.Topic), "properties": p, "offsetMsgId": s.norm(r.OffsetMsgID()),
	}
}

// pullRecords pulls queue from offset until it holds want records (or 15 s pass) and returns
// them as trees with the last pull response.
func (s *side) pullRecords(t *testing.T, group, topic string, queueID int, offset int64, want int) ([]map[string]any, *protocol.Command) {
	t.Helper()
	var out []map[string]any
	var last *protocol.Command
	deadline := time.Now().Add(15 * time.Second)
	for len(out) < want && time.Now().Before(deadline) {
		out = out[:0]
		last = s.call(t, s.broker, pull(group, topic, queueID, offset))
		if last.Code == 0 {
			if err := message.WalkRecords(last.Body, func(r *message.Record) bool {
				out = append(out, recordTree(s, r))
				return true
			}); err != nil {
				t.Fatalf("%s: pull body: %v", s.name, err)
			}
		}
		if len(out) < want {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if len(out) < want {
		t.Fatalf("%s: pulled %d records of %s/%d, want %d (last code %d %s)", s.name, len(out), topic, queueID, want, last.Code, last.Remark)
	}
	return out, last
}
