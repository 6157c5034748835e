package consumerfilter

import (
	"errors"
	"strconv"
	"strings"

	"github.com/skyrocket-mq/skyrocket/server/broker/filter"
)

// Subscription expression types (Java: ExpressionType).
const (
	ExpressionTag   = "TAG"
	ExpressionSQL92 = "SQL92"
)

// IsTagType reports whether typ selects by tag ("" is TAG, as Java's default).
func IsTagType(typ string) bool { return typ == "" || typ == ExpressionTag }

// ErrUnsupportedExpressionType is returned when a subscription names an expression type
// the broker has no filter for (Java: FilterFactory#get returns null).
var ErrUnsupportedExpressionType = errors.New("unsupported expression type")

// Compile compiles an expression of type typ (Java: FilterFactory.INSTANCE.get(type).compile).
func Compile(typ, expr string) (*filter.Expression, error) {
	if typ != ExpressionSQL92 {
		return nil, ErrUnsupportedExpressionType
	}
	return filter.Compile(expr)
}

// LogExpression shortens an expression for a log line: a client may send megabytes.
func LogExpression(expr string) string {
	const keep = 256
	if len(expr) <= keep {
		return expr
	}
	return strings.ToValidUTF8(expr[:keep], "") + "... (" + strconv.Itoa(len(expr)) + " bytes)"
}
