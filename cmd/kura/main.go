// Command kura runs a DynamoDB-compatible server.
//
//	kura [--listen 127.0.0.1:8000] [--port N] [--data-dir ./kura-data]
//	     [--in-memory] [--sync=true] [--region us-east-1]
//	     [--account-id 000000000000] [--log-level info] [--create-delay 0]
//	     [--admin] [--ttl-interval 30s] [--stream-shard-period 4h]
//	     [--console=true] [--metrics 127.0.0.1:9100] [--pprof 127.0.0.1:6060]
//	     [--tls-cert cert.pem --tls-key key.pem] [--log-requests]
//	     [--checkpoint-dir DIR] [--enforce-throughput] [--burst-capacity 300s]
//	     [--s3-dir DIR | --s3-endpoint URL [--s3-path-style]]
//	     [--kinesis-endpoint URL]
//	     [--log-format text|json] [--max-open-databases 64] [--version]
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
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/server"
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
	if cfg.Version {
		fmt.Println(server.Build())
		return
	}
	if os.Getenv("GOGC") == "" {
		// Kura's live heap is small and its garbage short-lived (request
		// buffers, decoded items): collecting at 4x the live heap instead
		// of 2x costs a few MB under load and saves a good share of CPU.
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := newLogger(cfg, os.Stderr)
	if err := run(ctx, cfg, log); err != nil {
		log.Error("kura stopped", "err", err)
		stop()
		os.Exit(1)
	}
}

// newLogger is the one log everything goes to: slog's text or JSON lines
// on w.
func newLogger(cfg *config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// run serves until ctx is cancelled, then shuts down cleanly. Its first
// record at info level says what is running where (server.Summary).
func run(ctx context.Context, cfg *config, log *slog.Logger) error {
	slog.SetDefault(log) // the engine logs background work (index backfills) here
	for _, w := range cfg.Warnings {
		log.Warn(w)
	}
	if cfg.SysmonSlack > 0 {
		if err := relaxSysmon(cfg.SysmonSlack); err != nil {
			log.Debug("sysmon timer slack left alone", "err", err)
		}
	}

	srv, err := server.Start(server.Config{
		Listen:            cfg.Addr(),
		DataDir:           cfg.DataDir,
		InMemory:          cfg.InMemory,
		TiKVPD:            cfg.TiKVPD,
		TiKVNamespace:     cfg.TiKVNamespace,
		TiKVGCLifetime:    cfg.TiKVGCLifetime,
		TiKVCA:            cfg.TiKVCA,
		TiKVCert:          cfg.TiKVCert,
		TiKVKey:           cfg.TiKVKey,
		Postgres:          cfg.Postgres,
		PostgresNamespace: cfg.PostgresNamespace,
		Cluster:           cfg.Cluster,
		Sync:              cfg.Sync,
		Region:            cfg.Region,
		AccountID:         cfg.AccountID,
		CreateDelay:       cfg.CreateDelay,
		Throttle:          engine.ThrottleConfig{On: cfg.EnforceThroughput, Burst: cfg.BurstCapacity},
		S3Dir:             cfg.S3Dir,
		S3Endpoint:        cfg.S3Endpoint,
		S3PathStyle:       cfg.S3PathStyle,
		KinesisEndpoint:   cfg.KinesisEndpoint,
		TTLInterval:       cfg.TTLInterval,
		StreamShardPeriod: cfg.StreamShardPeriod,
		Admin:             cfg.Admin,
		Console:           cfg.Console,
		Metrics:           cfg.Metrics,
		TLSCert:           cfg.TLSCert,
		TLSKey:            cfg.TLSKey,
		LogRequests:       cfg.LogRequests,
		CheckpointDir:     cfg.CheckpointDir,
		VectorMaxTopK:     cfg.VectorMaxTopK,
		PerCredential:     !cfg.SharedDB,
		MaxOpenDatabases:  cfg.MaxOpenDatabases,
		Regions:           cfg.Regions,
		ItemCacheBytes:    int64(cfg.ItemCacheMB) << 20,
		SyncDelay:         cfg.SyncDelay,
		MinFreeBytes:      uint64(cfg.MinFreeSpaceMB) << 20,
		MinFreeText:       fmt.Sprintf("%d MB, --min-free-space-mb", cfg.MinFreeSpaceMB),
		DiskStallTimeout:  cfg.DiskStallTimeout,
		Credentials:       cfg.Credentials,
		IAMFile:           cfg.IAMFile,
		Principals:        cfg.Principals,
		HTTP:              cfg.HTTP,
		Logger:            log,

		VectorQuantization:     cfg.VectorQuantization,
		VectorEfSearch:         cfg.VectorEfSearch,
		VectorSnapshotInterval: cfg.VectorSnapshotInterval,
		VectorSnapshotChanges:  cfg.VectorSnapshotChanges,
	})
	if err != nil {
		return err
	}
	if cfg.PprofAddr != "" {
		stopPprof, err := startPprof(cfg.PprofAddr, log)
		if err != nil {
			srv.Shutdown(context.Background())
			return err
		}
		defer stopPprof()
	}
	log.Info("Kura is ready", srv.Summary()...)

	select {
	case err := <-srv.Done():
		srv.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	return srv.Shutdown(sctx)
}
