package lease_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/storage/postgres"
)

// fakeClock is a clock the tests move (shared by the nodes of a test, so
// their clocks agree).
type fakeClock struct{ ms atomic.Int64 }

func newClock() *fakeClock {
	c := &fakeClock{}
	c.ms.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.UnixMilli(c.ms.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// backends are the stores the tests run on: memory, Pebble and, with
// KURA_TEST_POSTGRES, PostgreSQL (as storage/postgres's tests).
func backends(t *testing.T) map[string]func(t *testing.T) storage.Store {
	bs := map[string]func(t *testing.T) storage.Store{
		"memory": func(t *testing.T) storage.Store { return memory.New() },
		"pebble": func(t *testing.T) storage.Store {
			s, err := pebble.Open(t.TempDir(), pebble.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
	}
	url := os.Getenv("KURA_TEST_POSTGRES")
	if url == "" {
		if os.Getenv("KURA_REQUIRE_POSTGRES") == "1" {
			t.Fatal("KURA_REQUIRE_POSTGRES=1 but KURA_TEST_POSTGRES is unset")
		}
		return bs
	}
	bs["postgres"] = func(t *testing.T) storage.Store {
		c, err := postgres.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Store(fmt.Sprintf("lease-%d-%d", os.Getpid(), time.Now().UnixNano()))
		if err != nil {
			_ = c.Close()
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close(); _ = c.Close() })
		return s
	}
	return bs
}

func forEachBackend(t *testing.T, f func(t *testing.T, s storage.Store)) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) { f(t, open(t)) })
	}
}

func node(id string) lease.Node { return lease.Node{ID: id, Host: "test", PID: 1} }

// pair is two nodes' managers over s, on one clock, with a 10 s TTL.
func pair(s storage.Store, clock *fakeClock) (a, b *lease.Manager) {
	a = lease.New(lease.Config{Store: s, Node: node("a"), Clock: clock, TTL: 10 * time.Second})
	b = lease.New(lease.Config{Store: s, Node: node("b"), Clock: clock, TTL: 10 * time.Second})
	return a, b
}

func TestAcquireTakeoverRelease(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s storage.Store) {
		clock := newClock()
		a, b := pair(s, clock)

		la, err := a.Acquire("ttl")
		if err != nil {
			t.Fatal(err)
		}
		if !la.Held() || la.Gen() != 1 {
			t.Fatalf("a: held %v gen %d, want held gen 1", la.Held(), la.Gen())
		}
		if err := la.Save([]byte("page-7")); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Acquire("ttl"); !errors.Is(err, lease.ErrHeld) {
			t.Fatalf("b acquiring a held lease: %v, want ErrHeld", err)
		}
		if _, ok := b.Hold("ttl"); ok {
			t.Fatal("b holds a lease a holds")
		}

		// a stops renewing: it stops believing Margin before the expiry,
		// and b takes over at the expiry, from a's progress.
		clock.Advance(8*time.Second + time.Millisecond)
		if la.Held() {
			t.Fatal("a still believes it holds the lease within Margin of its expiry")
		}
		if _, err := b.Acquire("ttl"); !errors.Is(err, lease.ErrHeld) {
			t.Fatalf("b acquiring before the expiry: %v, want ErrHeld", err)
		}
		clock.Advance(2 * time.Second)
		lb, err := b.Acquire("ttl")
		if err != nil {
			t.Fatal(err)
		}
		if lb.Gen() != 2 || string(lb.Progress()) != "page-7" {
			t.Fatalf("b: gen %d progress %q, want gen 2 and a's progress", lb.Gen(), lb.Progress())
		}
		h, ok, err := a.Inspect("ttl")
		if err != nil || !ok || h.Node.ID != "b" || h.Gen != 2 {
			t.Fatalf("Inspect: %+v %v %v, want b's gen 2", h, ok, err)
		}

		// a's writes are fenced off.
		if err := la.Renew(); !errors.Is(err, lease.ErrLost) {
			t.Fatalf("a renewing a lease b took: %v, want ErrLost", err)
		}
		if err := la.Save([]byte("stale")); !errors.Is(err, lease.ErrLost) {
			t.Fatalf("a saving progress after b took over: %v, want ErrLost", err)
		}
		if _, ok := a.Hold("ttl"); ok {
			t.Fatal("a holds again while b's lease is live")
		}

		// b releases: a takes over at once, with b's progress.
		if err := lb.Save([]byte("page-9")); err != nil {
			t.Fatal(err)
		}
		if err := lb.Release(); err != nil {
			t.Fatal(err)
		}
		if lb.Held() {
			t.Fatal("b still believes it holds a lease it released")
		}
		la, ok = a.Hold("ttl")
		if !ok || la.Gen() != 3 || string(la.Progress()) != "page-9" {
			t.Fatalf("a after b's release: ok %v, want held at gen 3 with b's progress", ok)
		}
	})
}

// TestHoldRenews: a holder that polls Hold keeps its lease for as long as
// it polls, however much time passes in all.
func TestHoldRenews(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s storage.Store) {
		clock := newClock()
		a, b := pair(s, clock)
		for i := 0; i < 20; i++ {
			if _, ok := a.Hold("gc"); !ok {
				t.Fatalf("round %d: a lost its lease while polling", i)
			}
			if _, ok := b.Hold("gc"); ok {
				t.Fatalf("round %d: b holds a's lease", i)
			}
			clock.Advance(5 * time.Second)
		}
		a.ReleaseAll()
		if _, ok := b.Hold("gc"); !ok {
			t.Fatal("b cannot take a released lease")
		}
	})
}

// TestFence: a transaction fenced by a lease cannot commit once another
// node took the lease over, whether the takeover commits before the fence
// or between the fence and the commit.
func TestFence(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s storage.Store) {
		clock := newClock()
		a, b := pair(s, clock)
		la, err := a.Acquire("job")
		if err != nil {
			t.Fatal(err)
		}
		txn, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := la.Fence(txn); err != nil {
			t.Fatal(err)
		}
		if err := txn.Set([]byte("work"), []byte("a")); err != nil {
			t.Fatal(err)
		}
		clock.Advance(11 * time.Second)
		if _, err := b.Acquire("job"); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(storage.CommitOptions{}); !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("a's fenced commit after b's takeover: %v, want ErrConflict", err)
		}
		txn.Rollback()

		txn, err = s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer txn.Rollback()
		if err := la.Fence(txn); !errors.Is(err, lease.ErrLost) {
			t.Fatalf("a's fence after b's takeover: %v, want ErrLost", err)
		}
	})
}

// event is one successful lease operation of the race test: the node
// believed it held generation gen over [from, until).
type event struct {
	node        string
	gen         uint64
	from, until int64
}

// TestRaceHistory: nodes acquire, renew, save progress and release one
// lease concurrently while the shared clock moves on. The history shows
// no two generations' believed holdings overlap, each generation has one
// holder, and the progress counter every holder increments counts every
// successful Save exactly (no fenced-off holder's write got through).
func TestRaceHistory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, s storage.Store) {
		const ttl = 10 * time.Second
		clock := newClock()
		var (
			mu      sync.Mutex
			history []event
			saves   atomic.Int64
		)
		rounds := 300
		if testing.Short() {
			rounds = 100
		}
		var wg sync.WaitGroup
		for n := 0; n < 4; n++ {
			m := lease.New(lease.Config{Store: s, Node: node(strconv.Itoa(n)), Clock: clock, TTL: ttl})
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(n), 7))
				var l *lease.Lease
				logHeld := func() {
					gen, exp := l.Holding()
					mu.Lock()
					history = append(history, event{node: m.Node().ID, gen: gen,
						from: exp.Add(-ttl).UnixMilli(), until: exp.Add(-m.Margin()).UnixMilli()})
					mu.Unlock()
				}
				for i := 0; i < rounds; i++ {
					clock.Advance(time.Duration(rng.IntN(4000)) * time.Millisecond)
					if l == nil || !l.Held() {
						var ok bool
						if l, ok = m.Hold("race"); !ok {
							l = nil
							continue
						}
						logHeld()
					}
					var err error
					switch r := rng.IntN(10); {
					case r < 6:
						next := int64(0)
						if p := l.Progress(); len(p) > 0 {
							next, _ = strconv.ParseInt(string(p), 10, 64)
						}
						if err = l.Save([]byte(strconv.FormatInt(next+1, 10))); err == nil {
							saves.Add(1)
						}
					case r < 9:
						err = l.Renew()
					default:
						at := clock.Now().UnixMilli()
						if l.Release() == nil {
							mu.Lock()
							history = append(history, event{node: m.Node().ID, gen: l.Gen(), from: at, until: at})
							mu.Unlock()
						}
						l = nil
						continue
					}
					if err != nil {
						l = nil
						continue
					}
					logHeld()
				}
			}()
		}
		wg.Wait()
		checkHistory(t, history)

		h, ok, err := lease.New(lease.Config{Store: s, Clock: clock}).Inspect("race")
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		got, _ := strconv.ParseInt(string(h.Progress), 10, 64)
		if got != saves.Load() {
			t.Fatalf("progress counter %d after %d successful saves: a holder's write got past its fence", got, saves.Load())
		}
		if saves.Load() < 10 {
			t.Fatalf("only %d saves succeeded: the test exercised little", saves.Load())
		}
	})
}

// checkHistory fails if a generation had two holders or if a generation's
// believed holding (ended early by its release) overlaps a later one's.
func checkHistory(t *testing.T, history []event) {
	t.Helper()
	type span struct {
		node        string
		from, until int64
	}
	gens := map[uint64]*span{}
	for _, e := range history {
		sp := gens[e.gen]
		switch {
		case sp == nil:
			gens[e.gen] = &span{node: e.node, from: e.from, until: e.until}
		case sp.node != e.node:
			t.Fatalf("generation %d held by nodes %s and %s", e.gen, sp.node, e.node)
		default:
			sp.from, sp.until = min(sp.from, e.from), max(sp.until, e.until)
			if e.from == e.until { // the release ends the holding
				sp.until = e.until
			}
		}
	}
	order := make([]uint64, 0, len(gens))
	for g := range gens {
		order = append(order, g)
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	for i := 1; i < len(order); i++ {
		prev, cur := gens[order[i-1]], gens[order[i]]
		if prev.until > cur.from {
			t.Fatalf("generation %d (node %s) believed held until %d, after generation %d (node %s) began at %d",
				order[i-1], prev.node, prev.until, order[i], cur.node, cur.from)
		}
	}
	if len(order) < 3 {
		t.Fatalf("only %d generations: the lease never changed hands enough to test", len(order))
	}
}

// TestDeadProcessTakenAtOnce: a lease whose holder was a process of this
// host that no longer runs is taken before its expiry; one of a live
// process is not.
func TestDeadProcessTakenAtOnce(t *testing.T) {
	s := memory.New()
	clock := newClock()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run a short-lived process:", err)
	}
	host, _ := os.Hostname()
	dead := lease.New(lease.Config{Store: s, Node: lease.Node{ID: "dead", Host: host, PID: cmd.Process.Pid}, Clock: clock})
	if _, err := dead.Acquire("ttl"); err != nil {
		t.Fatal(err)
	}
	live := lease.New(lease.Config{Store: s, Node: lease.Node{ID: "live", Host: host, PID: os.Getpid()}, Clock: clock})
	l, err := live.Acquire("ttl")
	if err != nil {
		t.Fatalf("taking a dead process's lease: %v", err)
	}
	if l.Gen() != 2 {
		t.Fatalf("gen %d, want 2", l.Gen())
	}
	other := lease.New(lease.Config{Store: s, Node: lease.Node{ID: "other", Host: host, PID: 1}, Clock: clock})
	if _, err := other.Acquire("ttl"); !errors.Is(err, lease.ErrHeld) {
		t.Fatalf("taking a live process's lease: %v, want ErrHeld", err)
	}
}

// conflicting is a store whose next `fail` commits report ErrConflict
// (another writer of the lease key in the same instant), writing nothing.
type conflicting struct {
	storage.Store
	fail atomic.Int32
}

func (s *conflicting) Begin() (storage.Txn, error) {
	txn, err := s.Store.Begin()
	return conflictingTxn{txn, s}, err
}

type conflictingTxn struct {
	storage.Txn
	s *conflicting
}

func (t conflictingTxn) Commit(o storage.CommitOptions) error {
	if t.s.fail.Add(-1) >= 0 {
		t.Txn.Rollback()
		return storage.ErrConflict
	}
	return t.Txn.Commit(o)
}

// TestReleaseAfterAConflict: a Release whose commit conflicts (CI saw one
// race the holder's own renewal) still releases the lease, so another
// node takes it at once rather than after its expiry; a renewal likewise
// survives one conflict.
func TestReleaseAfterAConflict(t *testing.T) {
	s := &conflicting{Store: memory.New()}
	clock := newClock()
	a, b := pair(s, clock)
	l, err := a.Acquire("job")
	if err != nil {
		t.Fatal(err)
	}
	s.fail.Store(1)
	if err := l.Renew(); err != nil {
		t.Fatalf("renewing after a conflict: %v", err)
	}
	s.fail.Store(2)
	if err := l.Release(); err != nil {
		t.Fatalf("releasing after two conflicts: %v", err)
	}
	if _, err := b.Acquire("job"); err != nil {
		t.Fatalf("b taking the released lease: %v", err)
	}
}
