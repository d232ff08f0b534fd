package occ

import (
	"sync"

	"github.com/kura-db/kura/internal/storage"
)

// Oracle hands out start and commit timestamps and detects write conflicts.
// One Oracle serves one store; it is safe for concurrent use. The zero value
// is not usable; call NewOracle.
type Oracle struct {
	mu sync.Mutex
	// advanced is signalled (with mu) when the watermark advances.
	advanced sync.Cond
	// lastTS is the last commit timestamp assigned.
	lastTS uint64
	// watermark is the highest timestamp at or below which every commit has
	// been applied. New transactions start at the watermark.
	watermark uint64
	// applied holds applied commit timestamps above the watermark (applies
	// that finished out of order).
	applied map[uint64]struct{}
	// active counts active transactions per start timestamp.
	active map[uint64]int
	// starts lists the distinct start timestamps handed out, ascending. It
	// may hold entries whose transactions have all ended; the front entry is
	// always live (or the slice is empty).
	starts []uint64
	// latest maps a key to the newest recorded commit timestamp writing it.
	latest map[string]uint64
	// history lists recorded commits in ascending timestamp order, so that
	// latest can be pruned.
	history []commitRecord
}

// commitRecord is the write-key set of one recorded commit.
type commitRecord struct {
	ts   uint64
	keys []string
}

// NewOracle returns an oracle with no history.
func NewOracle() *Oracle {
	o := &Oracle{
		applied: make(map[uint64]struct{}),
		active:  make(map[uint64]int),
		latest:  make(map[string]uint64),
	}
	o.advanced.L = &o.mu
	return o
}

// begin registers a new transaction and returns its start timestamp, the
// current watermark. The caller must take its snapshot after begin returns
// and eventually call finish.
func (o *Oracle) begin() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.watermark
	if n := len(o.starts); n == 0 || o.starts[n-1] != s {
		o.starts = append(o.starts, s)
	}
	o.active[s]++
	return s
}

// commit applies the conflict rule for a transaction that started at start,
// read the keys in reads (with Get) and writes the keys in writes. On
// success it returns the new commit timestamp, or 0 when there is nothing to
// write; the caller must then apply the writes and call finish with the
// timestamp. On conflict it returns storage.ErrConflict.
func (o *Oracle) commit(start uint64, reads map[string]struct{}, writes map[string]Write) (uint64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k := range writes {
		if o.latest[k] > start {
			return 0, storage.ErrConflict
		}
	}
	for k := range reads {
		if o.latest[k] > start {
			return 0, storage.ErrConflict
		}
	}
	if len(writes) == 0 {
		return 0, nil
	}
	o.lastTS++
	ts := o.lastTS
	keys := make([]string, 0, len(writes))
	for k := range writes {
		o.latest[k] = ts
		keys = append(keys, k)
	}
	o.history = append(o.history, commitRecord{ts: ts, keys: keys})
	return ts, nil
}

// finish ends the transaction that started at start. A non-zero ts marks
// that commit as applied (whether or not the apply succeeded: either way it
// will change nothing more), which may advance the watermark; finish then
// waits until the watermark reaches ts, so that any transaction that begins
// after the commit is acknowledged starts at or above it (and so neither
// misses it nor conflicts with it).
func (o *Oracle) finish(start, ts uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ts != 0 {
		if ts == o.watermark+1 {
			o.watermark = ts
			for {
				next := o.watermark + 1
				if _, ok := o.applied[next]; !ok {
					break
				}
				delete(o.applied, next)
				o.watermark = next
			}
			o.advanced.Broadcast()
		} else {
			o.applied[ts] = struct{}{}
		}
	}
	if n := o.active[start] - 1; n > 0 {
		o.active[start] = n
	} else {
		delete(o.active, start)
		i := 0
		for i < len(o.starts) && o.active[o.starts[i]] == 0 {
			i++
		}
		if i == len(o.starts) {
			o.starts = o.starts[:0]
		} else {
			o.starts = o.starts[i:]
		}
	}
	o.prune()
	for o.watermark < ts {
		o.advanced.Wait()
	}
}

// prune forgets commit records that no active or future transaction can
// conflict with: those at or below both the watermark (future starts) and
// the oldest active start.
func (o *Oracle) prune() {
	limit := o.watermark
	if len(o.starts) > 0 && o.starts[0] < limit {
		limit = o.starts[0]
	}
	i := 0
	for ; i < len(o.history) && o.history[i].ts <= limit; i++ {
		rec := &o.history[i]
		for _, k := range rec.keys {
			if o.latest[k] == rec.ts {
				delete(o.latest, k)
			}
		}
		rec.keys = nil
	}
	if i == len(o.history) {
		o.history = o.history[:0]
	} else {
		o.history = o.history[i:]
	}
}

// Stats is a point-in-time view of the oracle's bookkeeping, for tests and
// metrics.
type Stats struct {
	// LastCommit is the last commit timestamp assigned.
	LastCommit uint64
	// Watermark is the highest fully applied timestamp.
	Watermark uint64
	// ActiveTxns is the number of transactions not yet finished.
	ActiveTxns int
	// TrackedKeys is the number of keys whose recent commits are remembered.
	TrackedKeys int
	// TrackedCommits is the number of remembered commits.
	TrackedCommits int
}

// Stats reports the oracle's current bookkeeping.
func (o *Oracle) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, c := range o.active {
		n += c
	}
	return Stats{
		LastCommit:     o.lastTS,
		Watermark:      o.watermark,
		ActiveTxns:     n,
		TrackedKeys:    len(o.latest),
		TrackedCommits: len(o.history),
	}
}
