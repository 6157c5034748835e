package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// TransportOptions builds the remoting limits and TLS of a server from its Netty config
// and the -c file's properties (FileProps). broker selects the broker's rules for the
// outbound client (useTLS, by default on when tls.server.mode is enforcing, as
// BrokerStartup sets it).
//
// TLS is built as Java's TlsHelper.buildSslContext does: test mode (the default) uses a
// self-signed certificate generated now and accepts any client certificate; otherwise
// tls.server.certPath / keyPath are PEM files and tls.server.need.client.auth chooses
// client authentication. When the certificate cannot be built, Java logs it and closes
// TLS clients while serving plaintext; so does Skyrocket: TLS.Config stays nil and
// TLS.Err says why, which the server logs when it starts.
func TransportOptions(netty configs.NettyServerConfig, fileProps map[string]string, broker bool) remoting.Transport {
	var t remoting.Transport
	t.Limits = remoting.Limits{
		MaxConnections:   propInt(fileProps, configs.PropMaxConnections),
		WriteHighWater:   int(netty.WriteBufferHighWaterMark),
		WriteLowWater:    int(netty.WriteBufferLowWaterMark),
		MaxPausedInbound: propInt(fileProps, configs.PropMaxPausedInbound),
		MaxBuffered:      int64(propInt(fileProps, configs.PropMaxBuffered)),
	}
	props := tlsProps(fileProps)
	t.TLS.Mode = remoting.ParseTLSMode(fileProps[configs.PropTLSServerMode])
	var errs []error
	if t.TLS.Mode != remoting.TLSDisabled {
		cfg, err := serverTLSConfig(props)
		if err != nil {
			errs = append(errs, fmt.Errorf("server: TLS unavailable, TLS clients will be closed: %w", err))
		}
		t.TLS.Config = cfg
	}
	if broker {
		useTLS := t.TLS.Mode == remoting.TLSEnforcing
		if v, ok := fileProps[configs.PropTLSEnable]; ok {
			useTLS = v == "true"
		}
		if v, ok := fileProps["useTLS"]; ok {
			useTLS = v == "true"
		}
		if useTLS {
			cfg, err := clientTLSConfig(props)
			if err != nil {
				errs = append(errs, fmt.Errorf("server: outbound TLS unavailable, connecting in plaintext: %w", err))
			}
			t.ClientTLS = cfg
		}
	}
	t.TLS.Err = errors.Join(errs...)
	return t
}

func propInt(props map[string]string, key string) int {
	n, err := strconv.Atoi(strings.TrimSpace(props[key]))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// tlsProps returns the TLS properties: the -c file's, overridden by tls.config.file's
// (all but the mode and tls.enable, as TlsHelper#extractTlsConfigFromFile).
func tlsProps(fileProps map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range configs.TransportKeys {
		if v, ok := fileProps[k]; ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	path := configs.DefaultTLSConfigFile
	if v := out[configs.PropTLSConfigFile]; v != "" {
		path = v
	}
	if fp, err := configs.LoadProperties(path); err == nil {
		for k, v := range fp {
			if strings.HasPrefix(k, "tls.") && k != configs.PropTLSServerMode && k != configs.PropTLSEnable {
				out[k] = strings.TrimSpace(v)
			}
		}
	}
	return out
}

func testMode(props map[string]string) bool {
	v, ok := props[configs.PropTLSTestModeEnable]
	return !ok || v == "true"
}

func serverTLSConfig(props map[string]string) (*tls.Config, error) {
	if testMode(props) {
		cert, err := remoting.SelfSignedCertificate()
		if err != nil {
			return nil, err
		}
		// Java: SslContextBuilder.forServer(selfSigned).clientAuth(OPTIONAL), no chain check.
		return &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequestClientCert, MinVersion: tls.VersionTLS12}, nil
	}
	cert, err := loadKeyPair(props[configs.PropTLSServerCertPath], props[configs.PropTLSServerKeyPath], props[configs.PropTLSServerKeyPassword], "server")
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	var roots *x509.CertPool
	if props[configs.PropTLSServerAuthClient] == "true" && props[configs.PropTLSServerTrustCert] != "" {
		if roots, err = loadPool(props[configs.PropTLSServerTrustCert]); err != nil {
			return nil, err
		}
		cfg.ClientCAs = roots
	}
	// Java: tls.server.need.client.auth none/optional/require (unknown: none); without
	// authClient the client's chain is not checked (an insecure trust manager).
	switch strings.ToLower(props[configs.PropTLSNeedClientAuth]) {
	case "optional":
		cfg.ClientAuth = tls.RequestClientCert
		if roots != nil {
			cfg.ClientAuth = tls.VerifyClientCertIfGiven
		}
	case "require":
		cfg.ClientAuth = tls.RequireAnyClientCert
		if roots != nil {
			cfg.ClientAuth = tls.RequireAndVerifyClientCert
		}
	default:
		cfg.ClientAuth = tls.NoClientCert
	}
	return cfg, nil
}

// clientTLSConfig is the broker's outbound TLS (NettyRemotingClient with TlsHelper's
// client context): in test mode, or without tls.client.authServer, the server is not
// verified; with it, its chain is checked against tls.client.trustCertPath but not its
// host name, as Java (no peer host given to the SslHandler).
func clientTLSConfig(props map[string]string) (*tls.Config, error) {
	cfg := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} //nolint:gosec // Java's client trusts any server unless authServer is set
	if testMode(props) {
		return cfg, nil
	}
	if props[configs.PropTLSClientCertPath] != "" || props[configs.PropTLSClientKeyPath] != "" {
		cert, err := loadKeyPair(props[configs.PropTLSClientCertPath], props[configs.PropTLSClientKeyPath], props[configs.PropTLSClientKeyPassword], "client")
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if props[configs.PropTLSClientAuthServer] == "true" && props[configs.PropTLSClientTrustCert] != "" {
		roots, err := loadPool(props[configs.PropTLSClientTrustCert])
		if err != nil {
			return nil, err
		}
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			certs := make([]*x509.Certificate, 0, len(raw))
			for _, der := range raw {
				c, err := x509.ParseCertificate(der)
				if err != nil {
					return err
				}
				certs = append(certs, c)
			}
			if len(certs) == 0 {
				return errors.New("server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range certs[1:] {
				inter.AddCert(c)
			}
			_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	}
	return cfg, nil
}

func loadKeyPair(certPath, keyPath, password, side string) (tls.Certificate, error) {
	if certPath == "" || keyPath == "" {
		return tls.Certificate{}, fmt.Errorf("tls.%s.certPath and tls.%s.keyPath are required when tls.test.mode.enable=false", side, side)
	}
	if password != "" {
		return tls.Certificate{}, fmt.Errorf("tls.%s.keyPassword: encrypted PKCS#8 keys are not supported; decrypt the key (openssl pkcs8 -in key.pem -out plain.pem)", side)
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls.%s certificate %s / key %s: %w", side, certPath, keyPath, err)
	}
	return cert, nil
}

func loadPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trust certificates: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("trust certificates %s: no PEM certificate", path)
	}
	return pool, nil
}
