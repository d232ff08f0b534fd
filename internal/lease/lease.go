package lease

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// Prefix is the storage key prefix of every lease (an "m" metadata key,
// outside every table's keys).
const Prefix = "mlease/"

// DefaultTTL is how long a lease lasts after its last renewal, unless
// Config.TTL says otherwise (docs/running.md).
const DefaultTTL = 10 * time.Second

// ErrHeld is returned by Acquire while another node holds the lease.
var ErrHeld = errors.New("lease: held by another node")

// ErrLost is returned when this node's lease was taken over by another
// node (or released): the caller must stop the work it guards.
var ErrLost = errors.New("lease: taken over by another node")

// Clock is the time source of expiries.
type Clock interface{ Now() time.Time }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Node names a lease holder: a random ID per process, the host and the
// process ID (for the operator reading who holds what).
type Node struct {
	ID   string `json:"id"`
	Host string `json:"host,omitempty"`
	PID  int    `json:"pid,omitempty"`
}

// Me is a new Node for this process.
func Me() Node {
	host, _ := os.Hostname()
	var b [12]byte
	_, _ = rand.Read(b[:])
	return Node{ID: hex.EncodeToString(b[:]), Host: host, PID: os.Getpid()}
}

func (n Node) String() string { return fmt.Sprintf("node %s on host %s (pid %d)", n.ID, n.Host, n.PID) }

// record is a lease key's value.
type record struct {
	Node     Node   `json:"node"`
	Gen      uint64 `json:"gen"`
	Expires  int64  `json:"expires"` // Unix ms on the holder's clock; 0: released
	Progress []byte `json:"progress,omitempty"`
}

// Holder is a lease as stored (Inspect).
type Holder struct {
	Node     Node
	Gen      uint64
	Expires  time.Time
	Progress []byte
}

// Config configures a Manager.
type Config struct {
	Store storage.Store
	Node  Node          // zero: Me()
	Clock Clock         // nil: the system clock
	TTL   time.Duration // 0: DefaultTTL
	// Margin is how long before its expiry a holder stops believing it
	// holds a lease: the clock skew between nodes it tolerates (0: TTL/5).
	Margin time.Duration
}

// Manager acquires, renews and releases one node's leases in one store.
type Manager struct {
	cfg  Config
	mu   sync.Mutex
	held map[string]*Lease
}

// New returns a Manager over cfg.Store.
func New(cfg Config) *Manager {
	if cfg.Node.ID == "" {
		cfg.Node = Me()
	}
	if cfg.Clock == nil {
		cfg.Clock = systemClock{}
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Margin <= 0 || cfg.Margin >= cfg.TTL {
		cfg.Margin = cfg.TTL / 5
	}
	return &Manager{cfg: cfg, held: map[string]*Lease{}}
}

// Node is this manager's holder identity.
func (m *Manager) Node() Node { return m.cfg.Node }

// Margin is how long before its expiry a holder stops believing it holds
// a lease.
func (m *Manager) Margin() time.Duration { return m.cfg.Margin }

// TTL is how long a lease lasts after a renewal.
func (m *Manager) TTL() time.Duration { return m.cfg.TTL }

// Lease is this node's hold on one named lease.
type Lease struct {
	m    *Manager
	name string
	key  []byte

	mu       sync.Mutex
	gen      uint64
	expires  int64 // as last written, Unix ms
	lost     bool
	progress []byte
}

// Acquire takes the named lease if it is free, expired, this node's
// already, or held by a process of this host that no longer runs (a
// crash, kill -9: taken at once, as the storage backends' namespace leases
// are); it returns ErrHeld (wrapped, naming the holder) otherwise. The
// lease's Progress is what the previous holder recorded.
func (m *Manager) Acquire(name string) (*Lease, error) {
	key := []byte(Prefix + name)
	me := m.cfg.Node
	var got record
	err := m.update(key, func(cur *record, now int64) (*record, error) {
		next := record{Node: me, Gen: 1, Expires: now + m.cfg.TTL.Milliseconds()}
		if cur != nil {
			if cur.Node.ID != me.ID && cur.Expires > now && !m.gone(cur.Node) {
				return nil, fmt.Errorf("%w: %q by %s", ErrHeld, name, cur.Node)
			}
			next.Gen, next.Progress = cur.Gen, cur.Progress
			if cur.Node.ID != me.ID || cur.Expires == 0 {
				next.Gen++ // a new holding: fences every write of the previous one
			}
		}
		got = next
		return &next, nil
	})
	if errors.Is(err, storage.ErrConflict) {
		return nil, fmt.Errorf("%w: %q (another node wrote it meanwhile)", ErrHeld, name)
	}
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.held[name]
	if l == nil {
		l = &Lease{m: m, name: name, key: key}
		m.held[name] = l
	}
	l.mu.Lock()
	l.gen, l.expires, l.progress, l.lost = got.Gen, got.Expires, got.Progress, false
	l.mu.Unlock()
	return l, nil
}

// Hold is for a guarded loop's every round: this node's lease on name,
// renewed when half its life has passed, or newly acquired; false while
// another node holds it (or the store failed: logged).
func (m *Manager) Hold(name string) (*Lease, bool) {
	m.mu.Lock()
	l := m.held[name]
	m.mu.Unlock()
	if l != nil && l.Held() {
		if !l.renewDue() {
			return l, true
		}
		err := l.Renew()
		if err == nil {
			return l, true
		}
		if !errors.Is(err, ErrLost) {
			slog.Warn("renewing a lease", "lease", name, "err", err)
			return l, l.Held()
		}
	}
	l, err := m.Acquire(name)
	if err != nil {
		if !errors.Is(err, ErrHeld) {
			slog.Warn("acquiring a lease", "lease", name, "err", err)
		}
		return nil, false
	}
	return l, true
}

// RenewAll renews every lease this node holds; a lease found lost is
// dropped.
func (m *Manager) RenewAll() {
	for _, l := range m.leases() {
		if err := l.Renew(); err != nil && !errors.Is(err, ErrLost) {
			slog.Warn("renewing a lease", "lease", l.name, "err", err)
		}
	}
}

// Run renews this node's leases every TTL/3 until closing is closed (the
// owner then calls ReleaseAll once the work the leases guard stopped).
func (m *Manager) Run(closing <-chan struct{}) {
	t := time.NewTicker(m.cfg.TTL / 3)
	defer t.Stop()
	for {
		select {
		case <-closing:
			return
		case <-t.C:
			m.RenewAll()
		}
	}
}

// Serve runs Run in a goroutine of its own until stop is closed; the
// function it returns waits for that goroutine and then releases every
// lease (call it once the work the leases guard has stopped).
func (m *Manager) Serve(stop <-chan struct{}) (release func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Run(stop)
	}()
	return func() {
		<-done
		m.ReleaseAll()
	}
}

// ReleaseAll releases every lease this node holds.
func (m *Manager) ReleaseAll() {
	for _, l := range m.leases() {
		if err := l.Release(); err != nil && !errors.Is(err, ErrLost) {
			slog.Warn("releasing a lease", "lease", l.name, "err", err)
		}
	}
}

func (m *Manager) leases() []*Lease {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Lease, 0, len(m.held))
	for _, l := range m.held {
		out = append(out, l)
	}
	return out
}

func (m *Manager) drop(l *Lease) {
	m.mu.Lock()
	if m.held[l.name] == l {
		delete(m.held, l.name)
	}
	m.mu.Unlock()
}

// Inspect reads the named lease as stored; false when there is none.
func (m *Manager) Inspect(name string) (Holder, bool, error) {
	snap, err := m.cfg.Store.NewSnapshot()
	if err != nil {
		return Holder{}, false, err
	}
	defer snap.Close()
	cur, err := read(snap, []byte(Prefix+name))
	if err != nil || cur == nil {
		return Holder{}, false, err
	}
	return Holder{Node: cur.Node, Gen: cur.Gen, Expires: time.UnixMilli(cur.Expires), Progress: cur.Progress}, true, nil
}

// Name is the lease's name.
func (l *Lease) Name() string { return l.name }

// Gen is the generation of this holding.
func (l *Lease) Gen() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// Holding is the generation of this holding and the expiry this node
// last wrote, read together.
func (l *Lease) Holding() (gen uint64, expires time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen, time.UnixMilli(l.expires)
}

// Held reports whether this node may believe it holds the lease: not
// found lost, and Margin before the expiry it last wrote.
func (l *Lease) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.lost && l.m.now() < l.expires-l.m.cfg.Margin.Milliseconds()
}

// renewDue reports whether half the lease's life has passed.
func (l *Lease) renewDue() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.now() >= l.expires-l.m.cfg.TTL.Milliseconds()/2
}

// Progress is the progress last recorded (by this holder, or by the
// previous one when this node acquired the lease).
func (l *Lease) Progress() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.progress)
}

// Renew extends the lease by TTL; ErrLost when another node took it over.
func (l *Lease) Renew() error { return l.write(false, nil) }

// Save records progress (and extends the lease), fenced by the lease's
// generation: ErrLost when another node took it over.
func (l *Lease) Save(progress []byte) error { return l.write(true, progress) }

// write renews the lease, and sets its progress when setProgress.
func (l *Lease) write(setProgress bool, progress []byte) error {
	gen := l.Gen()
	var got record
	err := l.m.update(l.key, func(cur *record, now int64) (*record, error) {
		if err := l.check(cur, gen); err != nil {
			return nil, err
		}
		next := *cur
		next.Expires = now + l.m.cfg.TTL.Milliseconds()
		if setProgress {
			next.Progress = progress
		}
		got = next
		return &next, nil
	})
	if errors.Is(err, ErrLost) {
		l.markLost(gen)
	}
	if err != nil {
		return err
	}
	l.mu.Lock()
	if l.gen == gen {
		l.expires, l.progress = got.Expires, got.Progress
	}
	l.mu.Unlock()
	return nil
}

// Fence checks, inside the caller's transaction, that this node still
// holds the lease: the lease key is read with Get, so a takeover that
// commits before the caller's transaction makes its Commit fail with
// storage.ErrConflict, and one that committed before is ErrLost here.
func (l *Lease) Fence(txn storage.Txn) error {
	gen := l.Gen()
	cur, err := read(txn, l.key)
	if err != nil {
		return err
	}
	if err := l.check(cur, gen); err != nil {
		l.markLost(gen)
		return err
	}
	return nil
}

// Release gives the lease up (its progress stays, for the next holder);
// a lease already taken over is only forgotten.
func (l *Lease) Release() error {
	gen := l.Gen()
	defer l.m.drop(l)
	err := l.m.update(l.key, func(cur *record, _ int64) (*record, error) {
		if err := l.check(cur, gen); err != nil {
			return nil, err
		}
		next := *cur
		next.Expires = 0
		return &next, nil
	})
	l.markLost(gen)
	return err
}

// check reports ErrLost unless cur is this node's holding of generation gen.
func (l *Lease) check(cur *record, gen uint64) error {
	if cur == nil || cur.Node.ID != l.m.cfg.Node.ID || cur.Gen != gen || cur.Expires == 0 {
		holder := "nobody"
		if cur != nil {
			holder = cur.Node.String()
		}
		return fmt.Errorf("%w: %q is now held by %s", ErrLost, l.name, holder)
	}
	return nil
}

func (l *Lease) markLost(gen uint64) {
	l.mu.Lock()
	lost := l.gen == gen
	if lost {
		l.lost = true
	}
	l.mu.Unlock()
	if lost {
		l.m.drop(l)
	}
}

// gone reports whether n is another process of this host that is not
// running.
func (m *Manager) gone(n Node) bool {
	me := m.cfg.Node
	return n.Host == me.Host && n.PID != me.PID && n.PID > 0 && !Alive(n.PID)
}

// Alive reports whether a process with this ID runs on this host (the
// check every lease of Kura's uses to take over at once from a holder of
// this host that crashed: these leases, the stores' namespace leases,
// membership).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

func (m *Manager) now() int64 { return m.cfg.Clock.Now().UnixMilli() }

// update runs f over the lease at key (nil: none) in one transaction and
// writes what it returns; an error from f rolls back.
//
// A commit that conflicts (this node's renewal, or another node's read or
// takeover, in the same instant) is tried again on a fresh read, a few
// times: f checks the holding again each time, so a takeover that won is
// ErrLost, and a Release that lost a race with a renewal still releases
// (else the lease stayed held until it expired).
func (m *Manager) update(key []byte, f func(cur *record, now int64) (*record, error)) error {
	var err error
	for try := 0; try < 5; try++ {
		if try > 0 {
			time.Sleep(time.Duration(try) * time.Millisecond)
		}
		if err = m.updateOnce(key, f); !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	return err
}

func (m *Manager) updateOnce(key []byte, f func(cur *record, now int64) (*record, error)) error {
	txn, err := m.cfg.Store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	cur, err := read(txn, key)
	if err != nil {
		return err
	}
	next, err := f(cur, m.now())
	if err != nil {
		return err
	}
	b, err := json.Marshal(next)
	if err != nil {
		return err
	}
	if err := txn.Set(key, b); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Reserve: true})
}

// read reads and decodes the lease at key; nil when there is none (or it
// is unreadable: then it is anyone's to take).
func read(r storage.Reader, key []byte) (*record, error) {
	v, err := r.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec record
	if json.Unmarshal(v, &rec) != nil {
		return nil, nil
	}
	return &rec, nil
}
