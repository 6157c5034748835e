package consumerfilter

import (
	"github.com/skyrocket-mq/skyrocket/compat"
)

// appendKey writes a JSON object key.
func appendKey(dst []byte, k string) []byte {
	dst = compat.AppendJSONString(dst, k)
	return append(dst, ':')
}
