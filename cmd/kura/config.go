package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/auth"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/server"
	"github.com/kura-db/kura/internal/vector"
)

// config is the server configuration. Every flag has a KURA_* environment
// equivalent (e.g. --data-dir and KURA_DATA_DIR); a flag given on the
// command line wins over the environment, which wins over the default.
type config struct {
	Listen   string
	Port     int
	DataDir  string
	InMemory bool
	// TiKVPD lists a TiKV cluster's PD endpoints: data goes there instead
	// of DataDir. TiKVNamespace separates this deployment's keys.
	TiKVPD                    []string
	TiKVNamespace             string
	TiKVGCLifetime            time.Duration
	TiKVCA, TiKVCert, TiKVKey string
	// Postgres is a PostgreSQL connection URL: data goes there instead of
	// DataDir. PostgresNamespace separates this deployment's keys.
	Postgres          string
	PostgresNamespace string
	// Cluster runs this server as one node of several on the same
	// --postgres or --tikv-pd namespace (docs/running.md "Several nodes").
	Cluster   bool
	Sync      bool
	Region    string
	AccountID string
	LogLevel  slog.Level
	// LogFormat is "text" (slog's key=value lines) or "json".
	LogFormat   string
	CreateDelay time.Duration
	// EnforceThroughput throttles requests past tables' provisioned (and
	// on-demand maximum) throughput; BurstCapacity is the unused capacity
	// a table keeps.
	EnforceThroughput bool
	BurstCapacity     time.Duration
	// S3Dir stands in for Amazon S3 in exports and imports: bucket B is
	// its folder B.
	S3Dir string
	// S3Endpoint is a real S3 or S3-compatible service for exports and
	// imports instead; S3PathStyle addresses its buckets by path.
	S3Endpoint  string
	S3PathStyle bool
	// KinesisEndpoint is the Kinesis Data Streams service Kinesis
	// streaming destinations put records to ("": none).
	KinesisEndpoint string
	// Admin serves the /admin/ endpoints (TTL expiry now, clock advance).
	Admin bool
	// Console serves the web console at /console/.
	Console bool
	// Metrics is the address of the Prometheus /metrics listener ("": off).
	Metrics string
	// TLSCert and TLSKey switch the listener to HTTPS.
	TLSCert, TLSKey string
	// LogRequests logs every request (at info level).
	LogRequests bool
	// Version asks for the build's description instead of a server.
	Version bool
	// CheckpointDir enables POST /admin/checkpoint, which writes copies
	// of the data into it.
	CheckpointDir string
	// TTLInterval is the period of the background TTL expirer.
	TTLInterval time.Duration
	// StreamShardPeriod is how long a stream shard stays open.
	StreamShardPeriod time.Duration
	PprofAddr         string
	// VectorMaxTopK raises SearchVectors' TopK cap above DynamoDB's 100 (a
	// Kura extension; 0 keeps DynamoDB's cap).
	VectorMaxTopK int
	// VectorQuantization: "none" (float32 traversal) or "sq8" (8-bit codes
	// with exact float32 re-scoring).
	VectorQuantization vector.Quantization
	// VectorEfSearch is the HNSW search beam width SearchVectors uses.
	VectorEfSearch int
	// VectorSnapshotInterval is how often vector indexes with at least
	// VectorSnapshotChanges changes (or 10% of their size) are snapshotted
	// while running; 0 snapshots only at shutdown.
	VectorSnapshotInterval time.Duration
	VectorSnapshotChanges  int
	// SharedDB serves one database to every credential and region (the
	// default); false gives each access key and region its own, like
	// DynamoDB Local without -sharedDb.
	SharedDB bool
	// MaxOpenDatabases bounds the per-key databases kept open with
	// --shared-db=false.
	MaxOpenDatabases int
	// Regions are the regions the server is (--regions; none: one,
	// Region, as before).
	Regions []string
	// Warnings are said once the log is set up: flags that do nothing
	// together with others.
	Warnings []string
	// ItemCacheMB is the item cache budget (0 turns it off).
	ItemCacheMB int
	// SyncDelay is the minimum interval between two WAL fsyncs.
	SyncDelay time.Duration
	// MinFreeSpaceMB is the free space of --data-dir's disk below which
	// writes are refused (0: no minimum).
	MinFreeSpaceMB int
	// DiskStallTimeout stops Kura when one disk operation takes longer.
	DiskStallTimeout time.Duration
	// Credentials switch authentication on: every request must be signed
	// (SigV4) with one of them (--credentials and --credentials-file
	// together).
	Credentials []auth.Credential
	// IAMFile switches authorization on (internal/iam); Principals maps
	// the access keys of --credentials-file to the principal (an IAM
	// user name or role ARN) in their third field.
	IAMFile    string
	Principals map[string]string
	// SysmonSlack is the timer slack given to the Go runtime's monitor
	// thread (sysmon_linux.go); 0 leaves it alone.
	SysmonSlack time.Duration
	// HTTP bounds request bodies and guards against browsers
	// (--max-request-memory-mb, --body-timeout, --body-min-rate, --cors,
	// --allow-any-host).
	HTTP server.HTTPLimits
}

// DefaultMinFreeSpaceMB is --min-free-space-mb's default: room for what the
// store still writes on its own once writes are refused (flushing two
// 16 MB memtables, a compaction of the tables they make, a new 17.6 MB
// write-ahead log) with a margin for the rest of the machine.
const DefaultMinFreeSpaceMB = 128

// Addr is the listen address with --port applied.
func (c *config) Addr() string {
	if c.Port <= 0 {
		return c.Listen
	}
	host, _, err := net.SplitHostPort(c.Listen)
	if err != nil {
		host = c.Listen
	}
	return net.JoinHostPort(host, strconv.Itoa(c.Port))
}

// envName maps a flag name to its environment variable: data-dir → KURA_DATA_DIR.
func envName(flagName string) string {
	return "KURA_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseConfig parses args (without the program name) with getenv supplying
// the KURA_* environment.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	c := &config{}
	var logLevel string
	fs := flag.NewFlagSet("kura", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:8000", "address to listen on (host:port)")
	fs.IntVar(&c.Port, "port", 0, "port to listen on; overrides the port of --listen")
	fs.StringVar(&c.DataDir, "data-dir", "./kura-data", "directory of the durable (Pebble) store")
	fs.BoolVar(&c.InMemory, "in-memory", false, "keep all data in memory (nothing survives a restart)")
	var tikvPD string
	fs.StringVar(&tikvPD, "tikv-pd", "", "store data in the TiKV cluster whose PD endpoints (host:port) are this comma-separated list, instead of --data-dir")
	fs.StringVar(&c.TiKVNamespace, "tikv-namespace", "default", "with --tikv-pd: the name (letters, digits, '-' and '_') that keeps this deployment's keys apart from others' in the cluster; one Kura server per namespace, or several with --cluster")
	fs.StringVar(&c.TiKVCA, "tikv-ca", "", "with --tikv-pd: PEM file of the CA that signed a TLS cluster's certificates")
	fs.StringVar(&c.TiKVCert, "tikv-cert", "", "with --tikv-pd: PEM certificate Kura presents to a TLS cluster (with --tikv-key)")
	fs.StringVar(&c.TiKVKey, "tikv-key", "", "with --tikv-pd: PEM private key of --tikv-cert")
	fs.DurationVar(&c.TiKVGCLifetime, "tikv-gc-life-time", 10*time.Minute, "with --tikv-pd: how long the cluster keeps overwritten and deleted versions; Kura moves the cluster's GC safe point to that long ago every 10 minutes, never past a transaction it has open (0: Kura runs no GC, for a cluster whose GC something else runs)")
	fs.StringVar(&c.Postgres, "postgres", "", "store data in the PostgreSQL database at this URL (postgres://user:password@host:5432/database?sslmode=verify-full), instead of --data-dir; Kura creates its tables there (docs/running.md)")
	fs.StringVar(&c.PostgresNamespace, "postgres-namespace", "default", "with --postgres: the name (letters, digits, '-' and '_') that keeps this deployment's keys apart from others' in the database; one Kura server per namespace, or several with --cluster")
	fs.BoolVar(&c.Cluster, "cluster", false, "with --postgres or --tikv-pd: serve the namespace as one node of several (each with --cluster, behind a load balancer): no item cache, every write checked against the store's table definitions; --enforce-throughput enforces each node's share of every table's capacity (docs/running.md, \"Several nodes\")")
	fs.BoolVar(&c.Sync, "sync", true, "fsync every acknowledged write (no effect with --tikv-pd or --postgres, whose commits are as durable as the cluster makes them)")
	fs.StringVar(&c.Region, "region", "us-east-1", "region reported in ARNs and endpoints")
	fs.StringVar(&c.AccountID, "account-id", "000000000000", "account id reported in ARNs")
	fs.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format (on stderr): text (key=value lines) or json (one object per line)")
	fs.DurationVar(&c.CreateDelay, "create-delay", 0, "how long new tables and indexes stay CREATING")
	fs.BoolVar(&c.EnforceThroughput, "enforce-throughput", false, "throttle requests past a table's or GSI's provisioned read/write capacity (or on-demand MaxRead/WriteRequestUnits) with ProvisionedThroughputExceededException (ThrottlingException), UnprocessedItems/UnprocessedKeys in batches, as DynamoDB does; off by default, when throughput is only stored and described")
	fs.DurationVar(&c.BurstCapacity, "burst-capacity", engine.DefaultBurst, "with --enforce-throughput: how much unused provisioned capacity a table or GSI keeps for bursts, in time at its provisioned rate (DynamoDB keeps 300s; at least 1s)")
	fs.StringVar(&c.S3Dir, "s3-dir", "", "a folder that stands in for Amazon S3 in ExportTableToPointInTime, ImportTable and StartBulkPutItems: the object s3://B/K is the file DIR/B/K (each bucket a folder that must exist); off when empty, and exports, imports and bulk operations are refused")
	fs.StringVar(&c.S3Endpoint, "s3-endpoint", "", "the URL of Amazon S3 (https://s3.REGION.amazonaws.com) or of an S3-compatible service that ExportTableToPointInTime, ImportTable and StartBulkPutItems write and read, with the AWS SDK's credential chain (AWS_ACCESS_KEY_ID..., AWS_PROFILE, roles) and region (AWS_REGION, else --region); not with --s3-dir")
	fs.StringVar(&c.KinesisEndpoint, "kinesis-endpoint", "", "the URL of Amazon Kinesis Data Streams (https://kinesis.REGION.amazonaws.com) or of a Kinesis-compatible service that Kinesis streaming destinations (EnableKinesisStreamingDestination) put the tables' changes to, with the AWS SDK's credential chain and region (AWS_REGION, else --region); off when empty, and EnableKinesisStreamingDestination is refused")
	fs.BoolVar(&c.S3PathStyle, "s3-path-style", false, "with --s3-endpoint: address buckets as ENDPOINT/BUCKET/KEY instead of BUCKET.HOST/KEY (most S3-compatible servers need it)")
	fs.BoolVar(&c.Admin, "admin", false, "serve the operator endpoints POST /admin/ttl/expire and POST /admin/clock/advance?by=DURATION (off by default; for tests and development)")
	fs.BoolVar(&c.Console, "console", true, "serve the web console at /console/ (tables, items, PartiQL in a browser; with authentication on it signs its requests with a key you enter; --console=false to turn it off)")
	fs.DurationVar(&c.TTLInterval, "ttl-interval", 30*time.Second, "how often the background TTL expirer deletes expired items (0 turns the background pass off)")
	fs.DurationVar(&c.StreamShardPeriod, "stream-shard-period", 4*time.Hour, "how long a DynamoDB Streams shard stays open before it rolls over to a child shard")
	fs.StringVar(&c.CheckpointDir, "checkpoint-dir", "", "enable POST /admin/checkpoint, which writes a consistent copy of the data (every acknowledged write) into a new folder under this directory while Kura runs: a backup that Kura starts on with --data-dir (signed, when authentication is on)")
	fs.BoolVar(&c.Version, "version", false, "print the version, the commit it was built from and the Go version, and exit")
	fs.BoolVar(&c.LogRequests, "log-requests", false, "log every request at info level: operation, status, error type, duration, client address and access key ID")
	fs.StringVar(&c.TLSCert, "tls-cert", "", "serve HTTPS instead of HTTP with this PEM certificate (chain) file, with --tls-key; a renewed file is picked up without a restart")
	fs.StringVar(&c.TLSKey, "tls-key", "", "PEM private key file of --tls-cert")
	fs.StringVar(&c.Metrics, "metrics", "", "serve Prometheus metrics (requests, errors and latency by operation, table items and sizes, process figures) at GET /metrics on this separate address (host:port); off when empty")
	fs.StringVar(&c.PprofAddr, "pprof", "", "serve net/http/pprof on this separate address (host:port) for profiling; off when empty")
	fs.BoolVar(&c.SharedDB, "shared-db", true, "serve one database to every credential and region; --shared-db=false gives each access key ID and region its own database (DynamoDB Local without -sharedDb)")
	fs.IntVar(&c.MaxOpenDatabases, "max-open-databases", server.DefaultMaxOpenDatabases, "with --shared-db=false: how many per-key databases on disk stay open at once; the least recently used idle one is closed to open another and reopened when needed (lowered to fit the open-file limit)")
	fs.IntVar(&c.ItemCacheMB, "item-cache-mb", 64, "memory for recently written and read items, which spares writes and GetItem a storage lookup (0 turns it off)")
	fs.DurationVar(&c.SyncDelay, "sync-delay", time.Millisecond, "while several durable writes are in flight, the minimum interval between two WAL fsyncs: writes arriving within it share one fsync (less CPU per write under load, up to this much more latency; a lone writer never waits; 0 turns it off)")
	fs.DurationVar(&c.SysmonSlack, "sysmon-slack", time.Millisecond, "Linux: timer slack for the Go runtime's monitor thread, so it wakes at most about once per this interval instead of every 20 microseconds under bursty load (needs CAP_SYS_NICE, skipped without; 0 leaves it alone)")
	fs.IntVar(&c.MinFreeSpaceMB, "min-free-space-mb", DefaultMinFreeSpaceMB, "refuse writes (InternalServerError naming the cause; reads go on, and the health check answers 503) while the disk of --data-dir has less free space than this, so that a filling disk never stops the store; writes resume once space is freed (0: no minimum)")
	fs.DurationVar(&c.DiskStallTimeout, "disk-stall-timeout", 20*time.Second, "stop Kura (exit status 1, the cause logged) when one disk operation of the data directory has not finished after this long, instead of hanging every write on a stalled disk; a restart recovers every acknowledged write (CockroachDB's default for the same check is 20s; 0 turns it off)")
	fs.IntVar(&c.VectorMaxTopK, "vector-max-topk", 0, "extension beyond DynamoDB, off by default: raise SearchVectors' TopK cap from 100 up to 10000")
	fs.IntVar(&c.VectorEfSearch, "vector-ef-search", vector.DefaultEfSearch, "vector index search beam width (HNSW ef, raised to TopK): higher finds more of the true nearest neighbours at more CPU per SearchVectors; about 64 suits 100k vectors, 300+ suits 1M (see BENCHMARKS.md)")
	var creds, credsFile string
	fs.StringVar(&creds, "credentials", "", "switch authentication on: accept only requests signed (AWS Signature Version 4) with one of these credentials, a comma-separated list of ACCESS_KEY_ID:SECRET[:SESSION_TOKEN] (prefer --credentials-file or KURA_CREDENTIALS: a command line is visible to other users)")
	fs.StringVar(&credsFile, "credentials-file", "", "switch authentication on with the credentials in this file: one ACCESS_KEY_ID:SECRET[:SESSION_TOKEN] per line, # comments; with --iam-file the third field is instead the PRINCIPAL the key acts as (an IAM user name or role ARN; none: the root user)")
	fs.StringVar(&c.IAMFile, "iam-file", "", "switch authorization on: evaluate every authenticated request against the IAM policies in this file (the JSON of aws iam get-account-authorization-details) and the tables' resource-based policies; reloaded on SIGHUP and when the file changes (needs --credentials-file)")
	var quant string
	fs.StringVar(&quant, "vector-quantization", "none", "vector index graph traversal: none (float32) or sq8 (8-bit codes per dimension, a quarter of the bytes per distance; results re-scored exactly with float32; 1 more byte per dimension per vector)")
	fs.DurationVar(&c.VectorSnapshotInterval, "vector-snapshot-interval", engine.DefaultVectorSnapshotInterval, "how often a vector index that changed enough is snapshotted while running, so a crash replays only the changes since (0: only at shutdown)")
	fs.IntVar(&c.VectorSnapshotChanges, "vector-snapshot-changes", engine.DefaultVectorSnapshotChanges, "changed items (or 10% of the index, whichever is fewer) that make a vector index due for a periodic snapshot")
	var requestMemMB int
	var cors, regions string
	fs.StringVar(&regions, "regions", "", "serve these regions (comma-separated, e.g. us-east-1,eu-west-1): each has its own tables, ARNs, streams and limits; a request goes to the region of its signature's credential scope, an unsigned one to --region (default with --regions: the first listed)")
	fs.IntVar(&requestMemMB, "max-request-memory-mb", int(api.DefaultMaxBufferedBytes>>20), "memory that request bodies being read and decoded may hold at once, over all connections; a request past it is refused with ThrottlingException (which the SDKs retry) instead of queued")
	fs.DurationVar(&c.HTTP.BodyTimeout, "body-timeout", api.DefaultBodyTimeout, "the longest a request body may take to arrive; the connection is closed past it")
	fs.Int64Var(&c.HTTP.BodyMinRate, "body-min-rate", api.DefaultBodyMinRate, "bytes a second a request body must average after its first 10 seconds; a slower one's connection is closed")
	fs.StringVar(&cors, "cors", "", "browser origins (comma-separated scheme://host[:port]) allowed to call the API besides the console's own origin and localhost ones; '*' allows every web page you visit to read and write your data")
	fs.BoolVar(&c.HTTP.AllowAnyHost, "allow-any-host", false, "serve requests whatever their Host header; by default a Host must be an IP address, localhost, a name of one label or the --listen host, which stops DNS-rebinding web pages")
	// The flag package's own messages (and its full usage after any
	// mistake) are kept back: a mistake gets one line, --help the list.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}

	// Environment first (becomes the new default), then the command line.
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v := getenv(envName(f.Name)); v != "" && envErr == nil {
			if err := f.Value.Set(v); err != nil {
				envErr = fmt.Errorf("invalid value %q for %s: %v", v, envName(f.Name), err)
			}
		}
	})
	if envErr != nil {
		return nil, envErr
	}
	args, err := translateLocalFlags(args, fs)
	if err != nil {
		return nil, err
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, "Usage: kura [flags]\n\nA DynamoDB-compatible server. Each flag can also be set with KURA_<FLAG>, e.g. KURA_DATA_DIR.\nDynamoDB Local's -inMemory, -sharedDb, -dbPath and -port are accepted too.")
		fs.PrintDefaults()
		return nil, err
	} else if err != nil {
		return nil, fmt.Errorf("%v (kura --help lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if err := c.LogLevel.UnmarshalText([]byte(logLevel)); err != nil {
		return nil, fmt.Errorf("invalid --log-level %q: want debug, info, warn or error", logLevel)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return nil, fmt.Errorf("invalid --log-format %q: want text or json", c.LogFormat)
	}
	if c.MaxOpenDatabases < 1 {
		return nil, fmt.Errorf("invalid --max-open-databases %d: want 1 or more", c.MaxOpenDatabases)
	}
	if dataDirSet(fs, getenv) && (c.InMemory || tikvPD != "" || c.Postgres != "") {
		other := "--in-memory"
		switch {
		case tikvPD != "":
			other = "--tikv-pd"
		case c.Postgres != "":
			other = "--postgres"
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("--data-dir %s is not used: %s keeps the data elsewhere", c.DataDir, other))
	}
	if c.CheckpointDir != "" && (c.InMemory || tikvPD != "" || c.Postgres != "") {
		return nil, errors.New("--checkpoint-dir copies the embedded store's files: not with --in-memory, --tikv-pd or --postgres")
	}
	if err := checkPostgres(c.Postgres, c.PostgresNamespace, c.InMemory, tikvPD != ""); err != nil {
		return nil, err
	}
	if err := checkS3Flags(c); err != nil {
		return nil, err
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	if (c.TiKVCert == "") != (c.TiKVKey == "") {
		return nil, errors.New("--tikv-cert and --tikv-key go together")
	}
	if c.TiKVGCLifetime < 0 {
		return nil, fmt.Errorf("invalid --tikv-gc-life-time %v", c.TiKVGCLifetime)
	}
	pd, err := parseTiKV(tikvPD, c.TiKVNamespace, c.InMemory)
	if err != nil {
		return nil, err
	}
	c.TiKVPD = pd
	if c.Port < 0 || c.Port > 65535 {
		return nil, fmt.Errorf("invalid --port %d", c.Port)
	}
	if c.TTLInterval < 0 || c.StreamShardPeriod <= 0 {
		return nil, fmt.Errorf("invalid --ttl-interval %v or --stream-shard-period %v", c.TTLInterval, c.StreamShardPeriod)
	}
	q, err := vector.ParseQuantization(quant)
	if err != nil {
		return nil, fmt.Errorf("invalid --vector-quantization %q: want none or sq8", quant)
	}
	c.VectorQuantization = q
	if c.VectorEfSearch < 1 || c.VectorEfSearch > engine.MaxVectorEfSearch {
		return nil, fmt.Errorf("invalid --vector-ef-search %d: want 1..%d", c.VectorEfSearch, engine.MaxVectorEfSearch)
	}
	if c.VectorSnapshotInterval < 0 || c.VectorSnapshotChanges < 0 {
		return nil, fmt.Errorf("invalid --vector-snapshot-interval %v or --vector-snapshot-changes %d", c.VectorSnapshotInterval, c.VectorSnapshotChanges)
	}
	if c.CreateDelay < 0 {
		return nil, fmt.Errorf("invalid --create-delay %v", c.CreateDelay)
	}
	if c.DiskStallTimeout < 0 {
		return nil, fmt.Errorf("invalid --disk-stall-timeout %v", c.DiskStallTimeout)
	}
	if c.MinFreeSpaceMB < 0 {
		return nil, fmt.Errorf("invalid --min-free-space-mb %d", c.MinFreeSpaceMB)
	}
	if c.BurstCapacity < 0 {
		return nil, fmt.Errorf("invalid --burst-capacity %v", c.BurstCapacity)
	}
	if _, _, err := net.SplitHostPort(c.Addr()); err != nil {
		return nil, fmt.Errorf("invalid --listen %q: %v", c.Listen, err)
	}
	if c.Credentials, err = readCredentials(creds, credsFile); err != nil {
		return nil, err
	}
	if c.IAMFile != "" {
		c.Principals = principalsOf(c.Credentials, creds)
	}
	if requestMemMB <= 0 || c.HTTP.BodyTimeout <= 0 || c.HTTP.BodyMinRate < 0 {
		return nil, fmt.Errorf("invalid --max-request-memory-mb %d, --body-timeout %v or --body-min-rate %d", requestMemMB, c.HTTP.BodyTimeout, c.HTTP.BodyMinRate)
	}
	c.HTTP.MaxBufferedBytes = int64(requestMemMB) << 20
	for o := range strings.SplitSeq(cors, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.HTTP.CORSOrigins = append(c.HTTP.CORSOrigins, o)
		}
	}
	for r := range strings.SplitSeq(regions, ",") {
		if r = strings.TrimSpace(r); r != "" {
			c.Regions = append(c.Regions, r)
		}
	}
	if len(c.Regions) > 0 && !flagSet(fs, getenv, "region") {
		c.Region = c.Regions[0] // the home region: unsigned requests'
	}
	if err := checkCluster(c, len(c.TiKVPD) > 0); err != nil {
		return nil, err
	}
	return c, nil
}

// checkCluster checks that --cluster has a shared store and none of the
// flags a cluster's nodes cannot honour together yet.
func checkCluster(c *config, onTiKV bool) error {
	switch {
	case !c.Cluster:
		return nil
	case c.Postgres == "" && !onTiKV:
		return errors.New("--cluster needs a store the nodes share: --postgres or --tikv-pd (the embedded and in-memory stores serve one process)")
	case len(c.Regions) > 1:
		return errors.New("--cluster and --regions exclude each other: replica creations and deletions, and MRSC tables, run from one node so far")
	}
	return nil
}

// checkPostgres checks that --postgres goes with the other storage flags.
func checkPostgres(pgURL, namespace string, inMemory, onTiKV bool) error {
	switch {
	case pgURL == "":
		return nil
	case inMemory:
		return errors.New("--postgres and --in-memory exclude each other")
	case onTiKV:
		return errors.New("--postgres and --tikv-pd exclude each other")
	case !server.ValidNamespace(namespace):
		return fmt.Errorf("invalid --postgres-namespace %q: want 1 to 64 letters, digits, '-' or '_'", namespace)
	}
	return nil
}

// checkS3Flags checks --s3-dir, --s3-endpoint and --s3-path-style go
// together, and that --kinesis-endpoint, like --s3-endpoint, is a URL.
func checkS3Flags(c *config) error {
	switch {
	case c.S3Dir != "" && c.S3Endpoint != "":
		return errors.New("--s3-dir and --s3-endpoint exclude each other")
	case c.S3PathStyle && c.S3Endpoint == "":
		return errors.New("--s3-path-style goes with --s3-endpoint")
	}
	if err := checkURL("s3-endpoint", c.S3Endpoint); err != nil {
		return err
	}
	return checkURL("kinesis-endpoint", c.KinesisEndpoint)
}

// checkURL checks that an endpoint flag, when set, is an http(s) URL.
func checkURL(flag, v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("invalid --%s %q: want an http:// or https:// URL", flag, v)
	}
	return nil
}

// dataDirSet reports whether --data-dir was given, on the command line or
// in the environment.
func dataDirSet(fs *flag.FlagSet, getenv func(string) string) bool {
	return flagSet(fs, getenv, "data-dir")
}

// flagSet reports whether the flag name was given, on the command line or
// in the environment.
func flagSet(fs *flag.FlagSet, getenv func(string) string, name string) bool {
	set := getenv(envName(name)) != ""
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseTiKV splits --tikv-pd and checks it goes with the other storage
// flags.
func parseTiKV(list, namespace string, inMemory bool) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var pd []string
	for _, a := range strings.Split(list, ",") {
		if a = strings.TrimSpace(a); a != "" {
			pd = append(pd, a)
		}
	}
	switch {
	case len(pd) == 0:
		return nil, errors.New("invalid --tikv-pd: no endpoint given")
	case !server.TiKVBuilt:
		return nil, errors.New("--tikv-pd: this Kura binary was built without TiKV support; build it with `go build -tags tikv ./cmd/kura`")
	case inMemory:
		return nil, errors.New("--tikv-pd and --in-memory exclude each other")
	case !server.ValidNamespace(namespace):
		return nil, fmt.Errorf("invalid --tikv-namespace %q: want 1 to 64 letters, digits, '-' or '_'", namespace)
	}
	return pd, nil
}

// principalsOf takes, with --iam-file, the third field of each
// credential from --credentials-file (those after the ones of list) as the
// principal its key acts as rather than a session token.
func principalsOf(creds []auth.Credential, list string) map[string]string {
	fromList, _ := auth.ParseCredentials(list)
	out := map[string]string{}
	for i := len(fromList); i < len(creds); i++ {
		out[creds[i].AccessKeyID] = creds[i].SessionToken
		creds[i].SessionToken = ""
	}
	return out
}

// readCredentials gathers --credentials and --credentials-file. Either one
// given but naming no credential is an error: it would leave the server
// open while its operator meant to close it.
func readCredentials(list, file string) ([]auth.Credential, error) {
	out, err := auth.ParseCredentials(list)
	if err != nil {
		return nil, fmt.Errorf("invalid --credentials: %v", err)
	}
	if list != "" && len(out) == 0 {
		return nil, errors.New("invalid --credentials: no credential given")
	}
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("--credentials-file: %v", err)
		}
		defer f.Close()
		more, err := auth.ReadCredentials(f)
		if err != nil {
			return nil, fmt.Errorf("--credentials-file %s: %v", file, err)
		}
		if len(more) == 0 {
			return nil, fmt.Errorf("--credentials-file %s: no credential in it", file)
		}
		out = append(out, more...)
	}
	return out, nil
}
