package holder

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
)

// The lease's timing, the same on every backend (docs/running.md): a
// holder renews its lease every Renew, and a lease lapses TTL after its
// last renewal. Opening a store waits up to Wait for another holder's
// lease to lapse before it gives up. Variables, so tests can shorten them.
var (
	TTL   = 10 * time.Second
	Renew = 3 * time.Second
	Wait  = 15 * time.Second
)

// Record names one store's hold on a lease.
type Record struct {
	Owner string // random, per store
	Host  string
	PID   int
}

// Me is a new Record for a store of this process (lease.Me's random ID,
// host and process ID).
func Me() Record {
	n := lease.Me()
	return Record{Owner: n.ID, Host: n.Host, PID: n.PID}
}

// SharedOwner is the owner of a lease that Kura nodes in cluster mode
// (--cluster) share: every node of the namespace writes and renews the
// same record, so they exclude a single server (which holds a lease of
// its own random owner) and are excluded by it, but not one another. A
// node that stops leaves the shared lease to lapse, since other nodes may
// still serve. Random owners are hex, so none equals it.
const SharedOwner = "cluster-nodes"

// Shared is the Record of a store of this process that shares its lease
// with the other nodes of a cluster.
func Shared() Record {
	r := Me()
	r.Owner = SharedOwner
	return r
}

// Held says why a store cannot take namespace's lease from cur, for
// ErrNamespaceInUse; shared tells whether the store wanted the shared
// lease (cluster mode).
func Held(namespace string, cur Record, shared bool) string {
	switch {
	case cur.Owner == SharedOwner:
		return fmt.Sprintf("%q is served by Kura nodes in cluster mode (--cluster; the last renewal came from host %s, pid %d): start this server with --cluster too, or stop them", namespace, cur.Host, cur.PID)
	case shared:
		return fmt.Sprintf("%q is held by the single Kura server on host %s (pid %d); nodes in cluster mode (--cluster) cannot share a namespace with a server without it", namespace, cur.Host, cur.PID)
	}
	return fmt.Sprintf("%q is held by the server on host %s (pid %d); a namespace serves one Kura server at a time", namespace, cur.Host, cur.PID)
}

// Alive reports whether a process with this ID runs on this host
// (lease.Alive).
func Alive(pid int) bool { return lease.Alive(pid) }

// Closing is the closed state of a store that holds a lease: closed by
// Close, or by losing the lease to another server, after which the store
// serves nothing (it would build on copies that server no longer keeps in
// step). The zero value is open.
type Closing struct {
	closed atomic.Bool
	lost   atomic.Bool // closed by Lose, not yet by Close
}

// Closed reports whether the store is closed.
func (c *Closing) Closed() bool { return c.closed.Load() }

// Lose closes the store because the lease was lost, and logs why.
func (c *Closing) Lose(backend string, err error) {
	c.lost.Store(true)
	c.closed.Store(true)
	slog.Error(backend+" namespace taken over by another Kura server: this server's storage is closed", "err", err)
}

// Close closes the store and runs release (which gives the lease back).
// A store closed by Lose still runs release once; a second Close reports
// storage.ErrClosed.
func (c *Closing) Close(release func() error) error {
	if c.closed.Swap(true) && !c.lost.Load() {
		return storage.ErrClosed
	}
	c.lost.Store(false)
	return release()
}
