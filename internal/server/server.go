package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/pebble"
)

// Config configures one instance. The zero value serves an in-memory
// database on a random loopback port.
type Config struct {
	// Listen is host:port; empty means 127.0.0.1:0 (a free port).
	Listen string
	// DataDir holds the durable Pebble store; ignored when InMemory.
	DataDir  string
	InMemory bool
	// Sync fsyncs every acknowledged write.
	Sync              bool
	Region            string
	AccountID         string
	CreateDelay       time.Duration
	TTLInterval       time.Duration // 0: background expiry off (admin endpoint still works)
	StreamShardPeriod time.Duration // 0: engine default
	// Admin serves the /admin/ endpoints and installs an advanceable clock.
	Admin         bool
	VectorMaxTopK int
	Logger        *slog.Logger // nil: discard
}

// Server is a running instance.
type Server struct {
	store storage.Store
	eng   *engine.Engine
	ln    net.Listener
	http  *http.Server
	done  chan error
	log   *slog.Logger
}

// Start opens storage and the engine and starts serving.
func Start(cfg Config) (s *Server, err error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	store, err := openStore(cfg)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			store.Close()
		}
	}()
	eng, err := engine.Open(store, engineConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("opening engine: %w", err)
	}
	if cfg.VectorMaxTopK > 0 {
		eng.SetVectorMaxTopK(cfg.VectorMaxTopK)
	}
	listen := cfg.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		eng.Close()
		return nil, err
	}
	s = &Server{store: store, eng: eng, ln: ln, log: log, done: make(chan error, 1)}
	s.http = &http.Server{
		Handler:           api.NewServer(eng, api.Options{Logger: log, Admin: cfg.Admin}),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       5 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

func engineConfig(cfg Config) engine.Config {
	ec := engine.Config{
		Region:            cfg.Region,
		AccountID:         cfg.AccountID,
		Sync:              cfg.Sync,
		CreateDelay:       cfg.CreateDelay,
		TTLInterval:       cfg.TTLInterval,
		StreamShardPeriod: cfg.StreamShardPeriod,
	}
	if cfg.TTLInterval == 0 {
		ec.TTLInterval = -1 // background expiry off; /admin/ttl/expire still works
	}
	if cfg.Admin {
		ec.Clock = &engine.AdminClock{} // /admin/clock/advance moves it forward
	}
	return ec
}

// openStore opens the configured storage backend.
func openStore(cfg Config) (storage.Store, error) {
	if cfg.InMemory {
		return memory.New(), nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	return pebble.Open(cfg.DataDir, pebble.Options{})
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Endpoint is the server's URL, e.g. http://127.0.0.1:8000.
func (s *Server) Endpoint() string { return "http://" + s.ln.Addr().String() }

// Done delivers the error that stopped serving (nil after Shutdown).
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops accepting connections, lets in-flight requests finish
// (until ctx ends, then closes connections), and closes the engine and the
// store cleanly.
func (s *Server) Shutdown(ctx context.Context) error {
	var errs []error
	if err := s.http.Shutdown(ctx); err != nil {
		s.log.Warn("shutdown did not finish in time; closing connections", "err", err)
		s.http.Close()
	}
	if err := s.eng.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing engine: %w", err))
	}
	if err := s.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing store: %w", err))
	}
	return errors.Join(errs...)
}
