package timer

import (
	"encoding/json"
	"errors"
	"os"
)

// checkpoint is <root>/timer/checkpoint: how far enqueue got (the next
// rmq_sys_wheel_timer ConsumeQueue offset) and the delivery cursor (the next slot time
// not yet delivered). The log's own entries carry their ConsumeQueue offsets, so the
// checkpoint matters when the log is empty (every segment delivered and deleted) and to
// resume delivery in due order after downtime.
type checkpoint struct {
	EnqueueOffset int64 `json:"enqueueOffset"`
	CursorMs      int64 `json:"cursorMs"`
	PrecisionMs   int64 `json:"precisionMs"`
}

func loadCheckpoint(path string) (checkpoint, error) {
	var c checkpoint
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return checkpoint{}, err
	}
	return c, nil
}

// save writes the checkpoint atomically: temp file, fsync, rename.
func (c checkpoint) save(path string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
