package broker

// GET_BROKER_RUNTIME_INFO (28): the KVTable Java builds in
// AdminBrokerProcessor#prepareRuntimeInfo, every key with a value measured here.
//
//	store (store.RuntimeInfo)   bootTimestamp runtime putMessageEntireTimeMax putMessageTimesTotal
//	                            putMessageFailedTimes putMessageSizeTotal putMessageAverageSize
//	                            getMessageEntireTimeMax dispatchMaxBuffer commitLogDiskRatio(_<dir>)
//	                            consumeQueueDiskRatio commitLogMinOffset commitLogMaxOffset
//	rates (package stats)       putTps getFoundTps getMissTps getTotalTps getTransferedTps
//	                            putMessageDistributeTime putLatency99 putLatency999
//	schedule                    scheduleMessageOffset_<level> = "delivered,max"
//	BrokerStats                 msgPutTotal{YesterdayMorning,TodayMorning,TodayNow}, msgGetTotal...
//	pools                       {send,pull,query}ThreadPoolQueue{Size,Capacity,HeadWaitTimeMills},
//	                            EndTransactionQueueSize, EndTransactionThreadPoolQueueCapacity
//	store, again                dispatchBehindBytes pageCacheLockTimeMills earliestMessageTimeStamp
//	                            remainTransientStoreBufferNumbs remainHowManyDataToFlush
//	                            commitLogDirCapacity
//	version                     brokerVersionDesc brokerVersion startAcceptSendRequestTimeStamp
//
// Where Skyrocket differs underneath: sends are served on the event loops, so the send
// pool holds only send-backs and transactions (EndTransactionQueueSize is that pool
// too); a pool's head wait time is 0 when its queue is empty, and otherwise the longest
// wait a worker saw in the last second (remoting.Pool keeps no enqueue time readable
// from here); pageCacheLockTimeMills is 0 (the store's append lock is not observable
// from the broker and is held for one copy); the transient store pool is not built, so
// remainTransientStoreBufferNumbs is Integer.MAX_VALUE as Java reports it then.

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

func (b *Broker) getBrokerRuntimeInfo(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	kv := protocol.KVTable{Table: b.runtimeInfo()}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = kv.AppendJSON(nil)
	return resp, nil
}

// runtimeInfo is Java's prepareRuntimeInfo.
func (b *Broker) runtimeInfo() map[string]string {
	s := &b.stats
	cfg := b.config()
	m := b.store.RuntimeInfo()
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	// Java writes these doubles with String.valueOf ("0.0", "244.40909090909092").
	if f, err := strconv.ParseFloat(m["putMessageAverageSize"], 64); err == nil {
		m["putMessageAverageSize"] = compat.JavaDoubleString(f)
	}
	// The disk ratios as Java measures them (UtilAll#getDiskPartitionSpaceUsedPercent):
	// a whole percent, rounded up, of used / (used + usable), so "0.61"; the store's
	// own ratio (used / total) answers its cleaning thresholds.
	minRatio := math.MaxFloat64
	for k := range m {
		if dir, ok := strings.CutPrefix(k, "commitLogDiskRatio_"); ok {
			r := store.DiskUsedRatio(dir)
			m[k] = compat.JavaDoubleString(r)
			minRatio = math.Min(minRatio, r)
		}
	}
	if minRatio != math.MaxFloat64 {
		m["commitLogDiskRatio"] = compat.JavaDoubleString(minRatio)
	}
	m["consumeQueueDiskRatio"] = compat.JavaDoubleString(store.DiskUsedRatio(filepath.Join(cfg.Store.StorePathRootDir, "consumequeue")))

	m["putTps"] = s.PutTPS()
	m["getFoundTps"] = s.GetFoundTPS()
	m["getMissTps"] = s.GetMissTPS()
	m["getTransferedTps"] = s.GetTransferredTPS()
	m["getTotalTps"] = s.GetTotalTPS()
	m["putMessageDistributeTime"] = s.PutDistribution()
	m["putLatency99"] = fmt.Sprintf("%.2f", s.PutLatencyPercentile(0.99))
	m["putLatency999"] = fmt.Sprintf("%.2f", s.PutLatencyPercentile(0.999))
	b.scheduleRunningStats(m)
	b.timerRunningStats(m)

	m["brokerVersionDesc"] = protocol.VersionDesc(protocol.CurrentVersion)
	m["brokerVersion"] = strconv.Itoa(int(protocol.CurrentVersion))
	day := s.DayTotals()
	m["msgPutTotalYesterdayMorning"] = i64(day.PutYesterdayMorning)
	m["msgPutTotalTodayMorning"] = i64(day.PutTodayMorning)
	m["msgPutTotalTodayNow"] = i64(day.PutTodayNow)
	m["msgGetTotalYesterdayMorning"] = i64(day.GetYesterdayMorning)
	m["msgGetTotalTodayMorning"] = i64(day.GetTodayMorning)
	m["msgGetTotalTodayNow"] = i64(day.GetTodayNow)

	p := &b.pools
	m["sendThreadPoolQueueSize"] = strconv.Itoa(p.send.Len())
	m["sendThreadPoolQueueCapacity"] = strconv.Itoa(int(cfg.Broker.SendThreadPoolQueueCapacity))
	m["pullThreadPoolQueueSize"] = strconv.Itoa(p.pull.Len())
	m["pullThreadPoolQueueCapacity"] = strconv.Itoa(int(cfg.Broker.PullThreadPoolQueueCapacity))
	m["queryThreadPoolQueueSize"] = strconv.Itoa(p.query.Len())
	m["queryThreadPoolQueueCapacity"] = strconv.Itoa(int(cfg.Broker.QueryThreadPoolQueueCapacity))
	m["EndTransactionQueueSize"] = strconv.Itoa(p.send.Len())
	m["EndTransactionThreadPoolQueueCapacity"] = strconv.Itoa(int(cfg.Broker.EndTransactionPoolQueueCapacity))
	m["sendThreadPoolQueueHeadWaitTimeMills"] = i64(s.HeadWait(p.send))
	m["pullThreadPoolQueueHeadWaitTimeMills"] = i64(s.HeadWait(p.pull))
	m["queryThreadPoolQueueHeadWaitTimeMills"] = i64(s.HeadWait(p.query))

	m["dispatchBehindBytes"] = i64(b.store.DispatchBehindBytes())
	m["pageCacheLockTimeMills"] = "0"
	m["earliestMessageTimeStamp"] = i64(b.earliestMessageTime())
	m["startAcceptSendRequestTimeStamp"] = i64(cfg.Broker.StartAcceptSendRequestTimeStamp)
	m["remainTransientStoreBufferNumbs"] = strconv.Itoa(math.MaxInt32)
	m["remainHowManyDataToFlush"] = humanReadableBytes(max64(b.store.MaxPhyOffset()-b.store.FlushedOffset(), 0))
	if total, free, ok := diskSpace(cfg.Store.StorePathRootDir); ok {
		m["commitLogDirCapacity"] = fmt.Sprintf("Total : %s, Free : %s.", humanReadableBytes(total), humanReadableBytes(free))
	}
	return m
}

// earliestMessageTime is the store time of the first CommitLog record, or -1 (Java:
// DefaultMessageStore#getEarliestMessageTime()).
func (b *Broker) earliestMessageTime() int64 {
	min := b.store.MinPhyOffset()
	if min < 0 {
		return -1
	}
	rec, release, err := b.store.MessageByOffset(min)
	if err != nil {
		return -1
	}
	defer release()
	ts, ok := message.StoreTimestampOf(rec)
	if !ok {
		return -1
	}
	return ts
}

// humanReadableBytes is Java MixAll.humanReadableByteCount(bytes, false).
func humanReadableBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	exp := int(math.Log(float64(n)) / math.Log(unit))
	return fmt.Sprintf("%.1f %ciB", float64(n)/math.Pow(unit, float64(exp)), "KMGTPE"[exp-1])
}

// diskSpace returns the total and usable bytes of the file system holding dir (Java:
// File#getTotalSpace, #getUsableSpace).
func diskSpace(dir string) (total, free int64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	return int64(st.Blocks) * int64(st.Frsize), int64(st.Bavail) * int64(st.Frsize), true
}
