package store

import (
	"fmt"
	"strconv"
	"time"
)

// RuntimeInfo returns the store's part of Java DefaultMessageStore#getRuntimeInfo, with
// Java's key names, for GET_BROKER_RUNTIME_INFO. The per-window TPS keys of Java's
// StoreStatsService (putTps, getFoundTps ...) and the schedule offsets are not here.
func (s *Store) RuntimeInfo() map[string]string {
	st := s.Stats()
	m := make(map[string]string, 16)
	div := max(st.PutMessageTimes, 1)
	m["bootTimestamp"] = strconv.FormatInt(st.Boot.UnixMilli(), 10)
	m["runtime"] = formatRuntime(s.cfg.now().Sub(st.Boot))
	m["putMessageEntireTimeMax"] = strconv.FormatInt(st.PutMessageMaxMs, 10)
	m["putMessageTimesTotal"] = strconv.FormatInt(div, 10)
	m["putMessageFailedTimes"] = strconv.FormatInt(st.PutMessageFailed, 10)
	m["putMessageSizeTotal"] = strconv.FormatInt(st.PutMessageBytes, 10)
	m["putMessageAverageSize"] = strconv.FormatFloat(float64(st.PutMessageBytes)/float64(div), 'f', -1, 64)
	m["getMessageEntireTimeMax"] = strconv.FormatInt(st.GetMessageMaxMs, 10)
	m["dispatchMaxBuffer"] = "0"
	cl := s.cfg.diskUsedRatio(s.cfg.CommitLogDir)
	m["commitLogDiskRatio"] = strconv.FormatFloat(cl, 'f', -1, 64)
	m["commitLogDiskRatio_"+s.cfg.CommitLogDir] = m["commitLogDiskRatio"]
	m["consumeQueueDiskRatio"] = strconv.FormatFloat(s.cfg.diskUsedRatio(s.cqRoot()), 'f', -1, 64)
	m["commitLogMinOffset"] = strconv.FormatInt(st.CommitLogMinOffset, 10)
	m["commitLogMaxOffset"] = strconv.FormatInt(st.CommitLogMaxOffset, 10)
	return m
}

// formatRuntime is Java StoreStatsService#getFormatRuntime.
func formatRuntime(d time.Duration) string {
	ms := d.Milliseconds()
	days := ms / 86400000
	hours := ms % 86400000 / 3600000
	minutes := ms % 3600000 / 60000
	seconds := ms % 60000 / 1000
	return fmt.Sprintf("[ %d days, %d hours, %d minutes, %d seconds ]", days, hours, minutes, seconds)
}
