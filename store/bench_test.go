package store

import (
	"sync/atomic"
	"testing"
	"time"
)

func benchConfig(b *testing.B) Config {
	c := DefaultConfig(b.TempDir())
	c.MappedFileSizeCommitLog = 64 << 20
	c.MappedFileSizeConsumeQueue = 300000 * cqUnitSize
	c.MaxHashSlotNum = 1 << 16
	c.MaxIndexNum = 1 << 20
	return c
}

const benchProps = "TAGS\x01TagA\x02UNIQ_KEY\x01C0A8000100002A9F0000000000001234\x02WAIT\x01true"

// BenchmarkStore_PutMessage_1KiB measures the append path: encode straight into the
// mapped file under the append lock. allocs/op counts the dispatch goroutine too.
func BenchmarkStore_PutMessage_1KiB(b *testing.B) {
	s := openStore(b, benchConfig(b))
	defer s.Close()
	m := testMessage("BenchTopic", 0, string(make([]byte, 1024)), benchProps)
	for i := 0; i < 1000; i++ { // warm: first file, queue table entry, ConsumeQueue
		mustPut(b, s, m)
	}
	waitDispatched(b, s)
	b.SetBytes(int64(len(m.Body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.PutMessage(m); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	waitDispatched(b, s)
}

// BenchmarkStore_PutMessage_1KiB_Parallel is the same with concurrent producers.
func BenchmarkStore_PutMessage_1KiB_Parallel(b *testing.B) {
	s := openStore(b, benchConfig(b))
	defer s.Close()
	m := testMessage("BenchTopic", 0, string(make([]byte, 1024)), benchProps)
	mustPut(b, s, m)
	b.SetBytes(1024)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.PutMessage(m); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// writeModes are the CommitLog write paths the append benchmarks compare.
var writeModes = []struct {
	name string
	mode CommitLogWriteMode
}{{"mapped", CommitLogWriteMapped}, {"fd", CommitLogWriteFD}}

// BenchmarkStore_PutMessage_SyncFlush_Parallel measures durable appends with group
// commit: 16 producers per core each waiting for its flush, through the mapping (write
// faults + msync) and through the descriptor (pwrite + fdatasync).
func BenchmarkStore_PutMessage_SyncFlush_Parallel(b *testing.B) {
	for _, wm := range writeModes {
		b.Run(wm.name, func(b *testing.B) {
			c := benchConfig(b)
			c.FlushDiskType = SyncFlush
			c.CommitLogWrite = wm.mode
			s := openStore(b, c)
			defer s.Close()
			m := testMessage("BenchTopic", 0, string(make([]byte, 1024)), benchProps)
			mustPut(b, s, m)
			syncs := s.cl.syncs.Load()
			b.SetBytes(1024)
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r, err := s.PutMessage(m)
					if err == nil {
						err = s.WaitFlushed(r.WroteOffset+int64(r.WroteBytes), 5*time.Second)
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/float64(s.cl.syncs.Load()-syncs), "appends/sync")
		})
	}
}

// BenchmarkStore_PutMessage_SyncFlush_One is one producer waiting for each flush: the
// latency of one durable append (ns/op), group commit out of the picture.
func BenchmarkStore_PutMessage_SyncFlush_One(b *testing.B) {
	for _, wm := range writeModes {
		b.Run(wm.name, func(b *testing.B) {
			c := benchConfig(b)
			c.FlushDiskType = SyncFlush
			c.CommitLogWrite = wm.mode
			s := openStore(b, c)
			defer s.Close()
			m := testMessage("BenchTopic", 0, string(make([]byte, 1024)), benchProps)
			mustPut(b, s, m)
			b.SetBytes(1024)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := s.PutMessage(m)
				if err == nil {
					err = s.WaitFlushed(r.WroteOffset+int64(r.WroteBytes), 5*time.Second)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStore_PutMessage_AsyncFlush_Parallel is the ASYNC_FLUSH append through
// either write path, with the periodic flush running.
func BenchmarkStore_PutMessage_AsyncFlush_Parallel(b *testing.B) {
	for _, wm := range writeModes {
		b.Run(wm.name, func(b *testing.B) {
			c := benchConfig(b)
			c.CommitLogWrite = wm.mode
			s := openStore(b, c)
			defer s.Close()
			m := testMessage("BenchTopic", 0, string(make([]byte, 1024)), benchProps)
			mustPut(b, s, m)
			b.SetBytes(1024)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := s.PutMessage(m); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkStore_GetMessage_32x1KiB pulls 32 messages of 1 KiB: the buffers are
// slices of the mapping, nothing is copied.
func BenchmarkStore_GetMessage_32x1KiB(b *testing.B) {
	s := openStore(b, benchConfig(b))
	defer s.Close()
	m := testMessage("BenchTopic", 0, string(make([]byte, 1024)), benchProps)
	const n = 32 * 256
	for i := 0; i < n; i++ {
		mustPut(b, s, m)
	}
	waitDispatched(b, s)
	var found atomic.Int64
	b.ReportAllocs()
	b.SetBytes(32 * 1024)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := s.GetMessage("g", "BenchTopic", 0, int64(i%256)*32, 32, nil)
		if r.Status != GetFound || len(r.Buffers) != 32 {
			b.Fatalf("status %v, %d buffers", r.Status, len(r.Buffers))
		}
		found.Add(int64(len(r.Buffers)))
		r.Release()
	}
}
