// Command kura runs a DynamoDB-compatible server.
//
//	kura [--listen 127.0.0.1:8000] [--port N] [--data-dir ./kura-data]
//	     [--in-memory] [--sync=true] [--region us-east-1]
//	     [--account-id 000000000000] [--log-level info] [--create-delay 0]
//	     [--admin] [--ttl-interval 30s] [--stream-shard-period 4h]
//	     [--pprof 127.0.0.1:6060]
//
// --pprof (off by default) serves net/http/pprof on its own address, never
// on the DynamoDB listener, e.g. for
// go tool pprof http://127.0.0.1:6060/debug/pprof/profile?seconds=10
//
// Every flag has a KURA_* environment equivalent (flag wins). On SIGINT or
// SIGTERM kura stops accepting connections, finishes in-flight requests,
// then closes the engine and the store.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/pebble"
)

// defaultGCPercent is the GOGC value kura runs with unless GOGC is set.
const defaultGCPercent = 400

// shutdownTimeout bounds how long in-flight requests may run after a signal.
const shutdownTimeout = 30 * time.Second

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kura:", err)
		os.Exit(2)
	}
	if os.Getenv("GOGC") == "" {
		// Kura's live heap is small and its garbage short-lived (request
		// buffers, decoded items): collecting at 4x the live heap instead
		// of 2x costs a few MB under load and saves a good share of CPU.
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kura:", err)
		os.Exit(1)
	}
}

// run serves until ctx is cancelled, then shuts down cleanly.
func run(ctx context.Context, cfg *config, stdout io.Writer) (err error) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	slog.SetDefault(log) // the engine logs background work (index backfills) here

	store, err := openStore(cfg)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := store.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing store: %w", cerr)
		}
	}()

	ecfg := engine.Config{
		Region:            cfg.Region,
		AccountID:         cfg.AccountID,
		Sync:              cfg.Sync,
		CreateDelay:       cfg.CreateDelay,
		TTLInterval:       cfg.TTLInterval,
		StreamShardPeriod: cfg.StreamShardPeriod,
	}
	if cfg.TTLInterval == 0 {
		ecfg.TTLInterval = -1 // background expiry off; /admin/ttl/expire still works
	}
	if cfg.Admin {
		ecfg.Clock = &engine.AdminClock{} // /admin/clock/advance moves it forward
	}
	eng, err := engine.Open(store, ecfg)
	if err != nil {
		return fmt.Errorf("opening engine: %w", err)
	}
	if cfg.VectorMaxTopK > 0 {
		eng.SetVectorMaxTopK(cfg.VectorMaxTopK)
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing engine: %w", cerr)
		}
	}()

	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           api.NewServer(eng, api.Options{Logger: log, Admin: cfg.Admin}),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       5 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if cfg.PprofAddr != "" {
		stopPprof, err := startPprof(cfg.PprofAddr, log)
		if err != nil {
			ln.Close()
			return err
		}
		defer stopPprof()
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "kura listening on %s\n", ln.Addr())
	log.Debug("started", "data-dir", cfg.DataDir, "in-memory", cfg.InMemory, "sync", cfg.Sync,
		"region", cfg.Region)

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown did not finish in time; closing connections", "err", err)
		srv.Close()
	}
	return nil
}

// openStore opens the configured storage backend.
func openStore(cfg *config) (storage.Store, error) {
	if cfg.InMemory {
		return memory.New(), nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	st, err := pebble.Open(cfg.DataDir, pebble.Options{})
	if err != nil {
		return nil, err
	}
	return st, nil
}
