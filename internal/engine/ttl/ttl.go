package ttl

import (
	"context"
	"runtime"
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
// none) and when kicked, until closing; run it in its own goroutine.
func (x *Expirer) Background(interval time.Duration) {
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
		x.Pass(context.Background()) //nolint:errcheck // retried next period
		tm.Reset(interval)
	}
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
	x.run.Lock()
	defer x.run.Unlock()
	total := 0
	for _, t := range x.core.Tables() {
		n, err := x.expireTable(ctx, t)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// expireTable scans one table in pages and deletes its expired items.
func (x *Expirer) expireTable(ctx context.Context, t Table) (int, error) {
	deleted := 0
	var from []byte
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
