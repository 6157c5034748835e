package meta

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestTopicManager_QueueCountsAreBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "topics.json")
	// topics.json as a Java broker that accepted 5,000,000 queues writes it.
	stored := `{"dataVersion":{"counter":3,"timestamp":1700000000000},"topicConfigTable":{` +
		`"Huge":{"order":false,"perm":6,"readQueueNums":5000000,"topicFilterType":"SINGLE_TAG","topicName":"Huge","topicSysFlag":0,"writeQueueNums":2147483647},` +
		`"Fine":{"order":false,"perm":6,"readQueueNums":8,"topicFilterType":"SINGLE_TAG","topicName":"Fine","topicSysFlag":0,"writeQueueNums":8}}}`
	if err := os.WriteFile(path, []byte(stored), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := NewTopicManager(TopicOptions{Path: path, ClusterName: "c", BrokerName: "b", AutoCreateTopicEnable: true,
		DefaultTopicQueueNums: 1<<31 - 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for name, want := range map[string]int32{"Huge": protocol.MaxQueueNums, "Fine": 8, TopicAutoCreate: protocol.MaxQueueNums} {
		if tc, _ := m.Get(name); tc.ReadQueueNums != want || tc.WriteQueueNums != want {
			t.Errorf("%s: %d/%d queues, want %d", name, tc.ReadQueueNums, tc.WriteQueueNums, want)
		}
	}
	// A send's defaultTopicQueueNums (Java: min with the default topic's write queues).
	if tc, _ := m.CreateInSend("Sent", TopicAutoCreate, "1.2.3.4:5", 1<<31-1, 0); tc == nil || tc.WriteQueueNums != protocol.MaxQueueNums {
		t.Fatalf("auto-created %+v", tc)
	}
	if tc, _ := m.CreateInSend("SentFew", TopicAutoCreate, "1.2.3.4:5", 4, 0); tc == nil || tc.WriteQueueNums != 4 {
		t.Fatalf("auto-created %+v", tc)
	}
	// A retry group's retryQueueNums.
	if tc, _ := m.CreateIfAbsent("%RETRY%G", 5_000_000, protocol.PermRead|protocol.PermWrite, 0); tc.ReadQueueNums != protocol.MaxQueueNums {
		t.Fatalf("retry topic %+v", tc)
	}
}

func TestTopicManager_AutoCreated_WrittenInBackground_Reloaded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "topics.json")
	o := TopicOptions{Path: path, ClusterName: "c", BrokerName: "b", AutoCreateTopicEnable: true, DefaultTopicQueueNums: 8}
	m, err := NewTopicManager(o, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if tc, created := m.CreateInSend("Sent", TopicAutoCreate, "1.2.3.4:5", 4, 0); !created || tc.WriteQueueNums != 4 || tc.Perm != protocol.PermRead|protocol.PermWrite {
		t.Fatalf("auto-created %+v, %v", tc, created)
	}
	if _, created := m.CreateInSend("Sent", TopicAutoCreate, "1.2.3.4:5", 4, 0); created {
		t.Fatal("created twice")
	}
	if _, created := m.CreateIfAbsent(RetryTopic("G"), 1, protocol.PermRead|protocol.PermWrite, 0); !created {
		t.Fatal("retry topic not created")
	}
	if _, created := m.CreateIfAbsent(RetryTopic("../x"), 1, protocol.PermRead|protocol.PermWrite, 0); created {
		t.Fatal("created a topic with an invalid name")
	}
	version := m.DataVersion()
	m.Close() // writes what the background writer still holds

	r, err := NewTopicManager(o, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range []string{"Sent", "%RETRY%G", TopicAutoCreate, TopicSchedule, "c", "b", "c_" + ReplyTopicPostfix} {
		if _, ok := r.Get(name); !ok {
			t.Errorf("%s missing after reload", name)
		}
	}
	if r.DataVersion() != version {
		t.Errorf("data version %+v after reload, want %+v", r.DataVersion(), version)
	}
	if !r.IsSystemTopic("b") || !r.IsSystemTopic("rmq_sys_x") || !r.IsSystemTopic("RMQ_SYS_TRACE_TOPIC") || r.IsSystemTopic("Sent") {
		t.Error("IsSystemTopic")
	}
}

func TestValidateTopicAndGroup_JavaRemarks(t *testing.T) {
	for topic, remark := range map[string]string{
		"":                       "The specified topic is blank.",
		"a/b":                    "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
		strings.Repeat("t", 128): "The specified topic is longer than topic max length.",
		strings.Repeat("t", 127): "",
	} {
		if pe := ValidateTopic(topic); pe == nil && remark != "" || pe != nil && (pe.Remark != remark || pe.Code != protocol.ResSystemError) {
			t.Errorf("ValidateTopic(%.10q) = %v, want %q", topic, pe, remark)
		}
	}
	for group, remark := range map[string]string{
		" ":                      "the specified group is blank",
		"adv/boot":               "the specified group[adv/boot] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
		strings.Repeat("g", 256): "the specified group is longer than group max length 255.",
		"CID_ok-1|%":             "",
	} {
		if pe := ValidateGroup(group); pe == nil && remark != "" || pe != nil && pe.Remark != remark {
			t.Errorf("ValidateGroup(%.10q) = %v, want %q", group, pe, remark)
		}
	}
	if !IsNotAllowedSendTopic(TopicSchedule) || IsNotAllowedSendTopic(TopicAutoCreate) {
		t.Error("IsNotAllowedSendTopic")
	}
}
