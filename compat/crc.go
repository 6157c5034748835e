package compat

import "hash/crc32"

// CRC32 is Java's UtilAll.crc32: the CRC-32 (IEEE) of b with the sign bit cleared
// (`& 0x7FFFFFFF`), as stored in the CommitLog BODYCRC field and checked on recovery when
// checkCRCOnRecover is on. A nil or empty b gives 0, as Java's crc32(null) does.
func CRC32(b []byte) int32 {
	return int32(crc32.ChecksumIEEE(b) & 0x7FFFFFFF)
}
