package stats

// The named sets (Java: StatsItemSet, StatsItem): items keyed by topic, queue and group,
// each counting a value and a number of calls, sampled into minute, hour and day windows.

import (
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// statsSnapshot is Java's CallSnapshot of a stats item.
type statsSnapshot struct{ ts, times, value int64 }

// Window is one window of a stats item (Java: StatsSnapshot, answered as BrokerStatsItem):
// the value added between its first and last sample, per second and per call.
type Window struct {
	Sum   int64
	TPS   float64
	AvgPT float64
	Times int64
}

// statsItem is Java's StatsItem.
type statsItem struct {
	value, times atomic.Int64

	mu                   sync.Mutex // guards the sample lists
	minute, hour, dayWin []statsSnapshot
}

func (it *statsItem) add(v, times int64) {
	it.value.Add(v)
	it.times.Add(times)
}

// sample appends a snapshot to one window (Java: samplingInSeconds/Minutes/Hour): the
// first one is preceded by a zero snapshot one period earlier, and the list keeps max.
func (it *statsItem) sample(list *[]statsSnapshot, now, period int64, max int) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if len(*list) == 0 {
		*list = append(*list, statsSnapshot{ts: now - period})
	}
	*list = append(*list, statsSnapshot{ts: now, times: it.times.Load(), value: it.value.Load()})
	if len(*list) > max {
		*list = append((*list)[:0], (*list)[1:]...)
	}
}

// window computes a window from its first and last snapshot (Java: computeStatsData).
func (it *statsItem) window(list *[]statsSnapshot) Window {
	it.mu.Lock()
	defer it.mu.Unlock()
	var w Window
	l := *list
	if len(l) == 0 {
		return w
	}
	first, last := l[0], l[len(l)-1]
	w.Sum = last.value - first.value
	if dt := last.ts - first.ts; dt > 0 {
		w.TPS = float64(w.Sum) * 1000 / float64(dt)
	}
	w.Times = last.times - first.times
	if w.Times > 0 {
		w.AvgPT = float64(w.Sum) / float64(w.Times)
	}
	return w
}

// statsKey holds the parts of a Java stats key; which parts a set uses, and how they
// are written, is the set's keyFormat.
type statsKey struct {
	topic, group string
	queue        int32
}

type keyFormat uint8

const (
	keyOne             keyFormat = iota // topic (or the cluster name)
	keyTopicQueue                       // topic@queueId
	keyTopicGroup                       // topic@group
	keyTopicQueueGroup                  // topic@queueId@group
	keyQueueTopicGroup                  // queueId@topic@group
	keyCluster                          // the cluster name; stored under the zero key
)

// parse splits a Java key. Topic and group names cannot hold '@' (the broker validates
// topics; groups are named like topics), so the split is unambiguous.
func (f keyFormat) parse(key string) (statsKey, bool) {
	parts := strings.Split(key, "@")
	q := func(s string) (int32, bool) {
		n, err := strconv.ParseInt(s, 10, 32)
		return int32(n), err == nil
	}
	switch f {
	case keyOne:
		return statsKey{topic: key}, len(parts) == 1
	case keyTopicQueue:
		if len(parts) == 2 {
			n, ok := q(parts[1])
			return statsKey{topic: parts[0], queue: n}, ok
		}
	case keyTopicGroup:
		if len(parts) == 2 {
			return statsKey{topic: parts[0], group: parts[1]}, true
		}
	case keyTopicQueueGroup:
		if len(parts) == 3 {
			n, ok := q(parts[1])
			return statsKey{topic: parts[0], queue: n, group: parts[2]}, ok
		}
	case keyQueueTopicGroup:
		if len(parts) == 3 {
			n, ok := q(parts[0])
			return statsKey{topic: parts[1], queue: n, group: parts[2]}, ok
		}
	}
	return statsKey{}, false
}

// statsShards splits a set's items so that adding a key copies a fraction of them.
const statsShards = 16

// statsSet is Java's StatsItemSet. Each shard's item map is replaced, never changed, so
// lookups take no lock; a new key copies one shard under its mutex.
type statsSet struct {
	name   string
	format keyFormat
	seed   maphash.Seed
	shards [statsShards]statsShard
}

type statsShard struct {
	mu    sync.Mutex // serializes writers of the shard
	items atomic.Pointer[map[statsKey]*statsItem]
}

func newStatsSet(name string, f keyFormat) *statsSet {
	s := &statsSet{name: name, format: f, seed: maphash.MakeSeed()}
	for i := range s.shards {
		m := map[statsKey]*statsItem{}
		s.shards[i].items.Store(&m)
	}
	return s
}

func (s *statsSet) shard(k statsKey) *statsShard {
	h := maphash.String(s.seed, k.topic) ^ maphash.String(s.seed, k.group) ^ uint64(k.queue)
	return &s.shards[h%statsShards]
}

func (s *statsSet) get(k statsKey) *statsItem { return (*s.shard(k).items.Load())[k] }

// add counts v (and times calls) under k, creating the item on first use (Java:
// StatsItemSet#addValue / getAndCreateStatsItem).
func (s *statsSet) add(k statsKey, v, times int64) {
	sh := s.shard(k)
	it := (*sh.items.Load())[k]
	if it == nil {
		it = sh.create(k)
	}
	it.add(v, times)
}

func (sh *statsShard) create(k statsKey) *statsItem {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	old := *sh.items.Load()
	if it := old[k]; it != nil {
		return it
	}
	k.topic, k.group = strings.Clone(k.topic), strings.Clone(k.group)
	m := make(map[statsKey]*statsItem, len(old)+1)
	for kk, v := range old {
		m[kk] = v
	}
	it := &statsItem{}
	m[k] = it
	sh.items.Store(&m)
	return it
}

// deleteWhere drops the items whose key matches (Java: delValue*).
func (s *statsSet) deleteWhere(match func(statsKey) bool) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		old := *sh.items.Load()
		m := make(map[statsKey]*statsItem, len(old))
		for k, v := range old {
			if !match(k) {
				m[k] = v
			}
		}
		sh.items.Store(&m)
		sh.mu.Unlock()
	}
}

func (s *statsSet) each(fn func(*statsItem)) {
	for i := range s.shards {
		for _, it := range *s.shards[i].items.Load() {
			fn(it)
		}
	}
}
