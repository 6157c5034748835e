package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

func testSpec(code protocol.RequestCode) *sendSpec {
	return &sendSpec{code: code, serialize: protocol.SerializeJSON, group: "PG", topic: "TopicTest", bname: "broker-a",
		tags: "TagA", batch: 5, body: makeBody(100)}
}

var uniqKeyShape = regexp.MustCompile(`^[0-9A-F]{32}$`)

func TestSendBuilder_BatchBody_WalksBack(t *testing.T) {
	b := newSendBuilder(testSpec(protocol.CodeSendBatchMessage), 3)
	body := b.appendBatchBody(nil, 5)
	seen := map[string]bool{}
	n := 0
	err := message.WalkBatch(body, func(e *message.BatchElement) bool {
		n++
		if !bytes.Equal(e.Body, b.spec.body) || e.Flag != 0 {
			t.Fatalf("element %d: flag %d body %q", n, e.Flag, e.Body)
		}
		p := message.ParseProperties(string(e.Properties))
		uk, _ := p.Get(message.PropertyUniqClientMessageIDKeyIdx)
		if !uniqKeyShape.MatchString(uk) || seen[uk] {
			t.Fatalf("element %d: UNIQ_KEY %q (seen before: %v)", n, uk, seen[uk])
		}
		seen[uk] = true
		if tags, _ := p.Get(message.PropertyTags); tags != "TagA" {
			t.Fatalf("element %d: TAGS %q", n, tags)
		}
		if w, _ := p.Get(message.PropertyWaitStoreMsgOK); w != "true" {
			t.Fatalf("element %d: WAIT %q", n, w)
		}
		return true
	})
	if err != nil || n != 5 {
		t.Fatalf("walked %d elements, err %v", n, err)
	}
	// TOTALSIZE of each element is 22 + body + properties (§5.6), MAGICCODE and BODYCRC 0.
	for p := 0; p < len(body); {
		total := int(binary.BigEndian.Uint32(body[p:]))
		if magic, crc := binary.BigEndian.Uint32(body[p+4:]), binary.BigEndian.Uint32(body[p+8:]); magic != 0 || crc != 0 {
			t.Fatalf("element at %d: magic %x crc %x", p, magic, crc)
		}
		bodyLen := int(binary.BigEndian.Uint32(body[p+16:]))
		propLen := int(binary.BigEndian.Uint16(body[p+20+bodyLen:]))
		if total != 22+bodyLen+propLen {
			t.Fatalf("element at %d: TOTALSIZE %d, want %d", p, total, 22+bodyLen+propLen)
		}
		p += total
	}
}

func TestSendBuilder_Append_JavaShapedHeaders(t *testing.T) {
	for _, code := range []protocol.RequestCode{protocol.CodeSendMessage, protocol.CodeSendMessageV2, protocol.CodeSendBatchMessage} {
		for _, st := range []protocol.SerializeType{protocol.SerializeJSON, protocol.SerializeRocketMQ} {
			spec := testSpec(code)
			spec.serialize = st
			b := newSendBuilder(spec, 1)
			frame := b.append(nil, 77, 2, code == protocol.CodeSendMessage)
			c, err := codec.Decode(frame)
			if err != nil {
				t.Fatal(err)
			}
			if c.Code != int32(code) || c.Opaque != 77 || c.Serialize != st || c.IsOneway() != (code == protocol.CodeSendMessage) {
				t.Fatalf("%v/%v: command %+v", code, st, c)
			}
			_, v1 := c.Ext.Get("producerGroup")
			_, v2 := c.Ext.Get("a")
			if v1 != (code == protocol.CodeSendMessage) || v2 == (code == protocol.CodeSendMessage) {
				t.Fatalf("%v: V1 keys %v, V2 keys %v", code, v1, v2)
			}
			var h protocol.SendMessageRequestHeader
			if err := h.Decode(c.Ext); err != nil {
				t.Fatal(err)
			}
			if h.ProducerGroup != "PG" || h.Topic != "TopicTest" || h.DefaultTopic != "TBW102" || h.DefaultTopicQueueNums != 4 ||
				h.QueueID != 2 || h.BornTimestamp == 0 || !h.HasReconsumeTimes || h.Bname != "broker-a" {
				t.Fatalf("%v: header %+v", code, h)
			}
			props := message.ParseProperties(h.Properties)
			if code == protocol.CodeSendBatchMessage {
				if !h.Batch || h.Properties != "WAIT\x01true" {
					t.Fatalf("batch header: batch %v properties %q", h.Batch, h.Properties)
				}
				n := 0
				if err := message.WalkBatch(c.Body, func(*message.BatchElement) bool { n++; return true }); err != nil || n != 5 {
					t.Fatalf("batch body: %d elements, %v", n, err)
				}
				continue
			}
			if uk, _ := props.Get(message.PropertyUniqClientMessageIDKeyIdx); h.Batch || !uniqKeyShape.MatchString(uk) || len(c.Body) != 100 {
				t.Fatalf("%v: batch %v UNIQ_KEY %q body %d", code, h.Batch, uk, len(c.Body))
			}
		}
	}
}

func TestUniqIDGen_Next_DistinctAcrossInstances(t *testing.T) {
	a, b := newUniqIDGen([4]byte{127, 0, 0, 1}, 1), newUniqIDGen([4]byte{127, 0, 0, 1}, 2)
	seen := map[string]bool{}
	for range 1000 {
		for _, g := range []*uniqIDGen{a, b} {
			id := string(g.next())
			if seen[id] || !uniqKeyShape.MatchString(id) {
				t.Fatalf("id %q repeated or malformed", id)
			}
			seen[id] = true
		}
	}
	if got := string(a.next()[:8]); got != "7F000001" {
		t.Fatalf("IP prefix %q", got)
	}
}

func TestHeartbeatBodies_ValidJavaShape(t *testing.T) {
	var hb struct {
		ClientID        string `json:"clientID"`
		ProducerDataSet []struct {
			GroupName string `json:"groupName"`
		} `json:"producerDataSet"`
		ConsumerDataSet []struct {
			GroupName           string `json:"groupName"`
			ConsumeType         string `json:"consumeType"`
			MessageModel        string `json:"messageModel"`
			SubscriptionDataSet []struct {
				Topic, SubString, ExpressionType string
				SubVersion                       int64
			} `json:"subscriptionDataSet"`
		} `json:"consumerDataSet"`
	}
	if err := json.Unmarshal(producerHeartbeat(`id"1`, "PG"), &hb); err != nil {
		t.Fatal(err)
	}
	if hb.ClientID != `id"1` || len(hb.ProducerDataSet) != 2 || hb.ProducerDataSet[0].GroupName != "PG" || len(hb.ConsumerDataSet) != 0 {
		t.Fatalf("producer heartbeat %+v", hb)
	}
	if err := json.Unmarshal(consumerHeartbeat("id2", "CG", "T", 1700000000000), &hb); err != nil {
		t.Fatal(err)
	}
	c := hb.ConsumerDataSet
	if len(c) != 1 || c[0].GroupName != "CG" || c[0].ConsumeType != "CONSUME_PASSIVELY" || c[0].MessageModel != "CLUSTERING" ||
		len(c[0].SubscriptionDataSet) != 1 || c[0].SubscriptionDataSet[0].Topic != "T" || c[0].SubscriptionDataSet[0].SubString != "*" ||
		c[0].SubscriptionDataSet[0].SubVersion != 1700000000000 {
		t.Fatalf("consumer heartbeat %+v", hb)
	}
}
