package conformance

// Issue 13, raw wire: one request with a hostile SQL92 selector must not take the broker
// down. 1,000,000 nested parentheses (2 MB) in a CHECK_CLIENT_CONFIG, a HEART_BEAT or a
// PULL_MESSAGE with FLAG_SUBSCRIPTION overflowed the goroutine stack in the filter parser
// and killed the process. Java 4.9.8 answers each with what a selector that does not
// compile gets (its StackOverflowError is caught like any parse error), and stays up:
//
//   - CHECK_CLIENT_CONFIG: SUBSCRIPTION_PARSE_FAILED, remark the cause's toString
//     ("java.lang.StackOverflowError" in Java; ours names the limit, see UNSUPPORTED.md),
//     or SYSTEM_ERROR "does not support" before compiling when enablePropertyFilter=false
//     (ClientManageProcessor#checkClientConfig).
//   - HEART_BEAT: SUCCESS; the filter is simply not registered (ConsumerFilterManager#build
//     returns null), whatever enablePropertyFilter says, so a later pull that relies on
//     the heartbeat gets FILTER_DATA_NOT_EXIST.
//   - PULL_MESSAGE with FLAG_SUBSCRIPTION: SUBSCRIPTION_PARSE_FAILED "parse the consumer's
//     subscription failed" (our documented answer where Java delivers unfiltered), or
//     SYSTEM_ERROR "does not support" when enablePropertyFilter=false.

import (
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

// hostileSelectors are the inputs of issues 13 and 14: past the length limit, and within
// it but nested past the depth limit.
var hostileSelectors = []struct {
	name, expr, remark string
}{
	{"1M parentheses", strings.Repeat("(", 1_000_000) + "a = 1" + strings.Repeat(")", 1_000_000), "SQL92 selector longer than 65536 bytes"},
	{"1M unclosed parentheses", strings.Repeat("(", 1_000_000), "SQL92 selector longer than 65536 bytes"},
	{"10k parentheses", strings.Repeat("(", 10_000) + "a = 1" + strings.Repeat(")", 10_000), "SQL92 selector nested deeper than 256 levels"},
	{"16k NOT", strings.Repeat("NOT ", 16_000) + "a", "SQL92 selector nested deeper than 256 levels"},
	{"30k unary minus", strings.Repeat("- ", 30_000) + "5 < a", "SQL92 selector nested deeper than 256 levels"},
}

// stillServes checks the broker answers ordinary requests on a new connection.
func stillServes(t *testing.T, c *cluster, s *sqlWire, enabled bool) {
	t.Helper()
	fresh := &sqlWire{t: t, w: newWire(t, c.broker.ListenAddrs()[0]), topic: s.topic, group: s.group}
	want := int32(protocol.ResSuccess)
	if !enabled {
		want = int32(protocol.ResSystemError)
	}
	if r := fresh.checkClient("a > 5", "SQL92"); r.Code != want {
		t.Fatalf("CHECK_CLIENT_CONFIG a > 5 afterwards: %d %q", r.Code, r.Remark)
	}
	if r := fresh.pull(0, flagSubscription, "*", "TAG", 1); r.Code != int32(protocol.ResPullNotFound) {
		t.Fatalf("TAG pull afterwards: %d %q", r.Code, r.Remark)
	}
}

func TestConformance_Critical_SQL92_HostileSelectorAnswered(t *testing.T) {
	c := startCluster(t, nil) // enablePropertyFilter=true
	topic := unique("SQLH")
	createTopic(t, c, topic, 1)
	for _, h := range hostileSelectors {
		s := &sqlWire{t: t, w: newWire(t, c.broker.ListenAddrs()[0]), topic: topic, group: unique("CGH")}

		// 46: the cause's text, here ours.
		if r := s.checkClient(h.expr, "SQL92"); r.Code != int32(protocol.ResSubscriptionParseFailed) || !strings.HasPrefix(r.Remark, h.remark) {
			t.Fatalf("%s: CHECK_CLIENT_CONFIG: %d %.200q", h.name, r.Code, r.Remark)
		}
		// 34: SUCCESS (heartbeat fails the test otherwise), and no filter registered.
		s.heartbeat(h.expr, 100)
		if r := s.pull(0, 0, "", "TAG", 100); r.Code != int32(protocol.ResFilterDataNotExist) {
			t.Fatalf("%s: pull after the heartbeat: %d %q", h.name, r.Code, r.Remark)
		}
		// 11 with FLAG_SUBSCRIPTION.
		if r := s.pull(0, flagSubscription, h.expr, "SQL92", 1); r.Code != int32(protocol.ResSubscriptionParseFailed) ||
			r.Remark != "parse the consumer's subscription failed" {
			t.Fatalf("%s: FLAG_SUBSCRIPTION pull: %d %q", h.name, r.Code, r.Remark)
		}
		stillServes(t, c, s, true)
	}
}

// The default broker (enablePropertyFilter=false) compiles a heartbeat's SQL92
// subscription all the same, as Java does, so it was as exposed.
func TestConformance_Critical_SQL92_HostileSelectorPropertyFilterOff(t *testing.T) {
	c := startCluster(t, func(o *broker.Options) { o.EnablePropertyFilter = false })
	topic := unique("SQLHO")
	createTopic(t, c, topic, 1)
	for _, h := range hostileSelectors[:2] {
		s := &sqlWire{t: t, w: newWire(t, c.broker.ListenAddrs()[0]), topic: topic, group: unique("CGHO")}
		if r := s.checkClient(h.expr, "SQL92"); r.Code != int32(protocol.ResSystemError) || r.Remark != remarkNotSupport {
			t.Fatalf("%s: CHECK_CLIENT_CONFIG: %d %.200q", h.name, r.Code, r.Remark)
		}
		s.heartbeat(h.expr, 100)
		if r := s.pull(0, flagSubscription, h.expr, "SQL92", 1); r.Code != int32(protocol.ResSystemError) || r.Remark != remarkNotSupport {
			t.Fatalf("%s: FLAG_SUBSCRIPTION pull: %d %q", h.name, r.Code, r.Remark)
		}
		stillServes(t, c, s, false)
	}
}
