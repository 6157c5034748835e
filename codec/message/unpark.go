package message

import (
	"errors"
	"strconv"
)

// TransHalfTopic is the topic that holds transaction half messages; a parked message never
// goes back to it.
const TransHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC"

// Errors of Unparker.Unpark besides DecodeRecord's.
var (
	ErrNoRealQueue = errors.New("message: parked message without a real topic and queue")
	ErrRealIsHalf  = errors.New("message: the real topic of a parked message is the transaction half topic")
)

// Unparker rebuilds a message that a delay level (SCHEDULE_TOPIC_XXXX) or the timer wheel
// parked under its own topic into the message to store under its real topic and queue
// (REAL_TOPIC, REAL_QID), with its flag, body, born and store hosts, reconsume count and
// properties. It reuses its buffers: use one per goroutine; the message Unpark fills
// stays valid until its next call.
type Unparker struct {
	props Properties
	buf   []byte
}

// Unpark decodes rec into msg. dropReal removes REAL_TOPIC and REAL_QID from the properties
// (5.x's timer does; 4.x's delay levels keep them). On ErrNoRealQueue the real topic and
// queue strings found, possibly empty, are returned for the caller's log.
func (u *Unparker) Unpark(rec []byte, dropReal bool, msg *Message) (realTopic, realQID string, err error) {
	r, err := DecodeRecord(rec)
	if err != nil {
		return "", "", err
	}
	u.props.Reset()
	u.props.Parse(string(r.Properties))
	topic, okT := u.props.Get(PropertyRealTopic)
	qs, okQ := u.props.Get(PropertyRealQueueID)
	qid, errQ := strconv.ParseInt(qs, 10, 32)
	if !okT || topic == "" || !okQ || errQ != nil || qid < 0 {
		return topic, qs, ErrNoRealQueue
	}
	if topic == TransHalfTopic {
		return topic, qs, ErrRealIsHalf
	}
	if dropReal {
		u.props.Delete(PropertyRealTopic)
		u.props.Delete(PropertyRealQueueID)
	}
	u.buf = u.props.AppendTo(u.buf[:0])
	*msg = Message{
		Topic:          topic,
		QueueID:        int32(qid),
		Flag:           r.Flag,
		Body:           r.Body,
		SysFlag:        r.SysFlag,
		BornTimestamp:  r.BornTimestamp,
		BornHost:       r.BornHost,
		StoreHost:      r.StoreHost,
		ReconsumeTimes: r.ReconsumeTimes,
		Properties:     u.buf,
	}
	return topic, qs, nil
}
