package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// FileName is the name of the schedule progress file under <root>/config (Java:
// StorePathConfigHelper#getDelayOffsetStorePath).
const FileName = "delayOffset.json"

// offsetFile is delayOffset.json as Java's ConfigManager keeps it: loaded at start,
// falling back to <file>.bak, and persisted atomically in fastjson's pretty layout so a
// Java broker reads it back. (The broker's configFile does the same for its tables; the
// service keeps its own so it does not depend on the broker.)
type offsetFile struct {
	path string
	mu   sync.Mutex // serializes writers of this file
}

// load reads the file (or its .bak) and hands standard JSON to decode. A missing file is
// not an error: the table starts empty, as in Java.
func (f *offsetFile) load(decode func(std []byte) error) error {
	check := func(b []byte) error {
		std, err := compat.NormalizeJSON(b)
		if err != nil {
			return err
		}
		return decode(std)
	}
	data, _, err := compat.LoadConfigFile(f.path, check)
	if err != nil {
		return fmt.Errorf("broker: load %s: %w", f.path, err)
	}
	if data == nil {
		return nil
	}
	return check(data)
}

// persist writes compact JSON (fastjson dialect allowed) in fastjson's pretty layout.
func (f *offsetFile) persist(compact []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("broker: persist %s: %w", f.path, err)
	}
	if err := compat.String2File(compat.PrettyFastJSON(compact), f.path); err != nil {
		return fmt.Errorf("broker: persist %s: %w", f.path, err)
	}
	return nil
}

// decodeDelayOffsets reads {"offsetTable":{1:0,2:15}} (standard JSON after
// compat.NormalizeJSON, so the keys arrive quoted) into level → next offset (Java:
// DelayOffsetSerializeWrapper). A key that is not a level number is an error: Java's
// fastjson would fail the same way, and the .bak fallback then applies.
func decodeDelayOffsets(std []byte) (map[int]int64, error) {
	var stored struct {
		OffsetTable map[string]int64 `json:"offsetTable"`
	}
	if err := protocol.UnmarshalBody(std, &stored); err != nil {
		return nil, err
	}
	out := make(map[int]int64, len(stored.OffsetTable))
	for k, v := range stored.OffsetTable {
		level, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("broker: delay offset key %q is not a level", k)
		}
		out[level] = v
	}
	return out, nil
}

// appendDelayOffsets writes {"offsetTable":{1:0,2:15}}: fastjson's unquoted integer keys,
// ascending as Java's ConcurrentHashMap of small Integers iterates them. This is the body
// of GET_ALL_DELAY_OFFSET and, pretty-printed, the content of delayOffset.json.
func appendDelayOffsets(dst []byte, table map[int]int64) []byte {
	w := protocol.DelayOffsetSerializeWrapper{OffsetTable: table}
	return w.AppendJSON(dst)
}

// lastPersistTime is when delayOffset.json (or, without it, its .bak) was last written;
// zero when neither exists. The startup duplicate check (recover.go) looks for
// deliveries made after it.
func lastPersistTime(path string) time.Time {
	for _, p := range []string{path, path + ".bak"} {
		if fi, err := os.Stat(p); err == nil {
			return fi.ModTime()
		}
	}
	return time.Time{}
}
