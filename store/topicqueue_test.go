package store

import (
	"testing"
	"unsafe"
)

// The broker hands the store topic strings that live in the network read buffer, which
// is reused after the request. The store must not keep them: Go re-stores a string key on
// every map assignment, so even an update of an existing queue offset would capture one.
func TestStore_PutMessage_TopicStringInReusedBuffer(t *testing.T) {
	s, err := Open(testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	buf := []byte("ReusedTopic")
	topic := unsafe.String(&buf[0], len(buf))
	for i := 0; i < 3; i++ {
		res := mustPut(t, s, testMessage(topic, 0, "x", ""))
		if res.QueueOffset != int64(2*i) {
			t.Fatalf("put %d: queue offset %d", i, res.QueueOffset)
		}
		copy(buf, "XXXXXXXXXXX") // the buffer is reused by the next request
		copy(buf, "ReusedTopic")
		buf[0] = 'Z' // ...and now holds another topic's bytes
		res2 := mustPut(t, s, testMessage("ReusedTopic", 0, "y", ""))
		if res2.QueueOffset != int64(2*i+1) {
			t.Fatalf("after reuse %d: queue offset %d, want %d", i, res2.QueueOffset, 2*i+1)
		}
		buf[0] = 'R'
	}
}
