package store

import (
	"os"
	"path/filepath"
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
	b.Run("pwrite+fdatasync/fallocated-only", func(b *testing.B) {
		f, err := os.OpenFile(filepath.Join(b.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := preallocate(f, 0, size); err != nil {
			b.Fatal(err)
		}
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
