package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	javaservers "github.com/skyrocket-mq/skyrocket/conformance/java"
)

// javaTLSSendConsume runs TlsSendConsumeMain (the 4.9.8 Java producer and push consumer,
// with tls.enable=true and setUseTLS(true) when tls) against the NameServer ns and returns
// its summary line and whether every message was sent and consumed.
func javaTLSSendConsume(t *testing.T, ns, topic string, n int, tls bool) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	mode := "plain"
	if tls {
		mode = "tls"
	}
	out, err := javaservers.Tool(ctx, "org.skyrocket.fixture.TlsSendConsumeMain", ns, topic, itoa(int64(n)), mode)
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "tls-send-consume:") || strings.HasPrefix(line, "first exception:") {
			t.Logf("Java 4.9.8 client (%s): %s", mode, line)
		}
	}
	var summary string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "tls-send-consume:") {
			summary = line
		}
	}
	if summary == "" {
		t.Fatalf("no summary from the Java client:\n%s", out)
	}
	return summary, err == nil
}

// The Java client 4.9.8 with useTLS sends and consumes through Skyrocket's NameServer and
// broker over TLS, in permissive and enforcing mode; in enforcing mode the same client
// without TLS is refused.
func TestTLSJava_JavaClient_SendAndConsume(t *testing.T) {
	needJavaServers(t)
	for _, mode := range []string{"permissive", "enforcing"} {
		t.Run(mode, func(t *testing.T) {
			logs := &syncBuffer{}
			c := startTLSCluster(t, mode, logs)
			const n = 20
			if line, ok := javaTLSSendConsume(t, c.nsAddr(), unique("TlsJava"), n, true); !ok {
				t.Fatalf("over TLS: %s", line)
			}
			if mode != "enforcing" {
				return
			}
			if line, ok := javaTLSSendConsume(t, c.nsAddr(), unique("TlsJavaPlain"), 3, false); ok || !strings.Contains(line, "sent=0") {
				t.Fatalf("a plaintext Java client against enforcing servers: %s", line)
			}
			if !strings.Contains(logs.String(), "a plaintext client while this server runs in SSL enforcing mode") {
				t.Error("the refusal of the plaintext Java client was not logged")
			}
		})
	}
}
