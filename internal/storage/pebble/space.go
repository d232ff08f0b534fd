package pebble

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// spaceCheckEvery is how long a free-space reading is trusted: commits
// and health checks read the disk's free space again when the last
// reading is older (one statfs(2) per interval at most, not one per
// commit).
const spaceCheckEvery = 100 * time.Millisecond

// spaceGuard refuses commits while the free space of the store's disk is
// below a minimum (Options.MinFreeBytes), so that a filling disk makes
// Kura refuse writes with a clear error, and keep serving reads, instead
// of letting Pebble run into ENOSPC, which it cannot recover from (see
// faults.go). The minimum leaves room for what Pebble still writes on its
// own while writes are refused: flushing the memtables, compactions, a
// new WAL.
//
// Its state is one reading, refreshed lazily: nothing runs in the
// background, and a refused write or a health check after space was freed
// sees the new figure at most spaceCheckEvery later.
type spaceGuard struct {
	min   uint64
	free  func() (uint64, error) // the disk's available bytes
	now   func() time.Time
	limit string // the minimum as the operator set it, for messages

	mu      sync.Mutex   // serialises readings
	checked atomic.Int64 // UnixNano of the last reading (0: none)
	low     atomic.Pointer[error]
}

// check returns nil while there is enough space, else an error wrapping
// storage.ErrNoSpace with the figures.
func (g *spaceGuard) check() error {
	if g == nil {
		return nil
	}
	if now := g.now().UnixNano(); now-g.checked.Load() >= int64(spaceCheckEvery) {
		g.read(now)
	}
	if p := g.low.Load(); p != nil {
		return *p
	}
	return nil
}

// read takes a new reading, unless another goroutine just did.
func (g *spaceGuard) read(now int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now-g.checked.Load() < int64(spaceCheckEvery) {
		return
	}
	avail, err := g.free()
	g.checked.Store(now)
	if err != nil {
		// Unknown free space refuses nothing; a disk that really fails
		// fails a write, and faults.go handles that.
		g.low.Store(nil)
		return
	}
	if avail >= g.min {
		g.low.Store(nil)
		return
	}
	e := fmt.Errorf("%w: %s available, minimum %s", storage.ErrNoSpace, formatBytes(avail), g.limit)
	g.low.Store(&e)
}

// formatBytes writes n in MB (or KB below 1 MB), as an operator reads it.
func formatBytes(n uint64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d MB", n>>20)
}
