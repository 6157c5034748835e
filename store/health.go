package store

// WriteStatus is nil when the store accepts puts, else why not (closed, slave or
// read-only, disk full, ConsumeQueue not writable, page cache busy): the readiness
// probe's "writable" (Java: DefaultMessageStore#checkStoreStatus).
func (s *Store) WriteStatus() error {
	_, err := s.checkStoreStatus()
	return err
}

// RecoveryProgress is how far the store's load and recovery have come (Config.OnRecoveryProgress):
// Stage "consumequeue" counts ConsumeQueues checked (files), "commitlog" the CommitLog
// files scanned and their bytes, "replay" the CommitLog bytes dispatched again into the
// ConsumeQueues and the index (files: an estimate from the file size).
type RecoveryProgress struct {
	Stage                 string
	FilesDone, FilesTotal int
	BytesDone, BytesTotal int64
}

func (s *Store) progress(p RecoveryProgress) {
	if s.cfg.OnRecoveryProgress != nil {
		s.cfg.OnRecoveryProgress(p)
	}
}
