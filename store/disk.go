package store

import "syscall"

// DiskUsedRatio is Java UtilAll#getDiskPartitionSpaceUsedPercent: the used part of the
// partition holding path, (total - free) / ((total - free) + usable) — space reserved for
// root counts as neither —, rounded up to a whole percent; -1 when it cannot be read. The
// store's cleaning and disk-full thresholds and the admin runtime keys use it.
func DiskUsedRatio(path string) float64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil || st.Blocks == 0 {
		return -1
	}
	bs := uint64(st.Frsize)
	used := (st.Blocks - st.Bfree) * bs
	entire := used + st.Bavail*bs
	if entire == 0 {
		return -1 // Java: the division throws, and the catch answers -1
	}
	pct := used * 100 / entire
	if used*100%entire != 0 {
		pct++
	}
	return float64(pct) / 100
}

// totalPhysicalMemory is Java StoreUtil#TOTAL_PHYSICAL_MEMORY_SIZE, 0 if unknown.
func totalPhysicalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
