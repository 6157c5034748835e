package store

import "syscall"

// diskUsedRatio is Java UtilAll#getDiskPartitionSpaceUsedPercent: (total - free) / total
// of the partition holding path, -1 when it cannot be read.
func diskUsedRatio(path string) float64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil || st.Blocks == 0 {
		return -1
	}
	return float64(st.Blocks-st.Bfree) / float64(st.Blocks)
}

// totalPhysicalMemory is Java StoreUtil#TOTAL_PHYSICAL_MEMORY_SIZE, 0 if unknown.
func totalPhysicalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
