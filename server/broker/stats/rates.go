package stats

// The store-level figures of GET_BROKER_RUNTIME_INFO (sets.go has the named sets): the
// rates Java's StoreStatsService samples every second (putTps, getFoundTps, getMissTps,
// getTotalTps, getTransferedTps over 10, 60 and 600 s), the put latency distribution of
// the last full minute (putMessageDistributeTime, putLatency99/999), the pools' head wait
// bound, and the day totals of BrokerStats (msgPutTotal*, msgGetTotal*).

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// rateSample is one second of StoreStatsService's sampling.
type rateSample struct{ ts, puts, found, miss, transferred int64 }

// Put latency buckets (Java: StoreStatsService PUT_MESSAGE_ENTIRE_TIME_MAX_DESC and
// PUT_MESSAGE_ENTIRE_TIME_BUCKETS).
var (
	putDistDesc = [13]string{"[<=0ms]", "[0~10ms]", "[10~50ms]", "[50~100ms]", "[100~200ms]", "[200~500ms]",
		"[500ms~1s]", "[1~2s]", "[2~3s]", "[3~4s]", "[4~5s]", "[5~10s]", "[10s~]"}
	putDistBounds = [12]int64{0, 9, 49, 99, 199, 499, 999, 1999, 2999, 3999, 4999, 9999} // inclusive upper bounds
	pxBounds      = putPercentileBounds()
)

// putPercentileBounds lists the upper bound of each percentile bucket: steps of 1 ms up
// to 20, 2 to 50, 5 to 100, 10 to 200, 50 to 500, 100 to 1000, 1000 to 10000, then
// MaxInt64.
func putPercentileBounds() []int64 {
	steps := [][2]int64{{1, 20}, {2, 15}, {5, 10}, {10, 10}, {50, 6}, {100, 5}, {1000, 9}}
	var out []int64
	var at int64
	for _, s := range steps {
		for i := int64(0); i < s[1]; i++ {
			at += s[0]
			out = append(out, at)
		}
	}
	return append(out, math.MaxInt64)
}

// latencyCounts is one minute of put latencies.
type latencyCounts struct {
	dist [13]atomic.Int64
	px   []atomic.Int64 // len(pxBounds)
}

func newLatencyCounts() *latencyCounts {
	return &latencyCounts{px: make([]atomic.Int64, len(pxBounds))}
}

func (l *latencyCounts) add(ms int64) {
	i := 0
	for i < len(putDistBounds) && ms > putDistBounds[i] {
		i++
	}
	l.dist[i].Add(1)
	j := 0
	for j < len(pxBounds)-1 && ms > pxBounds[j] {
		j++
	}
	l.px[j].Add(1)
}

// nextMorning is the next local midnight (Java: UtilAll.computeNextMorningTimeMillis).
func nextMorning(now time.Time) time.Time {
	y, m, d := now.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, now.Location())
}

func (s *Manager) sampleRates() {
	s.init()
	s.rateMu.Lock()
	defer s.rateMu.Unlock()
	var puts int64
	if s.puts != nil {
		puts = s.puts()
	}
	now := s.now().UnixMilli()
	s.rates = append(s.rates, rateSample{ts: now, puts: puts, found: s.getFound.Load(),
		miss: s.getMiss.Load(), transferred: s.getTransferred.Load()})
	if len(s.rates) > rateSamples {
		s.rates = append(s.rates[:0], s.rates[1:]...)
	}
	if s.seenEmpty == nil {
		s.seenEmpty = map[Queue]int64{}
	}
	for _, p := range s.pools {
		if p.Len() == 0 {
			s.seenEmpty[p] = now
		}
	}
}

// HeadWait bounds how long the head of a pool's queue has waited, in ms: 0 when the
// queue is empty, else the time since the sampler last saw it empty (every task queued
// now arrived after that). Java: BrokerController#headSlowTimeMills.
func (s *Manager) HeadWait(p Queue) int64 {
	if p.Len() == 0 {
		return 0
	}
	s.rateMu.Lock()
	defer s.rateMu.Unlock()
	seen, ok := s.seenEmpty[p]
	if !ok {
		return 0
	}
	return max(s.now().UnixMilli()-seen, 0)
}

// rollLatency starts a new minute of put latencies (Java: printTps resets them).
func (s *Manager) rollLatency() {
	s.init()
	s.lastDist.Store(s.latency.Swap(newLatencyCounts()))
}

// recordDay is Java's BrokerStats#record.
func (s *Manager) recordDay() {
	puts := s.putTotal()
	s.dayMu.Lock()
	defer s.dayMu.Unlock()
	s.putYesterday, s.getYesterday = s.putToday, s.getToday
	s.putToday, s.getToday = puts, s.getTransferred.Load()
}

// putTotal is the store's put count now (Java: getPutMessageTimesTotal).
func (s *Manager) putTotal() int64 {
	s.rateMu.Lock()
	f := s.puts
	s.rateMu.Unlock()
	if f == nil {
		return 0
	}
	return f()
}

// DayTotals are the put and get counts at the last two local midnights and now (Java:
// BrokerStats, msgPutTotal* and msgGetTotal* of GET_BROKER_RUNTIME_INFO).
type DayTotals struct {
	PutYesterdayMorning, PutTodayMorning, PutTodayNow int64
	GetYesterdayMorning, GetTodayMorning, GetTodayNow int64
}

// DayTotals returns the day totals.
func (s *Manager) DayTotals() DayTotals {
	puts := s.putTotal()
	s.dayMu.Lock()
	defer s.dayMu.Unlock()
	return DayTotals{s.putYesterday, s.putToday, puts, s.getYesterday, s.getToday, s.getTransferred.Load()}
}

// rateField selects a counter of a rate sample.
type rateField func(rateSample) int64

var (
	ratePuts        rateField = func(r rateSample) int64 { return r.puts }
	rateFound       rateField = func(r rateSample) int64 { return r.found }
	rateMiss        rateField = func(r rateSample) int64 { return r.miss }
	rateTransferred rateField = func(r rateSample) int64 { return r.transferred }
)

// tps is the rate of one counter over the last window samples, and false when fewer
// samples exist (Java: StoreStatsService#getPutTps(int) ...).
func (s *Manager) tps(f rateField, window int) (float64, bool) {
	s.rateMu.Lock()
	defer s.rateMu.Unlock()
	if len(s.rates) <= window {
		return 0, false
	}
	last, before := s.rates[len(s.rates)-1], s.rates[len(s.rates)-1-window]
	dt := last.ts - before.ts
	if dt <= 0 {
		return 0, true
	}
	return float64(f(last)-f(before)) / float64(dt) * 1000, true
}

// PutTPS, GetFoundTPS, GetMissTPS and GetTransferredTPS are Java's StoreStatsService
// getPutTps, getGetFoundTps, getGetMissTps and getGetTransferedTps: "r10 r60 r600".
func (s *Manager) PutTPS() string            { return s.tpsText(ratePuts) }
func (s *Manager) GetFoundTPS() string       { return s.tpsText(rateFound) }
func (s *Manager) GetMissTPS() string        { return s.tpsText(rateMiss) }
func (s *Manager) GetTransferredTPS() string { return s.tpsText(rateTransferred) }

// tpsText is "r10 r60 r600" with an empty part for each window not yet filled (Java's
// putTps, getFoundTps, getMissTps, getTransferedTps).
func (s *Manager) tpsText(f rateField) string {
	var b strings.Builder
	for i, w := range [3]int{10, 60, 600} {
		if i > 0 {
			b.WriteByte(' ')
		}
		if v, ok := s.tps(f, w); ok {
			b.WriteString(compat.JavaDoubleString(v))
		}
	}
	return b.String()
}

// GetTotalTPS is getTotalTps: found + missed, 0.0 for a window not yet filled.
func (s *Manager) GetTotalTPS() string {
	var b strings.Builder
	for i, w := range [3]int{10, 60, 600} {
		if i > 0 {
			b.WriteByte(' ')
		}
		found, _ := s.tps(rateFound, w)
		miss, _ := s.tps(rateMiss, w)
		b.WriteString(compat.JavaDoubleString(found + miss))
	}
	return b.String()
}

// PutDistribution is putMessageDistributeTime for the last full minute ("null" during
// the first, as Java).
func (s *Manager) PutDistribution() string {
	l := s.lastDist.Load()
	if l == nil {
		return "null"
	}
	var b strings.Builder
	for i := range l.dist {
		b.WriteString(putDistDesc[i])
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(l.dist[i].Load(), 10))
		b.WriteByte(' ')
	}
	return b.String()
}

// PutLatencyPercentile is Java's findPutMessageEntireTimePX over the last full minute
// (putLatency99, putLatency999): linear interpolation inside the bucket that holds the
// px-th put.
func (s *Manager) PutLatencyPercentile(px float64) float64 {
	l := s.lastDist.Load()
	if l == nil {
		return 0
	}
	var total int64
	for i := range l.px {
		total += l.px[i].Load()
	}
	idx := int64(float64(total) * px)
	var pass int64
	for i := range l.px {
		n := l.px[i].Load()
		if idx <= pass+n {
			rel := idx - pass
			if n == 0 {
				if i == 0 {
					return 0
				}
				return float64(pxBounds[i-1])
			}
			lo := int64(0)
			if i > 0 {
				lo = pxBounds[i-1]
			}
			return float64(lo) + float64(pxBounds[i]-lo)*float64(rel)/float64(n)
		}
		pass += n
	}
	return 0
}

func (s *Manager) recordLatency(storeTimestamp int64) {
	if storeTimestamp <= 0 {
		return
	}
	ms := s.now().UnixMilli() - storeTimestamp
	if ms < 0 {
		ms = 0
	}
	s.latency.Load().add(ms)
}
