package broker

// Delay levels: the schedule service and GET_ALL_DELAY_OFFSET (45).
// Java: ScheduleMessageService (store), AdminBrokerProcessor#getAllDelayOffset.
//
// - A send with DELAY=n (n > 0) is parked by send_message.go in SCHEDULE_TOPIC_XXXX
//   queue n-1 with REAL_TOPIC/REAL_QID, and the store writes its deliver time (store
//   time + delay of level n) as the ConsumeQueue tag code.
// - The schedule service (package schedule) delivers each level in order once due,
//   within a few ms of the deliver time, and keeps per level the next offset to deliver
//   in <root>/config/delayOffset.json ({"offsetTable":{1:0,2:15}}, the fastjson layout
//   Java writes and reads). Progress is persisted every 10 s and at shutdown, only once
//   the deliveries it covers are flushed; a start after a crash skips the messages
//   already delivered (schedule/recover.go). So a delayed message is delivered exactly
//   once across restarts, crashes included.
// - messageDelayLevel (store config) sets the levels; units s, m, h, d. A bad entry
//   stops the service with schedule.ErrBadDelayLevel (Java refuses to start the broker).
// - A slave does not deliver (Java starts the service only on a master). Its
//   GET_ALL_DELAY_OFFSET answers from the file, which the slave synchronisation writes.
// - GET_ALL_DELAY_OFFSET answers the master's in-memory table, compact (Java: encode()).
//
// Deliberately different from Java 4.9.8 (each is logged):
// - A parked record without REAL_TOPIC or a numeric REAL_QID, or one the store refuses as
//   illegal, is passed over; Java retries it forever and the level stops moving.
// - A due level is not polled every 100 ms: its goroutine sleeps until the head is due
//   (at most 1 s), and polls every 100 ms only while the level is empty or failing.
// - enableScheduleAsyncDeliver and enableScheduleMessageStats are not built: delivery is
//   synchronous, and delivered messages count in the broker's put statistics.

import (
	"strconv"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/broker/schedule"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// startSchedule loads delayOffset.json and, on a master, starts delivering.
func (b *Broker) startSchedule() error {
	delays, err := schedule.ParseLevels(b.opts.Store.MessageDelayLevel)
	if err != nil {
		return err
	}
	s := schedule.New(schedule.Config{
		Store:  b.store,
		Delays: delays,
		Path:   b.opts.configPath(schedule.FileName),
		Log:    b.log.With().Str("service", "schedule").Logger(),
		OnPut:  b.stats.IncScheduleDeliver,
	})
	if err := s.Load(); err != nil {
		return err
	}
	b.schedule = s
	if b.opts.Role != RoleSlave {
		s.Start()
	}
	return nil
}

// stopSchedule stops delivery and persists the progress; the store is still open.
func (b *Broker) stopSchedule() {
	if b.schedule == nil {
		return
	}
	if err := b.schedule.Shutdown(); err != nil {
		b.log.Error().Err(err).Msg("persist delay offsets at shutdown")
	}
}

// getAllDelayOffset is GET_ALL_DELAY_OFFSET (45): the delay offset table as
// {"offsetTable":{1:0,2:15}} (Java: AdminBrokerProcessor#getAllDelayOffset; a slave
// synchronises its delayOffset.json from it).
func (b *Broker) getAllDelayOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var body []byte
	switch {
	case b.schedule != nil && b.opts.Role != RoleSlave:
		body = b.schedule.AppendJSON(nil)
	default:
		data, err := schedule.LoadFile(b.opts.configPath(schedule.FileName))
		if err != nil {
			return nil, protocol.Errorf(protocol.ResSystemError, "%s", err.Error())
		}
		body = data
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = body
	return resp, nil
}

// DelayOffsets returns a copy of the schedule progress: delay level → next
// SCHEDULE_TOPIC_XXXX queue offset to deliver (the content of delayOffset.json). It is
// nil before Start.
func (b *Broker) DelayOffsets() map[int]int64 {
	if b.schedule == nil {
		return nil
	}
	return b.schedule.Table()
}

// scheduleRunningStats adds Java's per-level runtime entries,
// scheduleMessageOffset_<level> = "<delay offset>,<max offset>" (Java:
// ScheduleMessageService#buildRunningStats), for GET_BROKER_RUNTIME_INFO.
func (b *Broker) scheduleRunningStats(stats map[string]string) {
	if b.schedule == nil {
		return
	}
	for level, off := range b.schedule.Table() {
		max := b.store.MaxOffsetInQueue(meta.TopicSchedule, int32(level-1))
		stats["scheduleMessageOffset_"+strconv.Itoa(level)] = strconv.FormatInt(off, 10) + "," + strconv.FormatInt(max, 10)
	}
}
