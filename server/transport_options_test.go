package server

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func TestTransportOptions_Defaults(t *testing.T) {
	tr := TransportOptions(configs.DefaultNettyServerConfig(), map[string]string{configs.PropTLSConfigFile: "/nonexistent"}, true)
	if tr.TLS.Mode != remoting.TLSPermissive || tr.TLS.Config == nil || tr.TLS.Err != nil {
		t.Fatalf("default TLS %+v, want permissive with the test-mode certificate", tr.TLS)
	}
	if tr.TLS.Config.ClientAuth != tls.RequestClientCert {
		t.Errorf("test mode client auth %v, want optional (RequestClientCert)", tr.TLS.Config.ClientAuth)
	}
	if tr.ClientTLS != nil {
		t.Error("a permissive broker dials TLS by default; Java's default is tls.enable = (mode == enforcing)")
	}
	if tr.Limits != (remoting.Limits{}) {
		t.Errorf("limits %+v, want zero (remoting's defaults)", tr.Limits)
	}
}

func TestTransportOptions_ModesAndLimits(t *testing.T) {
	netty := configs.DefaultNettyServerConfig()
	netty.WriteBufferHighWaterMark, netty.WriteBufferLowWaterMark = 1<<20, 1<<18
	for _, tc := range []struct {
		mode string
		want remoting.TLSMode
	}{{"disabled", remoting.TLSDisabled}, {"enforcing", remoting.TLSEnforcing}, {"permissive", remoting.TLSPermissive}, {"bogus", remoting.TLSPermissive}} {
		tr := TransportOptions(netty, map[string]string{configs.PropTLSServerMode: tc.mode, configs.PropMaxConnections: "10",
			configs.PropMaxPausedInbound: "1000", configs.PropMaxBuffered: "5000", configs.PropTLSConfigFile: "/nonexistent"}, true)
		if tr.TLS.Mode != tc.want {
			t.Errorf("%s: mode %v", tc.mode, tr.TLS.Mode)
		}
		if (tr.TLS.Config == nil) != (tc.want == remoting.TLSDisabled) {
			t.Errorf("%s: config %v", tc.mode, tr.TLS.Config)
		}
		if (tr.ClientTLS != nil) != (tc.want == remoting.TLSEnforcing) {
			t.Errorf("%s: broker client TLS %v, want on only when enforcing", tc.mode, tr.ClientTLS)
		}
		if tr.Limits != (remoting.Limits{MaxConnections: 10, WriteHighWater: 1 << 20, WriteLowWater: 1 << 18, MaxPausedInbound: 1000, MaxBuffered: 5000}) {
			t.Errorf("limits %+v", tr.Limits)
		}
	}
}

// Outside test mode the certificate comes from PEM files; tls.config.file overrides the
// -c file's TLS properties but not the mode. A missing key leaves TLS unavailable with the
// reason, as Java serves plaintext and closes TLS clients.
func TestTransportOptions_CertificateFilesAndConfigFile(t *testing.T) {
	dir := t.TempDir()
	cert, err := remoting.SelfSignedCertificate()
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath := writePEM(t, dir, cert)
	tlsFile := filepath.Join(dir, "tls.properties")
	body := "tls.test.mode.enable=false\ntls.server.certPath=" + certPath + "\ntls.server.keyPath=" + keyPath +
		"\ntls.server.need.client.auth=require\ntls.server.mode=disabled\n"
	if err := os.WriteFile(tlsFile, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := TransportOptions(configs.DefaultNettyServerConfig(), map[string]string{
		configs.PropTLSServerMode: "enforcing", configs.PropTLSConfigFile: tlsFile}, false)
	if tr.TLS.Err != nil || tr.TLS.Mode != remoting.TLSEnforcing {
		t.Fatalf("TLS %+v", tr.TLS)
	}
	if len(tr.TLS.Config.Certificates) != 1 || tr.TLS.Config.ClientAuth != tls.RequireAnyClientCert {
		t.Errorf("config from the file: %d certs, client auth %v", len(tr.TLS.Config.Certificates), tr.TLS.Config.ClientAuth)
	}

	tr = TransportOptions(configs.DefaultNettyServerConfig(), map[string]string{
		configs.PropTLSTestModeEnable: "false", configs.PropTLSServerCertPath: certPath, configs.PropTLSConfigFile: "/nonexistent"}, false)
	if tr.TLS.Err == nil || tr.TLS.Config != nil {
		t.Errorf("no key: TLS %+v, want an error and no config", tr.TLS)
	}
	tr = TransportOptions(configs.DefaultNettyServerConfig(), map[string]string{configs.PropTLSTestModeEnable: "false",
		configs.PropTLSServerCertPath: certPath, configs.PropTLSServerKeyPath: keyPath, configs.PropTLSServerKeyPassword: "pw",
		configs.PropTLSConfigFile: "/nonexistent"}, false)
	if tr.TLS.Err == nil {
		t.Error("an encrypted key was accepted")
	}
}
