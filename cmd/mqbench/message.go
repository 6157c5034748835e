package main

import (
	"encoding/binary"
	"os"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/acl"
)

// Send requests shaped like the Java 4.9.8 producer's (DefaultMQProducerImpl#sendKernelImpl):
// producerGroup, topic, defaultTopic TBW102, defaultTopicQueueNums 4, queueId, sysFlag 0,
// bornTimestamp, flag 0, properties, reconsumeTimes 0, unitMode false, batch, bname; each
// message's properties carry TAGS, UNIQ_KEY and WAIT=true (the Message constructor's
// default), and KEYS when asked. A batch (SEND_BATCH_MESSAGE, always the V2 header) has
// the batch-level properties "WAIT=true" in its header (MessageBatch#generateFromList) and
// every element its own UNIQ_KEY (DefaultMQProducer#batch).

const hexUpper = "0123456789ABCDEF"

// uniqIDGen makes Java-shaped UNIQ_KEYs (MessageClientIDSetter): 32 upper-case hex
// characters of IP(4) ‖ pid(2) ‖ classloader hash(4) ‖ ms since the start of the
// month(4) ‖ counter(2). The "classloader hash" is the connection index here, so ids
// from different connections never collide.
type uniqIDGen struct {
	buf        [32]byte
	monthStart time.Time
	counter    uint16
}

func newUniqIDGen(ip [4]byte, instance uint32) *uniqIDGen {
	g := &uniqIDGen{}
	var fix [10]byte
	copy(fix[:4], ip[:])
	binary.BigEndian.PutUint16(fix[4:], uint16(os.Getpid()))
	binary.BigEndian.PutUint32(fix[6:], instance)
	for i, c := range fix {
		g.buf[2*i], g.buf[2*i+1] = hexUpper[c>>4], hexUpper[c&0xF]
	}
	now := time.Now()
	g.monthStart = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())
	return g
}

// last returns the id next returned last; the slice is valid until the following call.
func (g *uniqIDGen) last() []byte { return g.buf[:] }

// next returns the next id; the slice is valid until the following call.
func (g *uniqIDGen) next() []byte {
	diff := uint32(time.Since(g.monthStart).Milliseconds())
	g.counter++
	putHex(g.buf[20:28], uint64(diff), 8)
	putHex(g.buf[28:32], uint64(g.counter), 4)
	return g.buf[:]
}

func putHex(dst []byte, v uint64, digits int) {
	for i := digits - 1; i >= 0; i-- {
		dst[i] = hexUpper[v&0xF]
		v >>= 4
	}
}

// sendSpec is what every send of a run has in common.
type sendSpec struct {
	creds     credentials          // -ak/-sk: every request signed as a Java 4.9.4+ client signs it
	code      protocol.RequestCode // SEND_MESSAGE, SEND_MESSAGE_V2 or SEND_BATCH_MESSAGE
	serialize protocol.SerializeType
	group     string
	topic     string
	bname     string
	tags      string
	keys      bool
	batch     int // messages per SEND_BATCH_MESSAGE
	body      []byte
	// delayLevel > 0 adds DELAY=<level> (Java: Message#setDelayTimeLevel): the broker
	// parks the message in SCHEDULE_TOPIC_XXXX and delivers it to the topic once due.
	delayLevel int
	// timerDelay > 0 adds TIMER_DELIVER_MS = now + timerDelay + a spread part that walks
	// [0, timerSpread) (the 5.x timer property, served by Skyrocket as an extension).
	timerDelay, timerSpread time.Duration
	// tx makes every message a transactional half message, as
	// TransactionMQProducer#sendMessageInTransaction sends it: TRAN_MSG=true and PGROUP
	// in the properties, TRANSACTION_PREPARED_TYPE in the header's sysFlag.
	tx bool
}

// propertyTimerDeliverMs is 5.x's absolute timer property (MessageConst.PROPERTY_TIMER_DELIVER_MS).
const propertyTimerDeliverMs = "TIMER_DELIVER_MS"

// sendBuilder encodes send frames for one connection, reusing its buffers.
type sendBuilder struct {
	spec   *sendSpec
	cmd    *protocol.Command
	h      protocol.SendMessageRequestHeader
	uniq   *uniqIDGen
	props  []byte
	batch  []byte
	keySeq uint64
	delay  string      // DELAY's value, "" for none
	signer *acl.Signer // -ak/-sk: this connection's signer
	timerN int64       // timer messages built so far (walks the spread)
}

func newSendBuilder(spec *sendSpec, instance uint32) *sendBuilder {
	b := &sendBuilder{spec: spec, cmd: protocol.NewRequest(spec.code), uniq: newUniqIDGen([4]byte{127, 0, 0, 1}, instance)}
	b.cmd.Serialize = spec.serialize
	b.h = protocol.SendMessageRequestHeader{
		ProducerGroup: spec.group, Topic: spec.topic, DefaultTopic: "TBW102", DefaultTopicQueueNums: 4,
		HasReconsumeTimes: true, Bname: spec.bname,
	}
	if spec.tx {
		b.h.SysFlag = message.TransactionPrepared // Java: DefaultMQProducerImpl#sendKernelImpl
	}
	if spec.delayLevel > 0 {
		b.delay = strconv.Itoa(spec.delayLevel)
	}
	return b
}

// appendProps appends one message's properties (Java 4.9.1+ encoding: no trailing \x02).
func (b *sendBuilder) appendProps(dst []byte) []byte {
	if b.spec.tags != "" {
		dst = message.AppendProperty(dst, message.PropertyTags, b.spec.tags)
	}
	dst = message.AppendProperty(dst, message.PropertyUniqClientMessageIDKeyIdx, string(b.uniq.next()))
	if b.spec.keys {
		b.keySeq++
		dst = message.AppendProperty(dst, message.PropertyKeys, "k"+strconv.FormatUint(b.keySeq, 36))
	}
	if b.delay != "" {
		dst = message.AppendProperty(dst, message.PropertyDelayTimeLevel, b.delay)
	}
	if b.spec.timerDelay > 0 {
		at := time.Now().Add(b.spec.timerDelay).UnixMilli()
		if sp := b.spec.timerSpread.Milliseconds(); sp > 0 {
			b.timerN++
			at += b.timerN * 7919 % sp // a prime stride: dues fill the spread evenly, not in send order
		}
		dst = message.AppendProperty(dst, propertyTimerDeliverMs, strconv.FormatInt(at, 10))
	}
	if b.spec.tx {
		dst = message.AppendProperty(dst, message.PropertyTransactionPrepared, "true")
		dst = message.AppendProperty(dst, message.PropertyProducerGroup, b.spec.group)
	}
	return message.AppendProperty(dst, message.PropertyWaitStoreMsgOK, "true")
}

// appendBatchBody appends n SEND_BATCH_MESSAGE elements (§5.6, Java
// MessageDecoder#encodeMessages) of the spec's body, each with its own properties.
func (b *sendBuilder) appendBatchBody(dst []byte, n int) []byte {
	for range n {
		b.props = b.appendProps(b.props[:0])
		dst = message.AppendBatchElement(dst, 0, b.spec.body, b.props)
	}
	return dst
}

// append encodes one send request to queueID and appends its frame to dst.
func (b *sendBuilder) append(dst []byte, opaque, queueID int32, oneway bool) []byte {
	c := b.cmd
	c.Ext = c.Ext[:0]
	c.Opaque = opaque
	c.Flag = 0
	if oneway {
		c.Flag = protocol.FlagOneway
	}
	h := &b.h
	h.QueueID = queueID
	h.BornTimestamp = time.Now().UnixMilli()
	switch b.spec.code {
	case protocol.CodeSendBatchMessage:
		h.Batch = true
		h.Properties = "WAIT\x01true"
		b.batch = b.appendBatchBody(b.batch[:0], b.spec.batch)
		c.Body = b.batch
		h.EncodeV2(&c.Ext)
	case protocol.CodeSendMessage:
		b.props = b.appendProps(b.props[:0])
		h.Properties = string(b.props)
		c.Body = b.spec.body
		h.Encode(&c.Ext)
	default:
		b.props = b.appendProps(b.props[:0])
		h.Properties = string(b.props)
		c.Body = b.spec.body
		h.EncodeV2(&c.Ext)
	}
	if b.spec.creds.ak != "" {
		if b.signer == nil {
			b.signer = acl.NewSigner(b.spec.creds.sk)
		}
		c.Ext.Set(acl.KeyAccessKey, b.spec.creds.ak)
		c.Ext.Set(acl.KeySignature, b.signer.Sign(c.Ext, c.Body))
	}
	return codec.AppendFrame(dst, c)
}

// messagesPerRequest is how many messages one request of the spec carries.
func (s *sendSpec) messagesPerRequest() int {
	if s.code == protocol.CodeSendBatchMessage {
		return s.batch
	}
	return 1
}

// makeBody returns a message body of size bytes (printable, not all one byte, so that
// nothing on the path can shortcut it).
func makeBody(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

// credentials are an ACL account's keys (-ak, -sk); empty means unsigned requests.
type credentials struct{ ak, sk string }

// sign adds AccessKey and Signature to c as Java's AclClientRPCHook (4.9.4+) does: HMAC-SHA1
// of the sorted extFields' values plus the body.
func (k credentials) sign(c *protocol.Command) {
	if k.ak == "" {
		return
	}
	c.Ext.Set(acl.KeyAccessKey, k.ak)
	c.Ext.Set(acl.KeySignature, acl.Sign(k.sk, c.Ext, c.Body))
}
