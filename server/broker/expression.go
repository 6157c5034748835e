package broker

// SQL92 property filters (enablePropertyFilter). The expression language is package
// filter; the per-group table is package consumerfilter. This file wires them into the
// broker: CHECK_CLIENT_CONFIG, heartbeat registration, group removal, and the filter a
// pull reads with (Java: the subscription part of PullMessageProcessor#processRequest,
// ExpressionMessageFilter, ExpressionForRetryMessageFilter).
//
// Differences from Java 4.9.8, on purpose:
//   - A pull with FLAG_SUBSCRIPTION whose SQL92 expression does not compile answers
//     SUBSCRIPTION_PARSE_FAILED. Java means to (its code asserts the filter data exists),
//     but with assertions off, as brokers run, it delivers every message unfiltered.
//   - The ConsumeQueue bitmap pre-filter (enableCalcFilterBitMap) is not built: the
//     ConsumeQueue stage lets every SQL92 candidate through and the CommitLog record
//     decides, which gives the same deliveries as Java with the bitmap off (its default).
//   - CHECK_CLIENT_CONFIG with an expression type other than TAG and SQL92 answers
//     SUBSCRIPTION_PARSE_FAILED "unsupported expression type: ..." where Java's remark is
//     the text of a NullPointerException (FilterFactory has no such filter).
//   - A selector longer than filter.MaxLength, nested deeper than filter.MaxNesting or
//     compiling deeper than filter.MaxTreeDepth does not compile (issue 13: one such
//     request used to crash the broker). Every path answers as for any selector that
//     does not compile: CHECK_CLIENT_CONFIG SUBSCRIPTION_PARSE_FAILED with our remark
//     (Java's is "java.lang.StackOverflowError" when its stack runs out), a heartbeat
//     SUCCESS without registering the filter, a FLAG_SUBSCRIPTION pull
//     SUBSCRIPTION_PARSE_FAILED.

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/clients"
	"github.com/skyrocket-mq/skyrocket/server/broker/consumerfilter"
	"github.com/skyrocket-mq/skyrocket/server/broker/filter"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/store"
)

const (
	remarkFilterDataNotExist  = "The broker's consumer filter data is not exist!Your expression may be wrong!"
	remarkFilterDataNotLatest = "the consumer's consumer filter data not latest"
	remarkSubscriptionParse   = "parse the consumer's subscription failed"
)

// compileExpression checks a client's expression (CHECK_CLIENT_CONFIG). The error text
// is what Java's MQFilterException#getMessage gives, the remark clients show; for a
// selector over the filter package's limits (filter.ErrTooComplex) it is ours, where
// Java's would be "java.lang.StackOverflowError".
func compileExpression(typ, expr string) error {
	_, err := consumerfilter.Compile(typ, expr)
	if errors.Is(err, consumerfilter.ErrUnsupportedExpressionType) {
		return fmt.Errorf("%w: %q", err, typ)
	}
	return err
}

// registerFilters records the SQL92 subscriptions of a consumer heartbeat (Java:
// DefaultConsumerIdsChangeListener on REGISTER → ConsumerFilterManager#register). It runs
// whether or not enablePropertyFilter is set, as in Java; pulls check the flag.
func (b *Broker) registerFilters(data *protocol.ConsumerData) {
	b.filters.Register(data.GroupName, data.SubscriptionDataSet)
}

// filtersOnConsumerEvent marks a departed group's filters dead (Java: UNREGISTER →
// ConsumerFilterManager#unRegister). Registration happens in registerFilters.
func (b *Broker) filtersOnConsumerEvent(ev clients.ConsumerEvent, group string, _ *clients.ConsumerGroup) {
	if ev == clients.ConsumerUnregister {
		b.filters.Unregister(group)
	}
}

// expressionFilter returns the filter of a pull whose subscription sub was found (from
// the header with FLAG_SUBSCRIPTION, else from the heartbeat), or the error response.
func (b *Broker) expressionFilter(h *protocol.PullMessageRequestHeader, sub *protocol.SubscriptionData, resp *protocol.Command) (store.Filter, *protocol.Command) {
	var data *consumerfilter.Data
	if !isTagType(sub.ExpressionType) {
		if h.SysFlag&pullFlagSubscription != 0 {
			if sub.SubString == "" {
				b.log.Warn().Str("group", h.ConsumerGroup).Msg("parse the consumer's subscription failed: empty expression")
				return nil, fail(resp, protocol.ResSubscriptionParseFailed, remarkSubscriptionParse)
			}
			c, err := b.filters.CompileCached(sub.ExpressionType, sub.SubString)
			if err != nil {
				b.log.Warn().Str("group", h.ConsumerGroup).Str("expression", consumerfilter.LogExpression(sub.SubString)).Err(err).Msg("parse the consumer's subscription failed")
				if !b.opts.EnablePropertyFilter {
					return nil, notSupported(resp, sub.ExpressionType)
				}
				return nil, fail(resp, protocol.ResSubscriptionParseFailed, remarkSubscriptionParse)
			}
			data = &consumerfilter.Data{ConsumerGroup: h.ConsumerGroup, Topic: h.Topic, Expression: sub.SubString,
				ExpressionType: sub.ExpressionType, ClientVersion: h.SubVersion, Compiled: c}
		} else {
			d, ok := b.filters.Get(h.Topic, h.ConsumerGroup)
			if !ok {
				return nil, fail(resp, protocol.ResFilterDataNotExist, remarkFilterDataNotExist)
			}
			if d.ClientVersion < h.SubVersion {
				b.log.Warn().Str("group", h.ConsumerGroup).Str("topic", h.Topic).Int64("serverVersion", d.ClientVersion).
					Int64("clientVersion", h.SubVersion).Msg("the broker's consumer filter data is not latest")
				return nil, fail(resp, protocol.ResFilterDataNotLatest, remarkFilterDataNotLatest)
			}
			data = &d
		}
		if !b.opts.EnablePropertyFilter {
			return nil, notSupported(resp, sub.ExpressionType)
		}
	}
	if b.opts.FilterSupportRetry {
		return newRetryFilter(sub, data, b.filters), nil
	}
	if isTagType(sub.ExpressionType) {
		return newTagFilter(sub), nil
	}
	return &sqlFilter{expr: data.Compiled}, nil
}

func notSupported(resp *protocol.Command, typ string) *protocol.Command {
	return fail(resp, protocol.ResSystemError, "The broker does not support consumer to filter message by "+typ)
}

// sqlFilter is Java's ExpressionMessageFilter for a SQL92 subscription without the
// bitmap: every ConsumeQueue unit is a candidate, the record's properties decide.
type sqlFilter struct {
	expr  *filter.Expression // nil: no compiled expression, everything matches (Java)
	props recordProps        // the record being matched; a pull matches one record at a time
}

func (f *sqlFilter) MatchByConsumeQueue(int64) bool { return true }

func (f *sqlFilter) MatchByCommitLog(record []byte) bool {
	if f.expr == nil {
		return true
	}
	raw, ok := recordProperties(record)
	if !ok {
		return false
	}
	f.props.reset(raw)
	return f.expr.Match(&f.props)
}

// MatchByProperties judges a message that just arrived by its encoded properties, so a
// held pull wakes only for a message it wants (Java: PullRequestHoldService calls
// isMatchedByCommitLog(null, properties)). It runs on the dispatch goroutine while the
// pull is parked, so it does not touch the pull's reused state.
func (f *sqlFilter) MatchByProperties(props []byte) bool {
	if f.expr == nil {
		return true
	}
	var p recordProps
	p.reset(props)
	return f.expr.Match(&p)
}

// recordProps reads the properties of a stored record for an expression, parsed by
// codec/message once per record (on the first lookup; a selector usually reads several)
// into a reused message.Properties, whose rules are Java's string2messageProperties and
// whose last occurrence of a key wins. Values are strings over the record's bytes, not
// copies: the record (a mapped CommitLog slice held by the pull) outlives the
// evaluation, and the evaluator keeps no value past it (its error texts are built by
// concatenation, which copies).
type recordProps struct {
	raw    []byte
	props  message.Properties
	parsed bool
}

func (p *recordProps) reset(raw []byte) { p.raw, p.parsed = raw, false }

func (p *recordProps) Property(name string) (string, bool) {
	if !p.parsed {
		p.parsed = true
		p.props.Reset()
		p.props.Parse(unsafe.String(unsafe.SliceData(p.raw), len(p.raw)))
	}
	return p.props.Get(name)
}

// recordProperties returns the encoded properties of a stored record (Java:
// MessageDecoder#decodeProperties), false for a record that does not decode.
func recordProperties(rec []byte) ([]byte, bool) {
	r, err := message.DecodeRecord(rec)
	if err != nil {
		return nil, false
	}
	return r.Properties, true
}

// retryFilter is Java's ExpressionForRetryMessageFilter (filterSupportRetry): a pull of
// %RETRY%<group> filters each retried message with the group's SQL92 filter on the topic
// the message came from (its RETRY_TOPIC property).
type retryFilter struct {
	tag     *tagFilter // the subscription's own tag filter, nil for SQL92
	expr    *filter.Expression
	retry   bool
	group   string
	filters *consumerfilter.Manager
	props   recordProps
}

func newRetryFilter(sub *protocol.SubscriptionData, data *consumerfilter.Data, m *consumerfilter.Manager) *retryFilter {
	f := &retryFilter{filters: m}
	if isTagType(sub.ExpressionType) {
		f.tag = newTagFilter(sub)
	} else if data != nil {
		f.expr = data.Compiled
	}
	if strings.HasPrefix(sub.Topic, meta.RetryGroupTopicPrefix) {
		f.retry = true
		f.group = strings.TrimPrefix(sub.Topic, meta.RetryGroupTopicPrefix)
	}
	return f
}

func (f *retryFilter) MatchByConsumeQueue(tagsCode int64) bool {
	if f.tag != nil {
		return f.tag.MatchByConsumeQueue(tagsCode)
	}
	return true
}

func (f *retryFilter) MatchByCommitLog(record []byte) bool {
	if !f.retry && f.tag != nil {
		return true
	}
	raw, ok := recordProperties(record)
	if !ok {
		return false
	}
	f.props.reset(raw)
	return f.match(&f.props)
}

// MatchByProperties is sqlFilter#MatchByProperties for the retry filter.
func (f *retryFilter) MatchByProperties(props []byte) bool {
	if !f.retry && f.tag != nil {
		return true
	}
	var p recordProps
	p.reset(props)
	return f.match(&p)
}

func (f *retryFilter) match(props *recordProps) bool {
	expr := f.expr
	if f.retry {
		expr = nil
		// A retried message without RETRY_TOPIC has no origin to filter by: deliver it
		// (Java throws there and fails the pull).
		if realTopic, ok := props.Property(message.PropertyRetryTopic); ok {
			if d, ok := f.filters.Get(realTopic, f.group); ok {
				expr = d.Compiled
			}
		}
	}
	if expr == nil {
		return true
	}
	return expr.Match(props)
}

// propertiesMatcher is a filter that can judge a message by its encoded properties alone.
type propertiesMatcher interface{ MatchByProperties(props []byte) bool }

// matchesArrived tells a held pull whether a message that just arrived is one it wants;
// filters without a properties stage (tags) take every message their tag code passed.
func matchesArrived(f store.Filter, props []byte) bool {
	if m, ok := f.(propertiesMatcher); ok && props != nil {
		return m.MatchByProperties(props)
	}
	return true
}

var (
	_ store.Filter      = (*sqlFilter)(nil)
	_ store.Filter      = (*retryFilter)(nil)
	_ propertiesMatcher = (*sqlFilter)(nil)
	_ propertiesMatcher = (*retryFilter)(nil)
)
