package broker

import (
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/consumerfilter"
	"github.com/skyrocket-mq/skyrocket/store"
)

// Subscription expression types (Java: ExpressionType).
const (
	ExpressionTag   = consumerfilter.ExpressionTag
	ExpressionSQL92 = consumerfilter.ExpressionSQL92
	subAll          = "*"
)

func isTagType(t string) bool { return consumerfilter.IsTagType(t) }

// tagFilter is Java's ExpressionMessageFilter for TAG subscriptions: a message matches when
// the subscription is "*" or its ConsumeQueue tag code is in the code set. The code set
// also holds Java's String.hashCode of every tag in tagsSet: the Go client hashes UTF-8
// bytes instead of UTF-16, so its codes differ from the stored ones for non-ASCII tags.
type tagFilter struct {
	all   bool
	codes map[int64]struct{}
}

func newTagFilter(sub *protocol.SubscriptionData) *tagFilter {
	if sub == nil || sub.SubString == "" || sub.SubString == subAll {
		return &tagFilter{all: true}
	}
	f := &tagFilter{codes: make(map[int64]struct{}, len(sub.CodeSet)+len(sub.TagsSet))}
	for _, c := range sub.CodeSet {
		f.codes[int64(c)] = struct{}{}
	}
	for _, t := range sub.TagsSet {
		f.codes[int64(compat.JavaHashCode(t))] = struct{}{}
	}
	if len(f.codes) == 0 {
		f.all = true
	}
	return f
}

func (f *tagFilter) MatchByConsumeQueue(tagsCode int64) bool {
	if f.all {
		return true
	}
	_, ok := f.codes[tagsCode]
	return ok
}

func (f *tagFilter) MatchByCommitLog([]byte) bool { return true }

var _ store.Filter = (*tagFilter)(nil)

// buildSubscription parses an expression sent with a pull (Java: FilterAPI#build): TAG
// expressions are split on "||" into tags and their hash codes.
func buildSubscription(topic, expr, typ string) protocol.SubscriptionData {
	sub := protocol.SubscriptionData{Topic: topic, SubString: expr, ExpressionType: typ}
	if typ == "" {
		sub.ExpressionType = ExpressionTag
	}
	if !isTagType(sub.ExpressionType) {
		return sub
	}
	if expr == "" || expr == subAll {
		sub.SubString = subAll
		return sub
	}
	for _, t := range splitTags(expr) {
		sub.TagsSet = append(sub.TagsSet, t)
		sub.CodeSet = append(sub.CodeSet, protocol.FlexInt32(compat.JavaHashCode(t)))
	}
	return sub
}

// splitTags splits "a || b" into trimmed non-empty tags.
func splitTags(expr string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(expr); i++ {
		if expr[i] == '|' && expr[i+1] == '|' {
			if t := trimSpace(expr[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 2
			i++
		}
	}
	if t := trimSpace(expr[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

func trimSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
