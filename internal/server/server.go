package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/console"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/metrics"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/storage/postgres"
	"github.com/kura-db/kura/internal/vector"
)

// Config configures one instance. The zero value serves an in-memory
// database on a random loopback port.
type Config struct {
	// Listen is host:port; empty means 127.0.0.1:0 (a free port).
	Listen string
	// DataDir holds the durable Pebble store; ignored when InMemory.
	DataDir  string
	InMemory bool
	// TiKVPD, when set, stores data in that TiKV cluster (its PD
	// endpoints) under TiKVNamespace instead of DataDir.
	TiKVPD        []string
	TiKVNamespace string
	// TiKVCA, TiKVCert and TiKVKey are PEM files for a cluster that
	// requires TLS (none: plain connections).
	TiKVCA, TiKVCert, TiKVKey string
	// TiKVGCLifetime is how long TiKV keeps old versions: Kura moves the
	// cluster's GC safe point to that long ago (0: Kura runs no GC).
	TiKVGCLifetime time.Duration
	// Postgres, when set, stores data in the PostgreSQL database at this
	// URL under PostgresNamespace instead of DataDir.
	Postgres          string
	PostgresNamespace string
	// Sync fsyncs every acknowledged write.
	Sync        bool
	Region      string
	AccountID   string
	CreateDelay time.Duration
	// Throttle enforces tables' provisioned and on-demand maximum
	// throughput (engine/throttle.go).
	Throttle engine.ThrottleConfig
	// S3Dir, when set, is the folder that stands in for Amazon S3 in
	// exports and imports (objstore.Dir).
	S3Dir             string
	TTLInterval       time.Duration // 0: background expiry off (admin endpoint still works)
	StreamShardPeriod time.Duration // 0: engine default
	// Admin serves the /admin/ endpoints and installs an advanceable clock.
	Admin bool
	// Console serves the web console at /console/.
	Console bool
	// Metrics, when set, is the address of a listener of its own that
	// serves GET /metrics (Prometheus text format).
	Metrics string
	// TLSCert and TLSKey, when set, are PEM files: the listener speaks
	// HTTPS with that certificate (reloaded when the files change).
	TLSCert, TLSKey string
	// LogRequests logs every request at info level (api.Options).
	LogRequests bool
	// CheckpointDir, when set, enables Checkpoint (POST /admin/checkpoint):
	// consistent copies of the data are written into new folders under it.
	CheckpointDir string
	VectorMaxTopK int
	// VectorQuantization is the vector indexes' graph traversal
	// representation (--vector-quantization); the zero value is float32.
	VectorQuantization vector.Quantization
	// VectorEfSearch is the HNSW search beam width (--vector-ef-search; 0:
	// the index default).
	VectorEfSearch int
	// VectorSnapshotInterval is how often vector indexes with enough changes
	// are snapshotted while running (on-disk stores only; 0: only at
	// shutdown). VectorSnapshotChanges is the change threshold (0: the
	// engine default).
	VectorSnapshotInterval time.Duration
	VectorSnapshotChanges  int
	// PerCredential gives each access key ID and region (read from the
	// request's SigV4 Authorization header) a database of its own, opened
	// on first use — in DataDir/<key>_<region>, or in memory — as DynamoDB
	// Local does without -sharedDb. Unsigned requests share one database.
	PerCredential bool
	// ItemCacheBytes is the engine's item cache budget (on-disk stores
	// only); 0 turns it off.
	ItemCacheBytes int64
	// SyncDelay is the minimum interval between two WAL fsyncs.
	SyncDelay time.Duration
	// Credentials, when any, switch authentication on: every request must
	// be signed (SigV4) with one of them, for Region (internal/auth).
	Credentials []auth.Credential
	Logger      *slog.Logger // nil: discard
}

// Server is a running instance.
type Server struct {
	cfg  Config
	ln   net.Listener
	http *api.HTTPServer
	done chan error
	log  *slog.Logger

	mu  sync.Mutex
	dbs map[string]*database // by credential key; sharedKey in shared mode

	tikv tikvCluster       // with Config.TiKVPD: the connection every database's store shares
	pg   *postgres.Cluster // with Config.Postgres: the pool every database's store shares

	ckptMu sync.Mutex // serialises Checkpoint
	scheme string     // of Endpoint: "https" with Config.TLSCert
	certs  *certFiles // with Config.TLSCert

	// With Config.Metrics: the request counters and their listener.
	requests   *metrics.Requests
	metricsSrv *http.Server
	metricsLn  net.Listener
	started    time.Time
}

// database is one store and the engine over it.
type database struct {
	store storage.Store
	eng   *engine.Engine
}

// sharedKey names the one database of shared mode, and the database of
// unsigned requests in per-credential mode.
const sharedKey = "shared"

// Start opens storage and the engine and starts serving.
func Start(cfg Config) (*Server, error) {
	s := &Server{cfg: cfg, log: cfg.Logger, done: make(chan error, 1), dbs: map[string]*database{}, started: time.Now()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	opts := s.apiOptions()
	if len(cfg.TiKVPD) > 0 {
		c, err := connectTiKV(cfg)
		if err != nil {
			return nil, err
		}
		s.tikv = c
		if cfg.TiKVGCLifetime > 0 {
			c.StartGC(cfg.TiKVGCLifetime)
		}
		s.log.Info("storing data in TiKV", "pd", cfg.TiKVPD, "namespace", cfg.TiKVNamespace, "gc-life-time", cfg.TiKVGCLifetime)
	}
	if cfg.Postgres != "" {
		c, err := postgres.Connect(cfg.Postgres)
		if err != nil {
			return nil, err
		}
		s.pg = c
		c.StartGC(pgSweepInterval)
		s.log.Info("storing data in PostgreSQL", "namespace", cfg.PostgresNamespace)
	}
	var backend api.Backend
	if cfg.PerCredential {
		opts.Databases = s.databaseFor
	} else {
		db, err := s.open(sharedKey)
		if err != nil {
			s.closeDatabases()
			return nil, err
		}
		backend = db.eng
	}
	ln, err := s.listen()
	if err != nil {
		s.closeDatabases()
		return nil, err
	}
	if cfg.Metrics != "" {
		if err := s.startMetrics(cfg.Metrics); err != nil {
			ln.Close()
			s.closeDatabases()
			return nil, err
		}
	}
	s.http = api.NewHTTPServer(api.NewServer(backend, opts), api.HTTPConfig{
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn), // timeouts: HTTPConfig's defaults
	})
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// apiOptions configures the HTTP API from the Config: authentication,
// checkpoints, metrics, the console (the backend is set by Start).
func (s *Server) apiOptions() api.Options {
	cfg := s.cfg
	opts := api.Options{Logger: s.log, Admin: cfg.Admin, LogRequests: cfg.LogRequests}
	if len(cfg.Credentials) > 0 {
		region := cfg.Region
		if region == "" {
			region = "us-east-1" // the engine's default
		}
		if cfg.PerCredential {
			region = "" // a database per access key and region: any region
		}
		opts.Auth = auth.NewVerifier(region, cfg.Credentials, nil)
		s.log.Info("authentication on", "credentials", len(cfg.Credentials), "region", region)
	}
	if cfg.CheckpointDir != "" {
		opts.Checkpoint = s.Checkpoint
	}
	if cfg.Metrics != "" {
		s.requests = metrics.NewRequests(api.Targets())
		opts.Requests = s.requests
	}
	if cfg.Console {
		region := cfg.Region
		if cfg.PerCredential {
			region = "" // the console asks for one
		}
		opts.Console = console.Handler(console.Options{Region: region, Authentication: opts.Auth != nil, DatabasePerKey: cfg.PerCredential})
	}
	return opts
}

// listen opens the DynamoDB listener: plain TCP, or TLS with
// Config.TLSCert and TLSKey.
func (s *Server) listen() (net.Listener, error) {
	addr := s.cfg.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.scheme, s.ln = "http", ln
	if s.cfg.TLSCert == "" && s.cfg.TLSKey == "" {
		return ln, nil
	}
	tc, certs, err := loadTLS(s.cfg.TLSCert, s.cfg.TLSKey, s.log)
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.ln = tls.NewListener(ln, tc)
	s.scheme, s.certs = "https", certs
	s.log.Info("serving HTTPS", "cert", s.cfg.TLSCert)
	return s.ln, nil
}

// open returns the database for key, opening it on first use.
func (s *Server) open(key string) (*database, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if db, ok := s.dbs[key]; ok {
		return db, nil
	}
	cfg := s.cfg
	if cfg.PerCredential {
		cfg.DataDir = filepath.Join(cfg.DataDir, key)
	}
	store, err := s.openStore(cfg, key)
	if err != nil {
		return nil, err
	}
	eng, err := engine.Open(store, engineConfig(cfg))
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("opening engine: %w", err)
	}
	if cfg.VectorMaxTopK > 0 {
		eng.SetVectorMaxTopK(cfg.VectorMaxTopK)
	}
	eng.SetVectorEfSearch(cfg.VectorEfSearch)
	if err := eng.SetVectorQuantization(cfg.VectorQuantization); err != nil {
		eng.Close()
		store.Close()
		return nil, err
	}
	if !cfg.InMemory && cfg.VectorSnapshotInterval > 0 {
		eng.SetVectorSnapshotPolicy(cfg.VectorSnapshotInterval, cfg.VectorSnapshotChanges)
	}
	db := &database{store: store, eng: eng}
	s.dbs[key] = db
	if cfg.PerCredential {
		s.log.Info("opened database", "credential", key)
	}
	return db, nil
}

// databaseFor picks the database of the request's credential.
func (s *Server) databaseFor(authorization string) (api.Backend, error) {
	db, err := s.open(credentialKey(authorization))
	if err != nil {
		s.log.Error("opening database", "err", err)
		return nil, ddberr.Internal("Internal server error")
	}
	return db.eng, nil
}

// credentialKey is "<access key ID>_<region>" from a SigV4 Authorization
// header ("AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/
// aws4_request, ..."), reduced to file-name-safe characters; sharedKey for
// anything else.
func credentialKey(authorization string) string {
	parts := auth.CredentialScope(authorization)
	if len(parts) < 3 || parts[0] == "" {
		return sharedKey
	}
	return safeName(parts[0]) + "_" + safeName(parts[2])
}

func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Endpoint is the server's URL, e.g. http://127.0.0.1:8000 (https:// with
// TLS).
func (s *Server) Endpoint() string { return s.scheme + "://" + s.ln.Addr().String() }

// Done delivers the error that stopped serving (nil after Shutdown).
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops accepting connections, lets in-flight requests finish
// (until ctx ends, then closes connections), and closes every engine and
// store cleanly.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.metricsSrv != nil {
		s.metricsSrv.Close()
	}
	if err := s.http.Shutdown(ctx); err != nil {
		s.log.Warn("shutdown did not finish in time; closing connections", "err", err)
		s.http.Close()
	}
	return s.closeDatabases()
}

func (s *Server) closeDatabases() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for key, db := range s.dbs {
		if err := db.eng.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing engine %s: %w", key, err))
		}
		if err := db.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing store %s: %w", key, err))
		}
		delete(s.dbs, key)
	}
	if s.tikv != nil {
		if err := s.tikv.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the TiKV connection: %w", err))
		}
		s.tikv = nil
	}
	if s.pg != nil {
		if err := s.pg.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the PostgreSQL connection: %w", err))
		}
		s.pg = nil
	}
	return errors.Join(errs...)
}

func engineConfig(cfg Config) engine.Config {
	ec := engine.Config{
		Region:            cfg.Region,
		AccountID:         cfg.AccountID,
		Sync:              cfg.Sync,
		CreateDelay:       cfg.CreateDelay,
		TTLInterval:       cfg.TTLInterval,
		StreamShardPeriod: cfg.StreamShardPeriod,
		Throttle:          cfg.Throttle,
		MeterCapacity:     cfg.Metrics != "", // per-table capacity figures
	}
	if cfg.S3Dir != "" {
		ec.Objects = objstore.Dir{Root: cfg.S3Dir}
	}
	if !cfg.InMemory {
		// The in-memory store's lookups are already cheap.
		ec.ItemCacheBytes = cfg.ItemCacheBytes
	}
	if cfg.TTLInterval == 0 {
		ec.TTLInterval = -1 // background expiry off; /admin/ttl/expire still works
	}
	if cfg.Admin {
		ec.Clock = &engine.AdminClock{} // /admin/clock/advance moves it forward
	}
	return ec
}

// pgSweepInterval is how often old PostgreSQL tombstones are swept.
const pgSweepInterval = time.Minute

// openStore opens the configured storage backend for the database key.
func (s *Server) openStore(cfg Config, key string) (storage.Store, error) {
	if cfg.InMemory {
		return memory.New(), nil
	}
	if s.tikv != nil {
		// Neither part holds a '.' (ValidNamespace, safeName).
		return s.tikv.Store(cfg.TiKVNamespace + "." + key)
	}
	if s.pg != nil {
		// Neither part holds a '.' (ValidNamespace, safeName).
		return s.pg.Store(cfg.PostgresNamespace + "." + key)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	return pebble.Open(cfg.DataDir, pebble.Options{SyncDelay: cfg.SyncDelay})
}
