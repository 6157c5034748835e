package ha

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/store"
)

// Benchmarks of the two ends of the stream over loopback TCP, per 32 KiB frame. The
// setup of each round (a connection, a fresh slave store) runs with the timer stopped,
// so allocs/op is the steady state: reading, writing and appending frames.
//
//	go test ./ha/ -run '^$' -bench . -benchmem

const benchFileSize = 8 << 20

func benchStoreConfig(dir string, slave bool) store.Config {
	c := store.DefaultConfig(dir)
	c.MappedFileSizeCommitLog = benchFileSize
	c.MessageIndexEnable = false // the index is dispatch's work, not the stream's
	c.Slave = slave
	return c
}

// benchMaster is a master store holding size bytes of 1 KiB messages.
func benchMaster(b *testing.B, size int64) *store.Store {
	b.Helper()
	ms := openStore(b, benchStoreConfig(b.TempDir(), false))
	b.Cleanup(func() { _ = ms.Close() })
	payload := strings.Repeat("m", 1024)
	for i := 0; ms.MaxPhyOffset() < size; i++ {
		m := testMessage("TopicBench", int32(i%4), payload)
		m.Properties = nil
		mustPut(b, ms, m)
	}
	return ms
}

// The master's transfer path: CommitLogChunk, header + mapped body in one writev, and
// the reader taking acks. The client reads frames and acks every 8th.
func BenchmarkMaster_Transfer(b *testing.B) {
	ms := benchMaster(b, 32<<20)
	end := ms.MaxPhyOffset()
	m := startMaster(b, ms, haConfig(nil))
	buf := make([]byte, HeaderSize+MaxFrameBody)
	var ack [8]byte
	var bytes int64
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	frames := 0
	for frames < b.N {
		nc, err := net.Dial("tcp", m.Addr())
		if err != nil {
			b.Fatal(err)
		}
		f := &fakeSlave{t: b, nc: nc}
		f.report(1) // everything (0 would mean the newest file only)
		b.StartTimer()
		for frames < b.N {
			if _, err := io.ReadFull(nc, buf[:HeaderSize]); err != nil {
				b.Fatal(err)
			}
			off := int64(binary.BigEndian.Uint64(buf))
			size := int(binary.BigEndian.Uint32(buf[8:]))
			if _, err := io.ReadFull(nc, buf[:size]); err != nil {
				b.Fatal(err)
			}
			if size == 0 {
				continue
			}
			frames++
			bytes += int64(size)
			if frames%8 == 0 || off+int64(size) == end {
				binary.BigEndian.PutUint64(ack[:], uint64(off+int64(size)))
				if _, err := nc.Write(ack[:]); err != nil {
					b.Fatal(err)
				}
			}
			if off+int64(size) == end {
				break
			}
		}
		b.StopTimer()
		_ = nc.Close()
		for len(m.Slaves()) > 0 {
			time.Sleep(time.Millisecond)
		}
	}
	b.ReportMetric(float64(bytes)/b.Elapsed().Seconds()/1e6, "MB/s")
}

// The slave's receive path: socket read into the frame buffer, header checks, whole
// records appended to the store from the buffer, a report per read. A fake master
// writes a prepared stream of 32 KiB frames.
func BenchmarkSlave_Receive(b *testing.B) {
	ms := benchMaster(b, 32<<20)
	end := ms.MaxPhyOffset()
	// The stream, and for each frame the record boundary the slave reports once it
	// has the frame: the start of a record the frame cuts off, if any.
	var bounds []int64 // every record end, the blanks' file ends included
	for file := int64(0); file < end; file += benchFileSize {
		ch := ms.CommitLogChunk(file)
		for pos := 0; pos+8 <= len(ch.Data); {
			size := int(binary.BigEndian.Uint32(ch.Data[pos:]))
			pos += size
			bounds = append(bounds, file+int64(pos))
		}
		ch.Release()
	}
	var frames [][]byte
	var acks []int64
	for off, i := int64(0), 0; off < end; {
		ch := ms.CommitLogChunk(off)
		n := min(len(ch.Data), 32768)
		frames = append(frames, appendFrame(nil, off, ch.Data[:n]))
		ch.Release()
		off += int64(n)
		for i+1 < len(bounds) && bounds[i+1] <= off {
			i++
		}
		acks = append(acks, bounds[i])
	}
	var bytes int64
	var rep [8]byte
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	done := 0
	for done < b.N {
		dir, err := os.MkdirTemp("", "ha-bench-slave")
		if err != nil {
			b.Fatal(err)
		}
		ss := openStore(b, benchStoreConfig(dir, true))
		ln, err := net.Listen("tcp", "127.0.0.1:0") // one per round: no stale connection in its backlog
		if err != nil {
			b.Fatal(err)
		}
		lb := &logBuf{}
		s := NewSlave(ss, haConfig(lb))
		s.SetMasterAddr(ln.Addr().String())
		s.Start()
		nc, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(nc, rep[:]); err != nil {
			b.Fatal(err)
		}
		n := min(len(frames), b.N-done)
		if acks[n-1] == 0 { // no whole record yet: the slave would not report
			n = min(len(frames), 2)
		}
		b.StartTimer()
		go func() {
			for _, f := range frames[:n] {
				if _, err := nc.Write(f); err != nil {
					return
				}
			}
		}()
		for want := acks[n-1]; ; {
			if _, err := io.ReadFull(nc, rep[:]); err != nil {
				b.Fatalf("%v; slave log:\n%s", err, lb)
			}
			if int64(binary.BigEndian.Uint64(rep[:])) == want {
				break
			}
		}
		b.StopTimer()
		for _, f := range frames[:n] {
			bytes += int64(len(f) - HeaderSize)
		}
		done += n
		_ = s.Close()
		_ = nc.Close()
		_ = ln.Close()
		_ = ss.Close()
		_ = os.RemoveAll(dir)
	}
	b.ReportMetric(float64(bytes)/b.Elapsed().Seconds()/1e6, "MB/s")
}
