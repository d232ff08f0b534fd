package server

import (
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// certReloadEvery is how often, at most, a TLS handshake checks whether
// the certificate or key file changed (a renewed certificate is picked up
// without a restart).
const certReloadEvery = 10 * time.Second

// certFiles serves the certificate in a PEM certificate and key file pair
// and loads them again when either file's contents change. A pair that fails to load is logged and the previous one kept.
type certFiles struct {
	certFile, keyFile string
	every             time.Duration
	log               *slog.Logger

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   string // the files' contents' hash at the last load
	checked time.Time
}

// loadTLS returns the listener's TLS configuration: TLS 1.2 or later,
// HTTP/1.1 only (the protocol Kura speaks), the certificate from the files.
func loadTLS(certFile, keyFile string, log *slog.Logger) (*tls.Config, *certFiles, error) {
	cf := &certFiles{certFile: certFile, keyFile: keyFile, every: certReloadEvery, log: log}
	if err := cf.load(); err != nil {
		return nil, nil, err
	}
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"http/1.1"},
		GetCertificate: cf.get,
	}, cf, nil
}

// stampOf describes the files' current contents (a hash of both: a
// renewal that keeps the size and lands within the clock tick of the
// previous write is still seen).
func (cf *certFiles) stampOf() (string, error) {
	h := sha256.New()
	for _, name := range []string{cf.certFile, cf.keyFile} {
		b, err := os.ReadFile(name)
		if err != nil {
			return "", err
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	return string(h.Sum(nil)), nil
}

func (cf *certFiles) load() error {
	stamp, err := cf.stampOf()
	if err != nil {
		return fmt.Errorf("TLS certificate: %w", err)
	}
	cert, err := tls.LoadX509KeyPair(cf.certFile, cf.keyFile)
	if err != nil {
		return fmt.Errorf("TLS certificate: %w", err)
	}
	cf.cert, cf.stamp = &cert, stamp
	return nil
}

// get is tls.Config.GetCertificate: the current certificate, reloaded
// first when the files changed since the last check.
func (cf *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	if now := time.Now(); now.Sub(cf.checked) >= cf.every {
		cf.checked = now
		if stamp, err := cf.stampOf(); err == nil && stamp != cf.stamp {
			if err := cf.load(); err != nil {
				cf.log.Error("reloading the TLS certificate; keeping the previous one", "err", err)
			} else {
				cf.log.Info("TLS certificate reloaded", "cert", cf.certFile)
			}
		}
	}
	return cf.cert, nil
}
