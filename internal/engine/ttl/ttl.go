package ttl

import (
	"cmp"
	"context"
	"encoding/binary"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
)

const (
	// DefaultInterval is the period of the background pass.
	DefaultInterval = 30 * time.Second
	// maxAge: items whose TTL is more than five years in the past are
	// left alone, as DynamoDB does.
	maxAge = 5 * 365 * 24 * time.Hour
)

// Table names one table to scan: a table re-created under the same name
// has another ID.
type Table struct {
	Name string
	ID   uint64
}

// Core is what the expirer needs from the core.
type Core interface {
	// Tables are the ACTIVE tables whose TTL is enabled.
	Tables() []Table
	// Live is t as it is now; nil when t was deleted (or re-created), is
	// not ACTIVE or its TTL was disabled meanwhile.
	Live(t Table) Live
}

// Live is one table with TTL enabled, as the core has it now.
type Live interface {
	// Attribute is its TTL attribute.
	Attribute() string
	// ExpiredPage reads one page of its items from one snapshot, from the
	// storage key from on (nil: the first), and returns the keys of those
	// expired at now and where the next page starts (nil at the end).
	ExpiredPage(now time.Time, from []byte) (keys []attr.Item, next []byte, err error)
	// Expire deletes the item with key if it is still expired (Expired at
	// the time of the write) and reports whether it did.
	Expire(ctx context.Context, key attr.Item) (bool, error)
}

// Guard keeps the background pass to one node at a time among the nodes
// sharing a store (the engine's lease "ttl", package lease).
type Guard interface {
	// Hold reports whether this node may run a pass now, and the cursor
	// where the last pass (this node's or another's) stopped: nil when it
	// finished.
	Hold() (cursor []byte, ok bool)
	// Save records the cursor a pass reached (nil: finished); an error
	// means the guard was lost and the pass stops.
	Save(cursor []byte) error
}

// Expirer runs expiry passes.
type Expirer struct {
	core    Core
	now     func() time.Time
	closing <-chan struct{}
	run     sync.Mutex    // one pass at a time
	kick    chan struct{} // wakes the background pass early
}

// New returns an expirer over core; closing stops its passes.
func New(core Core, now func() time.Time, closing <-chan struct{}) *Expirer {
	return &Expirer{core: core, now: now, closing: closing, kick: make(chan struct{}, 1)}
}

// Background runs a pass every interval (0: DefaultInterval; negative:
// none) and when kicked, until closing; run it in its own goroutine. With
// a guard, a round runs only while guard holds, from where the last pass
// stopped, and records its cursor page by page.
func (x *Expirer) Background(interval time.Duration, guard Guard) {
	if interval == 0 {
		interval = DefaultInterval
	}
	if interval < 0 {
		return
	}
	tm := time.NewTimer(interval)
	defer tm.Stop()
	for {
		select {
		case <-x.closing:
			return
		case <-tm.C:
		case <-x.kick:
			tm.Stop()
		}
		x.Round(context.Background(), guard) //nolint:errcheck // retried next period
		tm.Reset(interval)
	}
}

// Round is one round of the background pass: a pass, or with a guard a
// pass from the guard's cursor when it holds (ran false otherwise).
func (x *Expirer) Round(ctx context.Context, guard Guard) (deleted int, ran bool, err error) {
	if guard == nil {
		deleted, err = x.Pass(ctx)
		return deleted, true, err
	}
	cursor, ok := guard.Hold()
	if !ok {
		return 0, false, nil
	}
	deleted, err = x.guardedPass(ctx, cursor, guard)
	return deleted, true, err
}

// Kick asks the background pass to run now.
func (x *Expirer) Kick() {
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

// Pass runs one expiry pass over every table with TTL enabled and
// returns how many items it deleted.
func (x *Expirer) Pass(ctx context.Context) (int, error) {
	return x.guardedPass(ctx, nil, nil)
}

// guardedPass is a pass that starts at cursor (tables in ID order; nil:
// the first) and, with a guard, saves its cursor after every page and nil
// at the end. A table whose ID the cursor passed is left to the next pass.
func (x *Expirer) guardedPass(ctx context.Context, cursor []byte, guard Guard) (int, error) {
	x.run.Lock()
	defer x.run.Unlock()
	startID, startKey := decodeCursor(cursor)
	tables := x.core.Tables()
	slices.SortFunc(tables, func(a, b Table) int { return cmp.Compare(a.ID, b.ID) })
	total := 0
	for _, t := range tables {
		if t.ID < startID {
			continue
		}
		var from []byte
		if t.ID == startID {
			from = startKey
		}
		n, err := x.expireTable(ctx, t, from, guard)
		total += n
		if err != nil {
			return total, err
		}
	}
	if guard != nil && !x.stopping() {
		return total, guard.Save(nil)
	}
	return total, nil
}

func (x *Expirer) stopping() bool {
	select {
	case <-x.closing:
		return true
	default:
		return false
	}
}

// encodeCursor is where a pass got to: a table ID and the storage key of
// its next page.
func encodeCursor(id uint64, from []byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, id), from...)
}

// decodeCursor splits a cursor; a nil or unreadable one is the start.
func decodeCursor(c []byte) (uint64, []byte) {
	if len(c) < 8 {
		return 0, nil
	}
	return binary.BigEndian.Uint64(c), c[8:]
}

// expireTable scans one table in pages from the storage key from (nil:
// its first) and deletes its expired items; with a guard, the cursor is
// saved after each page.
func (x *Expirer) expireTable(ctx context.Context, t Table, from []byte, guard Guard) (int, error) {
	deleted := 0
	for {
		select {
		case <-x.closing:
			return deleted, nil
		default:
		}
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		// Asked each page: TTL may have been disabled or the table
		// deleted meanwhile.
		live := x.core.Live(t)
		if live == nil {
			return deleted, nil
		}
		keys, next, err := live.ExpiredPage(x.now(), from)
		if err != nil {
			return deleted, err
		}
		for _, key := range keys {
			ok, err := live.Expire(ctx, key)
			if err != nil {
				return deleted, err
			}
			if ok {
				deleted++
			}
		}
		if next == nil {
			return deleted, nil
		}
		if guard != nil {
			if err := guard.Save(encodeCursor(t.ID, next)); err != nil {
				return deleted, err
			}
		}
		from = next
		runtime.Gosched()
	}
}

// Expired reports whether an item's TTL attribute a is a Number of epoch
// seconds in the past, and not more than five years in the past.
func Expired(item attr.Item, a string, now time.Time) bool {
	v, ok := item[a]
	if !ok || v.T != attr.N {
		return false
	}
	f, err := strconv.ParseFloat(v.Str, 64)
	if err != nil {
		return false
	}
	return f < float64(now.Unix()) && f >= float64(now.Add(-maxAge).Unix())
}
