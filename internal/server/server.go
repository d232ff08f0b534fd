package server

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/console"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/engine/kinesisdest"
	"github.com/kura-db/kura/internal/metrics"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/replication"
	"github.com/kura-db/kura/internal/s3api"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/storage/postgres"
	"github.com/kura-db/kura/internal/vector"
)

// The backends offer authorization the policy lookup that builds no error
// for a resource with no policy (api.PolicyLookup).
var (
	_ api.PolicyLookup = (*engine.Engine)(nil)
	_ api.PolicyLookup = (*replication.Region)(nil)
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
	// Cluster makes this server one node of several serving the same
	// PostgreSQL or TiKV namespace (--cluster; docs/running.md "Several
	// nodes"): the nodes share the namespace's lease, each registers in
	// the store (internal/membership), and the engines run in cluster mode
	// (engine.Config.Cluster). Refused on the embedded and in-memory
	// stores, which one process serves.
	Cluster bool
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
	S3Dir string
	// S3Endpoint, when set, is the S3 or S3-compatible service exports and
	// imports use (objstore.S3, with the AWS SDK's credential chain);
	// S3PathStyle addresses its buckets by path. Not with S3Dir.
	S3Endpoint  string
	S3PathStyle bool
	// KinesisEndpoint, when set, is the Kinesis Data Streams service that
	// Kinesis streaming destinations put records to (with the AWS SDK's
	// credential chain); "": none, and EnableKinesisStreamingDestination
	// is refused.
	KinesisEndpoint   string
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
	// on first use — in a folder of DataDir (folderName), or in memory —
	// as DynamoDB Local does without -sharedDb. Its tables' ARNs name that
	// region. Unsigned requests share one database.
	PerCredential bool
	// MaxOpenDatabases bounds how many per-credential databases on disk
	// stay open at once (0: DefaultMaxOpenDatabases); the least recently
	// used idle one is closed to open another, and reopened on demand.
	// It is lowered further to fit the open-file limit.
	MaxOpenDatabases int
	// Regions, when any, are the regions this server is (regions.go):
	// each has a database of its own, a request goes to the region of its
	// credential scope (unsigned ones to Region, which must be among them)
	// and one for any other region is refused as DynamoDB refuses it.
	Regions []string
	// ItemCacheBytes is the engine's item cache budget (on-disk stores
	// only); 0 turns it off.
	ItemCacheBytes int64
	// SyncDelay is the minimum interval between two WAL fsyncs.
	SyncDelay time.Duration
	// MinFreeBytes is the free space of DataDir's disk below which writes
	// are refused (0: no minimum); MinFreeText names it in the error.
	MinFreeBytes uint64
	MinFreeText  string
	// DiskStallTimeout stops the server when one disk operation of a
	// store takes longer (pebble.Options.DiskStallTimeout; 0: no check).
	DiskStallTimeout time.Duration
	// Credentials, when any, switch authentication on: every request must
	// be signed (SigV4) with one of them, for Region (internal/auth).
	Credentials []auth.Credential
	// IAMFile, when set, switches authorization on (iam.go): the
	// get-account-authorization-details JSON whose policies decide what
	// each principal may do; Principals maps access key IDs to the IAM
	// user name or role ARN they act as (absent: the root user).
	IAMFile    string
	Principals map[string]string
	// HTTP bounds request bodies and guards against browsers (api.Options,
	// api.OriginPolicy; its ListenHosts is filled from Listen).
	HTTP   HTTPLimits
	Logger *slog.Logger // nil: discard
}

// HTTPLimits are the HTTP front end's hardening settings; zero values
// take api's defaults.
type HTTPLimits struct {
	// MaxBufferedBytes caps the memory request bodies hold at once.
	MaxBufferedBytes int64
	// BodyTimeout and BodyMinRate bound how slowly a body may arrive.
	BodyTimeout time.Duration
	BodyMinRate int64
	// CORSOrigins are browser origins allowed besides the console's own
	// and loopback ones ("*": every origin).
	CORSOrigins []string
	// AllowAnyHost turns the Host check (against DNS rebinding) off.
	AllowAnyHost bool
}

// Server is a running instance.
type Server struct {
	cfg     Config
	stopIAM func() // nil: authorization off
	ln      net.Listener
	http    *api.HTTPServer
	done    chan error
	log     *slog.Logger

	dbs     databases          // the open databases (databases.go)
	dirLock *dirLock           // on the data directory, while the server runs (lock.go)
	tikv    tikvCluster        // with Config.TiKVPD: the connection every database's store shares
	pg      *postgres.Cluster  // with Config.Postgres: the pool every database's store shares
	objects objstore.Store     // exports' and imports' S3 (Config.S3Dir or S3Endpoint); nil: none
	kinesis kinesisdest.Client // Kinesis streaming destinations' (Config.KinesisEndpoint); nil: none
	// With two or more Config.Regions in shared mode: their global tables
	// and the store of their replication state (regions.go).
	repl      *replication.Group
	replStore storage.Store
	// With Config.PerCredential and two or more regions: each access
	// key's global tables (keyrepl.go).
	keyRepl keyGroups
	ckptMu  sync.Mutex // serialises Checkpoint
	scheme  string     // of Endpoint: "https" with Config.TLSCert
	certs   *certFiles // with Config.TLSCert
	// fileLimit is the open-file limit (RLIMIT_NOFILE), its soft limit
	// raised to the hard one at start; 0 if unknown.
	fileLimit uint64

	// With Config.Metrics: the request counters and their listener.
	requests   *metrics.Requests
	metricsSrv *http.Server
	metricsLn  net.Listener
	// apiSrv is the API server, once Start has made it (the metrics
	// listener asks it to authorize scrapes).
	apiSrv  atomic.Pointer[api.Server]
	started time.Time

	// failure is the storage fault that stopped the server (fail), nil
	// while it runs. httpMu guards http for fail, which may run while
	// Start is still setting it.
	failure atomic.Pointer[error]
	httpMu  sync.Mutex
}

// Start binds the listeners, then opens storage and the engine, and
// starts serving. Binding comes first, so that a port in use stops the
// start before anything is written to the data directory.
func Start(cfg Config) (*Server, error) {
	if len(cfg.Regions) > 0 && cfg.Region == "" {
		cfg.Region = "us-east-1" // the engine's default
	}
	if err := checkRegions(cfg); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, done: make(chan error, 1), started: time.Now()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.dbs.init()
	opts := s.apiOptions()
	objects, err := openObjects(cfg) // writes nothing: before the listeners too
	if err != nil {
		return nil, err
	}
	s.objects = objects
	if cfg.KinesisEndpoint != "" { // contacts nothing yet either
		if s.kinesis, err = kinesisdest.NewClient(context.Background(), cfg.KinesisEndpoint, cmp.Or(cfg.Region, "us-east-1")); err != nil {
			return nil, err
		}
	}
	ln, err := s.listen()
	if err != nil {
		return nil, err
	}
	if cfg.Metrics != "" {
		if err := s.startMetrics(cfg.Metrics); err != nil {
			ln.Close()
			return nil, err
		}
	}
	backend, err := s.openStorage(&opts)
	if err != nil {
		ln.Close()
		if s.metricsSrv != nil {
			s.metricsSrv.Close()
		}
		return nil, err
	}
	if err := s.startIAM(&opts); err != nil {
		ln.Close()
		if s.metricsSrv != nil {
			s.metricsSrv.Close()
		}
		s.closeDatabases()
		return nil, err
	}
	if cfg.S3Dir != "" {
		// The folder store is also served as S3 on this endpoint, signed
		// with the same credentials and authorized by the same IAM
		// policies (internal/s3api).
		s3cfg := s3api.Config{Store: objstore.Dir{Root: cfg.S3Dir}, Auth: opts.Auth, Region: cmp.Or(cfg.Region, "us-east-1"), Logger: s.log, LogRequests: cfg.LogRequests}
		if opts.Authorize != nil {
			s3cfg.IAM = opts.Authorize.IAM
		}
		opts.S3 = s3api.New(s3cfg)
	}
	as := api.NewServer(backend, opts)
	s.apiSrv.Store(as)
	hs := api.NewHTTPServer(as, api.HTTPConfig{
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn), // timeouts: HTTPConfig's defaults
	})
	s.httpMu.Lock()
	s.http = hs // under httpMu for fail
	s.httpMu.Unlock()
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = s.failed() // nil after Shutdown
		}
		s.done <- err
	}()
	return s, nil
}

// openStorage locks the data directory or connects to TiKV or PostgreSQL, and opens the
// shared database, or sets opts up to pick one per credential.
func (s *Server) openStorage(opts *api.Options) (api.Backend, error) {
	cfg := s.cfg
	s.fileLimit = raiseFileLimit()
	switch {
	case len(cfg.TiKVPD) > 0:
		c, err := connectTiKV(cfg)
		if err != nil {
			return nil, err
		}
		s.tikv = c
		if cfg.TiKVGCLifetime > 0 {
			c.StartGC(cfg.TiKVGCLifetime)
		}
		s.log.Debug("storing data in TiKV", "pd", cfg.TiKVPD, "namespace", cfg.TiKVNamespace, "gc-life-time", cfg.TiKVGCLifetime)
	case cfg.Postgres != "":
		c, err := postgres.Connect(cfg.Postgres)
		if err != nil {
			return nil, err
		}
		s.pg = c
		c.StartGC(pgSweepInterval)
		s.log.Debug("storing data in PostgreSQL", "namespace", cfg.PostgresNamespace)
	case cfg.Cluster:
		return nil, errClusterStore
	case !cfg.InMemory:
		l, err := lockDataDir(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		s.dirLock = l
	}
	if cfg.PerCredential {
		s.limitOpenDatabases()
		opts.Databases = s.databaseFor
		if err := s.resumeKeyGroups(); err != nil {
			s.stopKeyGroups()
			s.closeDatabases()
			return nil, fmt.Errorf("resuming the global tables of the access keys: %w", err)
		}
		return nil, nil
	}
	db, err := s.acquire(sharedKey, cfg.Region)
	if err != nil {
		s.closeDatabases()
		return nil, err
	}
	// Never released: the shared database stays open until Shutdown, and
	// so do the other regions' (regions.go).
	engines := map[string]*engine.Engine{cfg.Region: db.eng}
	for _, r := range cfg.Regions {
		if r == cfg.Region {
			continue
		}
		rdb, err := s.acquire(s.regionKey(r), r)
		if err != nil {
			s.closeDatabases()
			return nil, fmt.Errorf("region %s: %w", r, err)
		}
		engines[r] = rdb.eng
	}
	if len(cfg.Regions) == 0 {
		return db.eng, nil
	}
	opts.Databases = s.databaseFor
	if len(cfg.Regions) == 1 {
		return db.eng, nil
	}
	if err := s.startReplication(engines); err != nil {
		s.closeDatabases()
		return nil, err
	}
	if cfg.Admin {
		opts.Replication = s.repl
	}
	return s.repl.Region(cfg.Region), nil
}

// apiOptions configures the HTTP API from the Config: authentication,
// checkpoints, metrics, the console (the backend is set by Start).
func (s *Server) apiOptions() api.Options {
	cfg := s.cfg
	opts := api.Options{Logger: s.log, Admin: cfg.Admin, LogRequests: cfg.LogRequests, Health: s.health,
		MaxBufferedBytes: cfg.HTTP.MaxBufferedBytes, BodyTimeout: cfg.HTTP.BodyTimeout, BodyMinRate: cfg.HTTP.BodyMinRate,
		Origins: api.OriginPolicy{Origins: cfg.HTTP.CORSOrigins, CheckHost: !cfg.HTTP.AllowAnyHost, ListenHosts: listenHosts(cfg.Listen)}}
	if len(cfg.Credentials) > 0 {
		region := cfg.Region
		if region == "" {
			region = "us-east-1" // the engine's default
		}
		if cfg.PerCredential || len(cfg.Regions) > 0 {
			region = "" // a database per access key and region: any region
		}
		opts.Auth = auth.NewVerifier(region, cfg.Credentials, nil)
		if len(cfg.Regions) > 0 {
			opts.Auth.OnlyRegions(cfg.Regions)
		}
		s.log.Debug("authentication on", "credentials", len(cfg.Credentials), "region", region)
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
		if cfg.PerCredential && len(cfg.Regions) == 0 {
			region = "" // the console asks for one
		}
		opts.Console = console.Handler(console.Options{Region: region, Authentication: opts.Auth != nil, DatabasePerKey: cfg.PerCredential, Regions: cfg.Regions})
	}
	return opts
}

// listenHosts are the names a server listening on addr answers to besides
// IP addresses and localhost: the host of addr when it is a name.
func listenHosts(addr string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || net.ParseIP(host) != nil {
		return nil
	}
	return []string{host}
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
	s.log.Debug("serving HTTPS", "cert", s.cfg.TLSCert)
	return s.ln, nil
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
	if s.stopIAM != nil {
		s.stopIAM()
	}
	if s.metricsSrv != nil {
		s.metricsSrv.Close()
	}
	if err := s.failed(); err != nil {
		// fail closed the listeners; the failed store must not be
		// closed (its goroutine holds it) and the process stops.
		return err
	}
	if err := s.http.Shutdown(ctx); err != nil {
		s.log.Warn("shutdown did not finish in time; closing connections", "err", err)
		s.http.Close()
	}
	return errors.Join(s.stopReplication(), s.stopKeyGroups(), s.closeDatabases())
}

// openObjects is the object store of Config.S3Dir or S3Endpoint (nil:
// neither).
func openObjects(cfg Config) (objstore.Store, error) {
	switch {
	case cfg.S3Dir != "" && cfg.S3Endpoint != "":
		return nil, errors.New("--s3-dir and --s3-endpoint exclude each other")
	case cfg.S3Dir != "":
		return objstore.Dir{Root: cfg.S3Dir}, nil
	case cfg.S3Endpoint != "":
		region := cfg.Region
		if region == "" {
			region = "us-east-1"
		}
		return objstore.NewS3(context.Background(), objstore.S3Config{Endpoint: cfg.S3Endpoint, PathStyle: cfg.S3PathStyle, Region: region})
	}
	return nil, nil
}

func engineConfig(cfg Config, objects objstore.Store, kinesis kinesisdest.Client) engine.Config {
	ec := engine.Config{
		Region:            cfg.Region,
		AccountID:         cfg.AccountID,
		Sync:              cfg.Sync,
		CreateDelay:       cfg.CreateDelay,
		TTLInterval:       cfg.TTLInterval,
		StreamShardPeriod: cfg.StreamShardPeriod,
		Throttle:          cfg.Throttle,
		MeterCapacity:     cfg.Metrics != "", // per-table capacity figures
		Objects:           objects,
		Kinesis:           kinesis,
		Cluster:           cfg.Cluster,
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
	if cfg.PerCredential && len(cfg.Regions) > 1 {
		ec.NoGlobalTables = msgNoGlobalTablesPerKey
	}
	return ec
}

// errClusterStore refuses Config.Cluster without a shared store.
var errClusterStore = errors.New("cluster mode (--cluster) needs a store the nodes share: --postgres or --tikv-pd (the embedded and in-memory stores serve one process)")

// pgSweepInterval is how often old PostgreSQL tombstones are swept.
const pgSweepInterval = time.Minute

// openStore opens the configured storage backend for the database key.
func (s *Server) openStore(cfg Config, key string) (storage.Store, error) {
	if cfg.InMemory {
		return memory.New(), nil
	}
	if s.tikv != nil {
		// Neither part holds a '.' (ValidNamespace; folderName
		// writes '.' as %2E) nor a '/' (%2F), which Store refuses.
		if cfg.Cluster {
			return s.tikv.SharedStore(cfg.TiKVNamespace + "." + key)
		}
		return s.tikv.Store(cfg.TiKVNamespace + "." + key)
	}
	if s.pg != nil {
		if cfg.Cluster {
			return s.pg.SharedStore(cfg.PostgresNamespace + "." + key)
		}
		return s.pg.Store(cfg.PostgresNamespace + "." + key)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	return pebble.Open(cfg.DataDir, pebble.Options{SyncDelay: cfg.SyncDelay,
		MinFreeBytes: cfg.MinFreeBytes, MinFreeText: cfg.MinFreeText, OnFatal: s.fail,
		DiskStallTimeout: cfg.DiskStallTimeout})
}

// fail stops the server after a storage fault (pebble.Options.OnFatal):
// the cause is logged, the listener and every connection are closed, and
// Done delivers the fault, so the process exits non-zero and its
// supervisor restarts it; the restart replays every acknowledged write.
// Serving on would answer reads and fail or block every write while
// looking healthy.
func (s *Server) fail(err error) {
	if !s.failure.CompareAndSwap(nil, &err) {
		return
	}
	s.log.Error("storage failed: stopping; restart the server to recover from the write-ahead log", "err", err)
	s.httpMu.Lock()
	hs := s.http
	s.httpMu.Unlock()
	if hs == nil {
		// Not serving yet: Start is the goroutine the fault parked (the
		// store failed while a database opened), so nothing would ever
		// stop the process.
		fmt.Fprintln(os.Stderr, "kura:", err)
		os.Exit(1)
	}
	if s.metricsSrv != nil {
		s.metricsSrv.Close()
	}
	hs.Close()
}

// failed is the storage fault that stopped the server, or nil.
func (s *Server) failed() error {
	if p := s.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// health is the health check's verdict (api.Options.Health): the first
// problem of a database's store (a nearly full disk, a fault), or nil.
func (s *Server) health() error {
	if err := s.failed(); err != nil {
		return err
	}
	s.dbs.mu.Lock()
	defer s.dbs.mu.Unlock()
	for _, db := range s.dbs.open {
		if h, ok := db.store.(storage.HealthReporter); ok {
			if err := h.Health(); err != nil {
				return err
			}
		}
	}
	return nil
}
