package lease

import (
	"errors"
	"log/slog"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// The ways background work uses a Manager: a loop that asks for its lease
// at every round and records its progress (Guard), a job that runs under
// a claim it fences its own writes with (Claim), and work that runs once
// on whichever node holds its lease (Under).

// Guard is the lease of a loop that asks for it at every round and skips
// the round while another node holds it.
type Guard struct {
	m    *Manager
	name string
	l    *Lease
}

// Guard is the guard of the lease name.
func (m *Manager) Guard(name string) *Guard { return &Guard{m: m, name: name} }

// Hold reports whether this node holds (or now took) the lease, and the
// progress recorded in it.
func (g *Guard) Hold() ([]byte, bool) {
	l, ok := g.m.Hold(g.name)
	if !ok {
		return nil, false
	}
	g.l = l
	return l.Progress(), true
}

// Save records progress in the lease Hold last reported held.
func (g *Guard) Save(progress []byte) error { return g.l.Save(progress) }

// Claim is the lease a job runs under.
type Claim struct{ l *Lease }

// Claim acquires the lease name for a job; false while another node holds
// it (or the store failed: logged).
func (m *Manager) Claim(name string) (Claim, bool) {
	l, err := m.Acquire(name)
	if err != nil {
		if !errors.Is(err, ErrHeld) {
			slog.Warn("claiming a job", "lease", name, "err", err)
		}
		return Claim{}, false
	}
	return Claim{l}, true
}

// Fence checks, inside txn, that this node still holds the claim.
func (c Claim) Fence(txn storage.Txn) error { return c.l.Fence(txn) }

// Release gives the claim up (a claim already lost is no error).
func (c Claim) Release() {
	if err := c.l.Release(); err != nil && !errors.Is(err, ErrLost) {
		slog.Warn("releasing a job's lease", "lease", c.l.Name(), "err", err)
	}
}

// Done is the progress of a lease whose work Under finished: a node that
// takes the lease later (its view of the work may be stale) does not run
// it again.
const Done = "done"

// Under runs work once this node holds the lease name: at once when it is
// free (always, with one node), else when its holder's lease lapsed (it
// is polled every half lease life, through wait, which reports false
// once the caller closes) while still reports true. When work returns
// with still false, the work is done and the lease records it (Done);
// otherwise (closing) it is released for another node to run the work
// again from the beginning (a backfill or a copy rewrites what it finds,
// so a takeover only repeats the dead holder's part). It reports whether
// work ran.
func (m *Manager) Under(name string, wait func(time.Duration) bool, still func() bool, work func()) (ran bool) {
	for {
		if l, ok := m.Hold(name); ok {
			if ran = string(l.Progress()) != Done; ran {
				work()
				if !still() {
					_ = l.Save([]byte(Done)) // lost: the taker checks still itself
				}
			}
			if err := l.Release(); err != nil && !errors.Is(err, ErrLost) {
				slog.Warn("releasing a lease", "lease", name, "err", err)
			}
			return ran
		}
		if !wait(m.TTL()/2) || !still() {
			return false
		}
	}
}
