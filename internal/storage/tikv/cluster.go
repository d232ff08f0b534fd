package tikv

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/tikv/client-go/v2/config"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/txnkv"
)

// Cluster is a connection to one TiKV cluster, shared by the stores of
// its namespaces.
type Cluster struct {
	kv     *tikv.KVStore
	close  func() error
	active activeSet // open snapshots and transactions of every store (gc.go)

	gcBarrier      string
	gcStop, gcDone chan struct{}
}

// TLS names the PEM files for a cluster that requires TLS (the CA that
// signed the cluster's certificates, and this client's certificate and
// key); the zero value connects without TLS.
type TLS struct{ CA, Cert, Key string }

// Connect connects to the cluster whose PD servers are pdAddrs. An address
// mock://DIR names client-go's in-process mock cluster, keeping its data in
// DIR, in builds with the tikvmock tag (the black-box tests' way to run
// Kura on TiKV without a cluster).
func Connect(pdAddrs []string, tls TLS) (*Cluster, error) {
	routeClientLogs()
	if len(pdAddrs) == 1 && strings.HasPrefix(pdAddrs[0], "mock://") {
		return connectMock(strings.TrimPrefix(pdAddrs[0], "mock://"))
	}
	if tls != (TLS{}) {
		// client-go reads its security settings from its global config.
		config.UpdateGlobal(func(c *config.Config) { c.Security = config.NewSecurity(tls.CA, tls.Cert, tls.Key, nil) })
	}
	c, err := txnkv.NewClient(pdAddrs)
	if err != nil {
		return nil, fmt.Errorf("tikv: connecting to PD %v: %w", pdAddrs, err)
	}
	return &Cluster{kv: c.KVStore, close: c.Close}, nil
}

// NewCluster wraps an open client-go store; Close closes it.
func NewCluster(kvs *tikv.KVStore) *Cluster {
	routeClientLogs()
	return &Cluster{kv: kvs, close: kvs.Close}
}

// Close stops the GC and closes the connection; the stores must be
// closed first.
func (c *Cluster) Close() error {
	c.stopGC()
	if n := c.active.open(); n > 0 {
		// Each would have held the GC back for good: a leak to fix.
		slog.Warn("closing the TiKV connection with snapshots or transactions still open", "open", n)
	}
	return c.close()
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
		return nil, fmt.Errorf("tikv: invalid namespace %q", namespace)
	}
	prefix := []byte("kura/" + namespace + "/")
	end := append([]byte(nil), prefix...)
	end[len(end)-1]++
	s := &Store{kv: c.kv, active: &c.active, prefix: prefix, end: end}
	l, err := acquireLease(c.kv, namespace, shared, func(err error) { s.closed.Lose("TiKV", err) })
	if err != nil {
		return nil, err
	}
	s.lease = l
	return s, nil
}
