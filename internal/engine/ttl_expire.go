package engine

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
)

// TTL expiry. A background pass (every Config.TTLInterval, and at once
// when TTL is enabled) scans each table whose TTL is enabled, a page of
// ttlPage items per snapshot, and deletes the expired ones one by one
// through writeItem, so indexes and stream records follow the normal
// delete path and foreground writers only ever wait for one item's
// write. Nothing is persisted: expiry is a function of the data and the
// clock, so a restart simply scans again.
const (
	ttlPage            = 256
	defaultTTLInterval = 30 * time.Second
	// ttlMaxAge: items whose TTL is more than five years in the past are
	// left alone, as DynamoDB does.
	ttlMaxAge = 5 * 365 * 24 * time.Hour
)

// ttlState is the expirer's state.
type ttlState struct {
	run  sync.Mutex    // one pass at a time
	kick chan struct{} // wakes the background pass early
}

var errNotExpired = errors.New("engine: item no longer expired")

// startTTL starts the background expirer. Callers are in Open.
func (e *Engine) startTTL() {
	e.ttl.kick = make(chan struct{}, 1)
	interval := e.cfg.TTLInterval
	if interval == 0 {
		interval = defaultTTLInterval
	}
	if interval < 0 {
		return
	}
	e.goBackground(func() {
		tm := time.NewTimer(interval)
		defer tm.Stop()
		for {
			select {
			case <-e.closing:
				return
			case <-tm.C:
			case <-e.ttl.kick:
				tm.Stop()
			}
			e.ExpireTTL(context.Background()) //nolint:errcheck // retried next period
			tm.Reset(interval)
		}
	})
}

// kickTTL asks the background expirer to run now.
func (e *Engine) kickTTL() {
	select {
	case e.ttl.kick <- struct{}{}:
	default:
	}
}

// ExpireTTL runs one expiry pass over every table with TTL enabled and
// returns how many items it deleted. The admin endpoint calls it.
func (e *Engine) ExpireTTL(ctx context.Context) (int, error) {
	e.ttl.run.Lock()
	defer e.ttl.run.Unlock()
	total := 0
	for _, t := range e.snapshotTables() {
		if t.ttlAttribute() == "" || !t.Active() {
			continue
		}
		n, err := e.expireTable(ctx, t.Name, t.ID)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// expireTable scans one table in pages and deletes its expired items.
func (e *Engine) expireTable(ctx context.Context, name string, id uint64) (int, error) {
	deleted := 0
	from := itemPrefix(id)
	for {
		select {
		case <-e.closing:
			return deleted, nil
		default:
		}
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		// Re-read the table each page: TTL may have been disabled or the
		// table deleted meanwhile.
		t, ok := e.lookupTable(name)
		if !ok || t.ID != id || !t.Active() {
			return deleted, nil
		}
		a := t.ttlAttribute()
		if a == "" {
			return deleted, nil
		}
		now := e.clock.Now()
		keys, next, err := e.expiredPage(t, a, now, from)
		if err != nil {
			return deleted, err
		}
		for _, it := range keys {
			ok, err := e.expireItem(ctx, t, a, it)
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

// expiredPage reads up to ttlPage items from key from and returns the
// keys of the expired ones and where the next page starts (nil at the end).
func (e *Engine) expiredPage(t *Table, a string, now time.Time, from []byte) ([]attr.Item, []byte, error) {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: from, Upper: itemPrefix(t.ID + 1)})
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	var out []attr.Item
	n := 0
	for it.Next() {
		if n == ttlPage {
			return out, bytes.Clone(it.Key()), nil
		}
		n++
		item, err := attr.DecodeItem(it.Value())
		if err != nil {
			return nil, nil, err
		}
		if expired(item, a, now) {
			out = append(out, t.keyItem(item))
		}
	}
	return out, nil, it.Err()
}

// expireItem deletes one item if it is still expired. The write itself
// carries the TTL label (itemWrite.ttl), so its stream record, and only
// its record, is marked as the service's.
func (e *Engine) expireItem(ctx context.Context, t *Table, a string, key attr.Item) (bool, error) {
	k := t.primaryKeyOf(key)
	_, err := e.writeItem(ctx, itemWrite{table: t, key: k, tooBig: msgItemSize, ttl: true,
		apply: func(old attr.Item) (attr.Item, error) {
			if old == nil || !expired(old, a, e.clock.Now()) {
				return nil, errNotExpired
			}
			return nil, nil
		}})
	var de *ddberr.Error
	if errors.Is(err, errNotExpired) || (errors.As(err, &de) && de.Type == "TransactionConflictException") {
		// Gone or no longer expired; or held by an in-flight transaction,
		// which either deletes it itself or leaves it to the next pass.
		return false, nil
	}
	return err == nil, err
}

// expired reports whether an item's TTL attribute is a Number of epoch
// seconds in the past, and not more than five years in the past.
func expired(item attr.Item, a string, now time.Time) bool {
	v, ok := item[a]
	if !ok || v.T != attr.N {
		return false
	}
	f, err := strconv.ParseFloat(v.Str, 64)
	if err != nil {
		return false
	}
	return f < float64(now.Unix()) && f >= float64(now.Add(-ttlMaxAge).Unix())
}
