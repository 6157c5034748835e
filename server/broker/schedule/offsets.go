package schedule

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// FileName is the name of the schedule progress file under <root>/config (Java:
// StorePathConfigHelper#getDelayOffsetStorePath).
const FileName = "delayOffset.json"

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
