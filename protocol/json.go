package protocol

import (
	"fmt"

	jsoniter "github.com/json-iterator/go"
)

// jsonAPI decodes bodies. Java peers write fastjson, which for the bodies decoded here is
// standard JSON apart from unquoted numeric map keys; those are handled where they occur.
var jsonAPI = jsoniter.Config{EscapeHTML: false, UseNumber: false}.Froze()

// UnmarshalBody decodes a JSON body into v.
func UnmarshalBody(data []byte, v any) error {
	if err := jsonAPI.Unmarshal(data, v); err != nil {
		return fmt.Errorf("protocol: decode %T: %w", v, err)
	}
	return nil
}

// MarshalBody encodes v as compact standard JSON (for bodies whose key order does not
// matter to any reader).
func MarshalBody(v any) ([]byte, error) {
	return jsonAPI.Marshal(v)
}
