package message

import (
	"bytes"
	"errors"
	"testing"
)

// parked is sampleMessage parked under a delay topic with the given properties.
func parked(props string) []byte {
	m := sampleMessage()
	m.Topic, m.QueueID = "SCHEDULE_TOPIC_XXXX", 0
	m.Properties = []byte(props)
	return AppendRecord(nil, m, 5, 1000, 1700000000500)
}

func TestUnparker_Unpark(t *testing.T) {
	const props = "TAGS\x01TagA\x02REAL_TOPIC\x01TopicTest\x02REAL_QID\x013\x02UNIQ_KEY\x01AABB"
	var u Unparker
	var m Message
	want := sampleMessage()
	for _, drop := range []bool{false, true} {
		if _, _, err := u.Unpark(parked(props), drop, &m); err != nil {
			t.Fatalf("dropReal=%v: %v", drop, err)
		}
		if m.Topic != want.Topic || m.QueueID != want.QueueID || m.Flag != want.Flag || !bytes.Equal(m.Body, want.Body) ||
			m.BornTimestamp != want.BornTimestamp || m.BornHost != want.BornHost || m.StoreHost != want.StoreHost ||
			m.ReconsumeTimes != want.ReconsumeTimes || m.SysFlag != want.SysFlag {
			t.Fatalf("dropReal=%v: unparked %+v, want the fields of %+v", drop, m, want)
		}
		p := ParseProperties(string(m.Properties))
		_, hasT := p.Get(PropertyRealTopic)
		_, hasQ := p.Get(PropertyRealQueueID)
		if hasT == drop || hasQ == drop {
			t.Errorf("dropReal=%v: properties %q", drop, m.Properties)
		}
		if v, _ := p.Get(PropertyUniqClientMessageIDKeyIdx); v != "AABB" {
			t.Errorf("dropReal=%v: UNIQ_KEY %q in %q", drop, v, m.Properties)
		}
	}
}

func TestUnparker_Refusals(t *testing.T) {
	var u Unparker
	var m Message
	for _, c := range []struct {
		name, props string
		want        error
	}{
		{"no real topic", "REAL_QID\x011", ErrNoRealQueue},
		{"empty real topic", "REAL_TOPIC\x01\x02REAL_QID\x011", ErrNoRealQueue},
		{"no real queue", "REAL_TOPIC\x01T", ErrNoRealQueue},
		{"queue not a number", "REAL_TOPIC\x01T\x02REAL_QID\x01x", ErrNoRealQueue},
		{"negative queue", "REAL_TOPIC\x01T\x02REAL_QID\x01-1", ErrNoRealQueue},
		{"queue beyond int32", "REAL_TOPIC\x01T\x02REAL_QID\x012147483648", ErrNoRealQueue},
		{"half topic", "REAL_TOPIC\x01RMQ_SYS_TRANS_HALF_TOPIC\x02REAL_QID\x010", ErrRealIsHalf},
	} {
		if _, _, err := u.Unpark(parked(c.props), false, &m); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, _, err := u.Unpark([]byte{1, 2, 3}, false, &m); !errors.Is(err, ErrShortRecord) {
		t.Errorf("short record: %v", err)
	}
}
