package expose

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/structkit/structkit/gateway/internal/pragma"
)

// ServerTLS names the files of a server's TLS configuration.
type ServerTLS struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// CertFile and KeyFile hold the server's certificate chain and its
	// private key, PEM encoded. Both or neither.
	CertFile, KeyFile string
	// ClientCAFile, if set, holds the PEM certificates of the authorities
	// whose client certificates are accepted; clients must present one
	// (mutual TLS). It needs CertFile and KeyFile.
	ClientCAFile string
}

// Config returns the TLS configuration, nil when no file is named: TLS 1.2
// or newer, and with ClientCAFile, client certificates required and
// verified.
func (o ServerTLS) Config() (*tls.Config, error) {
	switch {
	case o.CertFile == "" && o.KeyFile == "" && o.ClientCAFile == "":
		return nil, nil
	case o.CertFile == "" || o.KeyFile == "":
		return nil, &ConfigError{Msg: "a TLS certificate needs both its certificate file and its key file"}
	}
	cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
	if err != nil {
		return nil, &ConfigError{Msg: "loading the TLS certificate and key", Err: err}
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if o.ClientCAFile != "" {
		pool, err := certPool(o.ClientCAFile)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// ClientTLS names the files of a client's TLS configuration.
type ClientTLS struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// CAFile holds the PEM certificates of the authorities that may sign
	// the server's certificate; empty means the system's roots.
	CAFile string
	// ServerName is the name to verify the server's certificate against
	// (and to send in SNI); empty means the host of the address dialled.
	ServerName string
	// CertFile and KeyFile hold the client's certificate and key, for a
	// server that requires mutual TLS. Both or neither.
	CertFile, KeyFile string
}

// Config returns the TLS configuration: TLS 1.2 or newer, the server
// verified against CAFile (or the system's roots).
func (o ClientTLS) Config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: o.ServerName}
	if o.CAFile != "" {
		pool, err := certPool(o.CAFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	switch {
	case o.CertFile != "" && o.KeyFile != "":
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, &ConfigError{Msg: "loading the client certificate and key", Err: err}
		}
		cfg.Certificates = []tls.Certificate{cert}
	case o.CertFile != "" || o.KeyFile != "":
		return nil, &ConfigError{Msg: "a client certificate needs both its certificate file and its key file"}
	}
	return cfg, nil
}

// certPool reads PEM certificates into a pool.
func certPool(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, &ConfigError{Msg: "reading certificate authorities", Err: err}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, &ConfigError{Msg: fmt.Sprintf("%s holds no PEM certificate", file)}
	}
	return pool, nil
}

// ConfigError is a TLS or token configuration that cannot be used: a
// missing or unreadable file, a key that does not match, a file holding
// no certificate.
type ConfigError struct {
	// Msg says what was wrong; Err is the underlying error, if any.
	Msg string
	Err error
}

// Error returns Msg and the underlying error.
func (e *ConfigError) Error() string {
	if e.Err == nil {
		return e.Msg
	}
	return e.Msg + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *ConfigError) Unwrap() error { return e.Err }

// IsConfig reports whether err is a *ConfigError.
func IsConfig(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}
