package store

import "errors"

// ErrLocked is returned by Open when another process holds the store directory's lock file.
var ErrLocked = errors.New("store: directory is locked by another process")

// ErrClosed is returned when the store has been closed.
var ErrClosed = errors.New("store: closed")

// ErrServiceNotAvailable is returned (with PutServiceNotAvailable) when the store refuses
// writes: it is a slave or read-only, the disk is marked full, or dispatch is failing.
var ErrServiceNotAvailable = errors.New("store: service not available")

// ErrMessageIllegal is returned (with PutMessageIllegal) when a message breaks a limit:
// topic over 127 bytes, body over maxMessageSize, record larger than a file, a batch
// with a transaction or delay flag, or a malformed batch body.
var ErrMessageIllegal = errors.New("store: message illegal")

// ErrPropertiesSizeExceeded is returned (with PutPropertiesSizeExceeded) when the encoded
// properties exceed 32767 bytes.
var ErrPropertiesSizeExceeded = errors.New("store: properties size exceeded")

// ErrCreateMappedFile is returned (with PutCreateMappedFileFailed) when a new mapped file
// cannot be created or preallocated, for example on a full disk. Nothing already stored
// is affected and the next put tries again.
var ErrCreateMappedFile = errors.New("store: cannot create mapped file")

// ErrOSPageCacheBusy is returned (with PutOSPageCacheBusy) when an append has held the
// append lock longer than osPageCacheBusyTimeOutMills (Java: isOSPageCacheBusy).
var ErrOSPageCacheBusy = errors.New("store: OS page cache busy")

// ErrFlushTimeout is returned by WaitFlushed when the CommitLog was not flushed up to the
// requested offset within the timeout.
var ErrFlushTimeout = errors.New("store: flush timeout")

// ErrFileSize is returned by Open when a mapped file's length differs from the
// configured file size (Java: "length not matched message store config value").
var ErrFileSize = errors.New("store: mapped file length does not match the configuration")

// ErrOffsetMismatch is returned by AppendToCommitLog when the data does not start at the
// CommitLog's end.
var ErrOffsetMismatch = errors.New("store: append offset does not match the CommitLog end")

// ErrNotFound is returned when no stored record is at the requested offset.
var ErrNotFound = errors.New("store: no message at offset")

// ErrWrite is returned (with PutUnknownError) when writing a record into the CommitLog
// file fails (an I/O error from pwrite on the descriptor write path). The write
// position does not move: nothing partial is ever published, and the next append
// writes over what the failed one left.
var ErrWrite = errors.New("store: commitlog write failed")
