package broker

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/schedule"
)

func TestBroker_Schedule_SlaveDoesNotDeliver(t *testing.T) {
	b := newTestBroker(t, func(o *Options) { o.Role = RoleSlave; o.BrokerID = 1 })
	if b.schedule == nil || b.schedule.Running() {
		t.Fatalf("slave schedule service: %+v", b.schedule)
	}
}

func TestBroker_GetAllDelayOffset_MasterTableSlaveFile(t *testing.T) {
	m := newTestBroker(t, nil)
	park(t, m.store, 2, "TopicD", 0, "x")
	waitFor(t, 5*time.Second, "the delivery", func() bool { return m.DelayOffsets()[2] == 1 })
	resp, err := m.getAllDelayOffset(nil, protocol.NewRequest(protocol.CodeGetAllDelayOffset))
	if err != nil || resp.Code != 0 || string(resp.Body) != `{"offsetTable":{2:1}}` {
		t.Fatalf("master: %v %+v", err, resp)
	}
	s := newTestBroker(t, func(o *Options) { o.Role = RoleSlave; o.BrokerID = 1 })
	// What the slave synchronisation writes: the master's body, verbatim.
	path := s.opts.configPath(schedule.FileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"offsetTable":{1:3,2:7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err = s.getAllDelayOffset(nil, protocol.NewRequest(protocol.CodeGetAllDelayOffset))
	if err != nil || resp.Code != 0 || string(resp.Body) != `{"offsetTable":{1:3,2:7}}` {
		t.Fatalf("slave: %v %+v", err, resp)
	}
}

func TestBroker_ScheduleRunningStats_JavaKeys(t *testing.T) {
	b := newTestBroker(t, nil)
	park(t, b.store, 2, "TopicS", 0, "x")
	waitFor(t, 5*time.Second, "the delivery", func() bool { return b.DelayOffsets()[2] == 1 })
	stats := map[string]string{}
	b.scheduleRunningStats(stats)
	if len(stats) != 1 || stats["scheduleMessageOffset_2"] != "1,1" {
		t.Fatalf("stats %v, want scheduleMessageOffset_2=1,1", stats)
	}
}
