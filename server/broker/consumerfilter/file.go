package consumerfilter

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// loadFile reads consumerFilter.json, falling back to its .bak, and hands standard JSON
// to decode (Java: ConfigManager#load). A missing file is not an error: the table starts
// empty, as in Java.
func loadFile(path string, decode func(std []byte) error) error {
	check := func(b []byte) error {
		std, err := compat.NormalizeJSON(b)
		if err != nil {
			return err
		}
		return decode(std)
	}
	data, _, err := compat.LoadConfigFile(path, check)
	if err != nil {
		return fmt.Errorf("consumerfilter: load %s: %w", path, err)
	}
	if data == nil {
		return nil
	}
	return check(data)
}

// writeFile writes compact JSON in fastjson's pretty layout, crash-safe (Java:
// ConfigManager#persist), so a Java broker can read it back.
func writeFile(path string, compact []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("consumerfilter: persist %s: %w", path, err)
	}
	if err := compat.String2File(compat.PrettyFastJSON(compact), path); err != nil {
		return fmt.Errorf("consumerfilter: persist %s: %w", path, err)
	}
	return nil
}

// appendKey writes a JSON object key.
func appendKey(dst []byte, k string) []byte {
	dst = compat.AppendJSONString(dst, k)
	return append(dst, ':')
}
