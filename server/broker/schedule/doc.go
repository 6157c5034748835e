// Package schedule is the broker's delay-level service (Java: ScheduleMessageService of
// the 4.9 store, with its DeliverDelayedMessageTimerTask and DelayOffsetSerializeWrapper).
//
// It owns:
//   - the delivery of the messages the send path parked in SCHEDULE_TOPIC_XXXX (Topic),
//     queue level-1, to their REAL_TOPIC/REAL_QID once due: one goroutine per level, in
//     order, within a few ms of the deliver time (service.go, deliver.go);
//   - the progress table, level → next queue offset to deliver, kept in
//     <root>/config/delayOffset.json (FileName) in fastjson's layout
//     {"offsetTable":{1:0,2:15}}, which Java writes and reads (offsets.go); it is
//     persisted every 10 s and at Shutdown, only once the deliveries it covers are
//     flushed;
//   - the duplicate check at start, which finds from the real queues how far delivery
//     got after a crash, so a delayed message is delivered exactly once (recover.go);
//   - messageDelayLevel's parser (levels.go).
//
// It does not own the broker's side: parking a DELAY send (send_message.go), starting
// the service on a master only, GET_ALL_DELAY_OFFSET and the runtime statistics keys
// (schedule.go) stay in package broker, which builds a Service from a Config: the store,
// the delay table, the file path, a logger and an OnPut callback for its statistics. The
// package never imports the broker (conformance/layering_test.go).
//
// Lock order: Service.mu and the file's lock (compat.ConfigFile) are leaves. Service.mu is never held while
// calling the store, writing the file or calling OnPut; the file's lock only around the
// file write.
package schedule
