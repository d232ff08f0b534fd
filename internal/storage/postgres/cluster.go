package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kura-db/kura/internal/storage/internal/occ"
)

// defaultMaxConns bounds the pool when the URL does not (pool_max_conns):
// every open snapshot, transaction and iterator of a snapshot holds a
// connection, and one request may hold two (a transaction and a
// snapshot), so pgx's default of max(4, NumCPU) would make requests wait.
const defaultMaxConns = 64

// acquireWait bounds how long an operation waits for a connection (the
// pool's or a new one) before it fails.
const acquireWait = 15 * time.Second

// Cluster is a connection pool to one PostgreSQL database, shared by the
// stores of its namespaces.
type Cluster struct {
	pool  *pgxpool.Pool
	where string       // host:port/database as user, no password
	open  atomic.Int64 // snapshots and transactions open on every store
	// parked holds connections whose read-only transaction is still to be
	// rolled back (park.go).
	parked parking

	gcStop, gcDone chan struct{}
	gcOnce         sync.Once
}

// Connect connects to the database at url (a libpq-style URL or key=value
// string, as pgx parses it), then creates Kura's tables or migrates them
// (schema.go). It fails when the database cannot be reached, and with
// ErrSchemaTooNew when a newer Kura wrote the schema.
func Connect(url string) (*Cluster, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: invalid connection URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	// An idle connection may have died with a restarted server: check it
	// before handing it out (pgx pings connections idle for over 1 s).
	ctx, cancel := context.WithTimeout(context.Background(), acquireWait)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connecting to %s: %w", redact(cfg), err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: preparing the schema: %w", err)
	}
	return &Cluster{pool: pool, where: redact(cfg)}, nil
}

// redact names the server without credentials.
func redact(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("%s:%d/%s as %s", c.Host, c.Port, c.Database, c.User)
}

// String names the database (host, port, database, user; never the
// password).
func (c *Cluster) String() string { return c.where }

// Close stops the tombstone sweep and closes the pool; the stores must be
// closed first.
func (c *Cluster) Close() error {
	c.stopGC()
	if n := c.open.Load(); n > 0 {
		// Each holds a connection, and its snapshot holds PostgreSQL's
		// vacuum back: a leak to fix.
		slog.Warn("closing the PostgreSQL connection with snapshots or transactions still open", "open", n)
	}
	c.parked.close()
	c.pool.Close()
	return nil
}

// Store serves the keys of namespace, which must not contain '/' (so that
// no namespace's keys are a prefix of another's). It holds the namespace's
// lease (lease.go) until it closes: while another server holds it, Store
// waits for it to lapse and then fails with ErrNamespaceInUse. Closing the
// store leaves the cluster open.
func (c *Cluster) Store(namespace string) (*Store, error) { return c.openStore(namespace, false) }

// SharedStore is Store for a node of a Kura cluster (--cluster): it
// shares the namespace's lease with the other nodes (holder.SharedOwner)
// instead of holding it alone, so any number of nodes serve the namespace
// together while a server that is not in cluster mode is kept out (and
// keeps them out).
func (c *Cluster) SharedStore(namespace string) (*Store, error) { return c.openStore(namespace, true) }

func (c *Cluster) openStore(namespace string, shared bool) (*Store, error) {
	if namespace == "" || strings.Contains(namespace, "/") {
		return nil, fmt.Errorf("postgres: invalid namespace %q", namespace)
	}
	prefix := []byte(namespace + "/")
	end := append([]byte(nil), prefix...)
	end[len(end)-1]++
	s := &Store{c: c, oracle: occ.NewOracle(), prefix: prefix, end: end}
	l, err := acquireLease(c.pool, namespace, shared, func(err error) { s.closed.Lose("PostgreSQL", err) })
	if err != nil {
		return nil, err
	}
	s.lease = l
	return s, nil
}
