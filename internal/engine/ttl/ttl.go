package ttl

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/engine/tables"
)

const (
	// DefaultInterval is the period of the background pass.
	DefaultInterval = 30 * time.Second
	// DefaultPage is how many items a page of a pass reads.
	DefaultPage = 256
	// maxAge: items whose TTL is more than five years in the past are
	// left alone, as DynamoDB does.
	maxAge = 5 * 365 * 24 * time.Hour
)

// Core is what TTL needs of the core: its clock, its tables and their
// records, a snapshot of the store and the write path.
type Core interface {
	Now() time.Time
	// DDL is the control-plane lock: table records change holding it.
	DDL() sync.Locker
	// TTLTable is the named table now, ok false when there is none.
	TTLTable(name string) (t Table, ok bool)
	// TTLTables are all the tables, in no order.
	TTLTables() ([]Table, error)
	// SetTTL stores the named table's setting in its record (the caller
	// holds DDL).
	SetTTL(name string, r *Record) error
	// Snapshot takes a snapshot of the store now.
	Snapshot() (*snapshot.Reader, error)
	// Delete runs the write path on the item of t with key as TTL's own
	// deletion (its stream record is the service's): keep is asked about
	// the item as the write finds it under its lock (nil when absent, or
	// when t is gone) and returns an error to leave it, which Delete
	// returns; nil deletes it.
	Delete(ctx context.Context, t Table, key attr.Item, keep func(old attr.Item) error) error
}

// Table is a table as TTL sees it.
type Table struct {
	// Def is its name, ID and key schema: a table re-created under the
	// same name has another ID.
	Def    *change.Table
	Status string // CREATING, ACTIVE, UPDATING or DELETING
	// TTL is its setting, nil when TTL was never set.
	TTL *Record
}

// attribute is t's TTL attribute when its items may expire now: TTL
// enabled on a table that serves writes (ACTIVE or UPDATING); "" otherwise.
func (t Table) attribute() string {
	if t.Status != tables.StatusActive && t.Status != tables.StatusUpdating {
		return ""
	}
	return t.TTL.EnabledAttribute()
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
	closing <-chan struct{}
	// Page is how many items a page reads from one snapshot (default
	// DefaultPage).
	Page int
	run  sync.Mutex    // one pass at a time
	kick chan struct{} // wakes the background pass early
}

// New returns an expirer over core; closing stops its passes.
func New(core Core, closing <-chan struct{}) *Expirer {
	return &Expirer{core: core, closing: closing, Page: DefaultPage, kick: make(chan struct{}, 1)}
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
	all, err := x.core.TTLTables()
	if err != nil {
		return 0, err
	}
	var tables []Table
	for _, t := range all {
		if t.attribute() != "" {
			tables = append(tables, t)
		}
	}
	slices.SortFunc(tables, func(a, b Table) int { return cmp.Compare(a.Def.ID, b.Def.ID) })
	total := 0
	for _, t := range tables {
		if t.Def.ID < startID {
			continue
		}
		var from []byte
		if t.Def.ID == startID {
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
		live, ok := x.core.TTLTable(t.Def.Name)
		if !ok || live.Def.ID != t.Def.ID || live.attribute() == "" {
			return deleted, nil
		}
		keys, next, err := x.expiredPage(live, from)
		if err != nil {
			return deleted, err
		}
		for _, key := range keys {
			ok, err := x.expire(ctx, live, key)
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
			if err := guard.Save(encodeCursor(t.Def.ID, next)); err != nil {
				return deleted, err
			}
		}
		from = next
		runtime.Gosched()
	}
}

// expiredPage reads up to Page items of t from one snapshot, from the
// storage key from on (nil: the first), and returns the keys of those
// expired now and the storage key where the next page starts (nil at the
// end).
func (x *Expirer) expiredPage(t Table, from []byte) ([]attr.Item, []byte, error) {
	r, err := x.core.Snapshot()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	id, a, now := t.Def.ID, t.attribute(), x.core.Now()
	var suffix []byte
	if from != nil {
		// The cursor is a storage key (as the lease records it); one of
		// another table starts at the first item.
		if rest, ok := bytes.CutPrefix(from, r.ItemKey(id, nil)); ok {
			suffix = rest
		}
	}
	var keys []attr.Item
	var next []byte
	n := 0
	_, err = r.ItemsFrom(id, suffix, func(suffix, stored []byte) (bool, error) {
		if n == x.Page {
			next = r.ItemKey(id, suffix)
			return false, nil
		}
		n++
		item, err := attr.DecodeItem(stored)
		if err != nil {
			return false, err
		}
		if Expired(item, a, now) {
			keys = append(keys, t.Def.KeyItem(item))
		}
		return true, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return keys, next, nil
}

var errNotExpired = errors.New("ttl: item no longer expired")

// expire deletes one item of t if it is still expired when the write
// finds it, and reports whether it did.
func (x *Expirer) expire(ctx context.Context, t Table, key attr.Item) (bool, error) {
	a := t.attribute()
	err := x.core.Delete(ctx, t, key, func(old attr.Item) error {
		if old == nil || !Expired(old, a, x.core.Now()) {
			return errNotExpired
		}
		return nil
	})
	var de *ddberr.Error
	if errors.Is(err, errNotExpired) || (errors.As(err, &de) && de.Type == "TransactionConflictException") {
		// Gone or no longer expired; or held by an in-flight transaction,
		// which either deletes it itself or leaves it to the next pass.
		return false, nil
	}
	return err == nil, err
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
