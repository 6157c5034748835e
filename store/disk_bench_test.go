package store

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// BenchmarkDisk_Durable1KiB is the raw cost behind the two CommitLog write paths: make
// 1 KiB durable in a pre-allocated, zero-filled file, either by pwrite + fdatasync or by
// a write through a shared mapping + msync(MS_SYNC) of its page; and pwrite + fdatasync
// in a file only fallocated (unwritten extents: each sync also commits the conversion). Each op appends at the
// next KiB, as the CommitLog does, so a page is written back up to four times and the
// mapping pays a write fault on each page just written back.
func BenchmarkDisk_Durable1KiB(b *testing.B) {
	const size = 64 << 20
	buf := make([]byte, 1024)
	for i := range buf {
		buf[i] = byte(i)
	}
	open := func(b *testing.B) *os.File {
		f, err := os.OpenFile(filepath.Join(b.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		if err := preallocate(f, 0, size); err != nil {
			b.Fatal(err)
		}
		if err := zeroFill(f, size, func() bool { return false }); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		return f
	}
	b.Run("pwrite+fdatasync", func(b *testing.B) {
		f := open(b)
		mf := &mappedFile{path: f.Name(), size: size, fd: f, sysfd: int(f.Fd())}
		b.SetBytes(1024)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := mf.writeAt(buf, int64(i%(size/1024))*1024); err != nil {
				b.Fatal(err)
			}
			if err := fdatasync(int(f.Fd())); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The alternatives to fdatasync on the same file. O_DSYNC makes each pwrite durable
	// on its own (the write and the device flush in one call): the appender would wait
	// for the disk under the append lock, on the event loop, and no group commit could
	// share a flush; it is measured to know what the flush costs, not as a candidate.
	// sync_file_range(WAIT_BEFORE|WRITE|WAIT_AFTER) writes the range back without the
	// device cache flush or any metadata: not durable (sync_file_range(2) says so), the
	// floor under any durable write. 16KiB is one group commit of 16 sends.
	b.Run("pwrite-O_DSYNC", func(b *testing.B) {
		f := open(b)
		d, err := os.OpenFile(f.Name(), os.O_WRONLY|syscall.O_DSYNC, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		b.SetBytes(1024)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := syscall.Pwrite(int(d.Fd()), buf, int64(i%(size/1024))*1024); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pwrite+sync_file_range(not-durable)", func(b *testing.B) {
		f := open(b)
		mf := &mappedFile{path: f.Name(), size: size, fd: f, sysfd: int(f.Fd())}
		const flags = 1 | 2 | 4 // SYNC_FILE_RANGE_WAIT_BEFORE | WRITE | WAIT_AFTER
		b.SetBytes(1024)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			off := int64(i%(size/1024)) * 1024
			if err := mf.writeAt(buf, off); err != nil {
				b.Fatal(err)
			}
			if err := syscall.SyncFileRange(int(f.Fd()), off, 1024, flags); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pwrite16KiB+fdatasync", func(b *testing.B) {
		f := open(b)
		mf := &mappedFile{path: f.Name(), size: size, fd: f, sysfd: int(f.Fd())}
		big := make([]byte, 16<<10)
		b.SetBytes(int64(len(big)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := mf.writeAt(big, int64(i%(size/len(big)))*int64(len(big))); err != nil {
				b.Fatal(err)
			}
			if err := fdatasync(int(f.Fd())); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pwrite+fdatasync/fallocated-only", func(b *testing.B) {
		f := fallocatedFile(b, size)
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		mf := &mappedFile{path: f.Name(), size: size, fd: f, sysfd: int(f.Fd())}
		b.SetBytes(1024)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := mf.writeAt(buf, int64(i%(size/1024))*1024); err != nil {
				b.Fatal(err)
			}
			if err := fdatasync(int(f.Fd())); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mapping+msync", func(b *testing.B) {
		f := open(b)
		data, err := mmapFile(f, size)
		if err != nil {
			b.Fatal(err)
		}
		defer syscall.Munmap(data)
		b.SetBytes(1024)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			off := (i % (size / 1024)) * 1024
			copy(data[off:], buf)
			if err := msync(data, off, off+1024); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDisk_AppendAfterZeros is what the size of the writes of zeros (zeroWrite,
// zerofill.go) costs the appends that follow: a file fallocated and zero-filled in writes
// of the given size (the folios the page cache makes follow them), then 1.2 KB records
// written one after the other with an fdatasync every 20, as a group commit does. It
// reports the process's CPU time per append (cpu-ns/op: user + system, the flush's share
// included) beside the wall time; zeros=64KiB is the fill's size, zeros=4MiB the one it
// replaced.
func BenchmarkDisk_AppendAfterZeros(b *testing.B) {
	const size = 64 << 20
	const rec = 1200
	buf := make([]byte, rec)
	for _, piece := range []int64{4 << 20, 1 << 20, zeroWrite, 4 << 10} {
		b.Run("zeros="+byteSize(piece), func(b *testing.B) {
			f := fallocatedFile(b, size)
			for off := int64(0); off < size; off += piece {
				if _, err := f.WriteAt(zeroPage[:piece], off); err != nil {
					b.Fatal(err)
				}
			}
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
			mf := &mappedFile{path: f.Name(), size: size, fd: f, sysfd: int(f.Fd())}
			b.SetBytes(rec)
			c0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := mf.writeAt(buf, int64(i%(size/rec))*rec); err != nil {
					b.Fatal(err)
				}
				if i%20 == 19 {
					if err := fdatasync(mf.sysfd); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user + system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	default:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
}

// fallocatedFile is a new file in b's temp dir with size bytes reserved (unwritten
// extents), closed at the end of the benchmark.
func fallocatedFile(b *testing.B, size int64) *os.File {
	b.Helper()
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	if err := preallocate(f, 0, size); err != nil {
		b.Fatal(err)
	}
	return f
}
