package broker

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestHumanReadableBytes_JavaFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 30: "5.0 GiB"} {
		if got := humanReadableBytes(n); got != want {
			t.Errorf("humanReadableBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestBroker_DiskUtil_JavaText: SendMessageProcessor#diskUtil's text, with the three
// partitions the store measures (the index one was always 0.00 before store.DiskUsage).
func TestBroker_DiskUtil_JavaText(t *testing.T) {
	b := newTestBroker(t, nil)
	var cl, cq, index float64
	if n, err := fmt.Sscanf(b.diskUtil(), "CL: %f CQ: %f INDEX: %f", &cl, &cq, &index); n != 3 || err != nil {
		t.Fatalf("diskUtil %q: %v", b.diskUtil(), err)
	}
	d := b.store.DiskUsage()
	if fmt.Sprintf("%5.2f %5.2f %5.2f", cl, cq, index) != fmt.Sprintf("%5.2f %5.2f %5.2f", d.CommitLog, d.ConsumeQueue, d.Index) {
		t.Errorf("diskUtil %q, store reports %+v", b.diskUtil(), d)
	}
	if cl <= 0 || cl > 1 {
		t.Errorf("commit log partition used ratio %v, want in (0, 1]", cl)
	}
}

// TestBroker_RuntimeInfo_DiskRatiosInJavaFormat: Java's UtilAll#getDiskPartitionSpaceUsedPercent
// answers a whole percent / 100.0 ("0.61"), -1.0 for a missing path; the admin-compare step
// (conformance/java/admincmp) found Skyrocket answering used/total unrounded.
func TestBroker_RuntimeInfo_DiskRatiosInJavaFormat(t *testing.T) {
	b := newTestBroker(t, nil)
	kv := b.runtimeInfo()
	re := regexp.MustCompile(`^(-1\.0|[01]\.\d{1,2})$`)
	n := 0
	for k, v := range kv {
		if strings.HasPrefix(k, "commitLogDiskRatio") || k == "consumeQueueDiskRatio" {
			n++
			if !re.MatchString(v) {
				t.Errorf("%s=%q, want Java's whole-percent double", k, v)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d disk ratio keys, want commitLogDiskRatio, commitLogDiskRatio_<dir>, consumeQueueDiskRatio", n)
	}
}

// TestBroker_SystemTopicList_HasReplyTopic: Java's TopicConfigManager adds
// <cluster>_REPLY_TOPIC to the system topics GET_SYSTEM_TOPIC_LIST_FROM_BROKER answers.
func TestBroker_SystemTopicList_HasReplyTopic(t *testing.T) {
	b := newTestBroker(t, nil)
	resp := call(t, b.getSystemTopicListFromBroker, protocol.CodeGetSystemTopicListFromBroker, nil, nil)
	var l protocol.TopicList
	if err := json.Unmarshal(resp.Body, &l); err != nil {
		t.Fatalf("body %s: %v", resp.Body, err)
	}
	want := map[string]bool{b.opts.ClusterName: false, b.opts.BrokerName: false, b.opts.ClusterName + "_REPLY_TOPIC": false, "TBW102": false}
	for _, topic := range l.TopicList {
		if _, ok := want[topic]; ok {
			want[topic] = true
		}
	}
	for topic, seen := range want {
		if !seen {
			t.Errorf("%s missing from %v", topic, l.TopicList)
		}
	}
}

// TestBroker_GetBrokerConfig_BitMapLengthFromBloomFilter: Java's ConsumerFilterManager sets
// bitMapLengthConsumeQueueExt to its bloom filter's size (112 for 20 % and 32 consumers).
func TestBroker_GetBrokerConfig_BitMapLengthFromBloomFilter(t *testing.T) {
	b := newTestBroker(t, nil)
	resp := call(t, b.getBrokerConfig, protocol.CodeGetBrokerConfig, nil, nil)
	if got := properties(t, resp.Body)["bitMapLengthConsumeQueueExt"]; got != "112" {
		t.Errorf("bitMapLengthConsumeQueueExt=%q, want 112 as Java reports it", got)
	}
}
