package configs

import "slices"

// TLS properties, with Java's names (TlsSystemConfig, 4.9.8). Java reads them from JVM
// system properties; Skyrocket has no JVM and reads them from the -c file (FileProps) (broker.conf,
// namesrv.conf), and then, as Java, from the file tls.config.file names, which overrides
// all of them but tls.server.mode and tls.enable.
const (
	PropTLSServerMode        = "tls.server.mode"
	PropTLSEnable            = "tls.enable"
	PropTLSConfigFile        = "tls.config.file"
	PropTLSTestModeEnable    = "tls.test.mode.enable"
	PropTLSNeedClientAuth    = "tls.server.need.client.auth"
	PropTLSServerKeyPath     = "tls.server.keyPath"
	PropTLSServerKeyPassword = "tls.server.keyPassword"
	PropTLSServerCertPath    = "tls.server.certPath"
	PropTLSServerAuthClient  = "tls.server.authClient"
	PropTLSServerTrustCert   = "tls.server.trustCertPath"
	PropTLSClientKeyPath     = "tls.client.keyPath"
	PropTLSClientKeyPassword = "tls.client.keyPassword"
	PropTLSClientCertPath    = "tls.client.certPath"
	PropTLSClientAuthServer  = "tls.client.authServer"
	PropTLSClientTrustCert   = "tls.client.trustCertPath"

	// DefaultTLSConfigFile is tls.config.file's default, as in Java.
	DefaultTLSConfigFile = "/etc/rocketmq/tls.properties"

	// Skyrocket's connection limits (remoting.Limits); Java has none of these. The write
	// buffer water marks are Java's writeBufferHighWaterMark / writeBufferLowWaterMark.
	PropMaxConnections   = "serverMaxConnections"
	PropMaxPausedInbound = "serverMaxPausedInboundBytes"
	PropMaxBuffered      = "serverMaxBufferedBytes"
)

// TransportKeys are the keys server.TransportOptions reads from the -c file that no
// config field has; Load does not report them as unknown.
var TransportKeys = []string{
	PropTLSServerMode, PropTLSEnable, PropTLSConfigFile, PropTLSTestModeEnable, PropTLSNeedClientAuth,
	PropTLSServerKeyPath, PropTLSServerKeyPassword, PropTLSServerCertPath, PropTLSServerAuthClient,
	PropTLSServerTrustCert, PropTLSClientKeyPath, PropTLSClientKeyPassword, PropTLSClientCertPath,
	PropTLSClientAuthServer, PropTLSClientTrustCert, PropMaxConnections, PropMaxPausedInbound, PropMaxBuffered,
}

func isTransportKey(k string) bool { return slices.Contains(TransportKeys, k) }
