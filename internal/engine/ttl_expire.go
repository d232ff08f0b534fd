package engine

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/ttl"
	"github.com/kura-db/kura/internal/storage"
)

// TTL expiry (package ttl): a background pass (every Config.TTLInterval,
// and at once when TTL is enabled) scans each table whose TTL is enabled,
// a page of ttlPage items per snapshot, and deletes the expired ones one
// by one through writeItem, so indexes and stream records follow the
// normal delete path and foreground writers only ever wait for one item's
// write. Nothing is persisted: expiry is a function of the data and the
// clock, so a restart simply scans again. This file is the core's side:
// which tables, a page of expired keys, and the deletion.
const ttlPage = 256

var errNotExpired = errors.New("engine: item no longer expired")

// startTTL starts the background expirer. Callers are in Open.
func (e *Engine) startTTL() {
	e.ttl = ttl.New(ttlCore{e}, e.clock.Now, e.closing)
	if e.cfg.TTLInterval >= 0 {
		e.goBackground(func() { e.ttl.Background(e.cfg.TTLInterval, e.ttlLease()) })
	}
}

// kickTTL asks the background expirer to run now.
func (e *Engine) kickTTL() { e.ttl.Kick() }

// ExpireTTL runs one expiry pass over every table with TTL enabled and
// returns how many items it deleted. The admin endpoint calls it.
func (e *Engine) ExpireTTL(ctx context.Context) (int, error) { return e.ttl.Pass(ctx) }

// ttlCore is the engine as the expirer sees it.
type ttlCore struct{ e *Engine }

func (c ttlCore) Tables() []ttl.Table {
	var out []ttl.Table
	for _, t := range c.e.snapshotTables() {
		if t.ttlAttribute() != "" && t.Active() {
			out = append(out, ttl.Table{Name: t.Name, ID: t.ID})
		}
	}
	return out
}

func (c ttlCore) Live(tt ttl.Table) ttl.Live {
	t, ok := c.e.lookupTable(tt.Name)
	if !ok || t.ID != tt.ID || !t.Active() {
		return nil
	}
	a := t.ttlAttribute()
	if a == "" {
		return nil
	}
	return ttlTable{e: c.e, t: t, a: a}
}

// ttlTable is one table with TTL enabled, as it was when a page began.
type ttlTable struct {
	e *Engine
	t *Table
	a string
}

func (l ttlTable) Attribute() string { return l.a }

// ExpiredPage reads up to ttlPage items from key from and returns the
// keys of the expired ones and where the next page starts (nil at the end).
func (l ttlTable) ExpiredPage(now time.Time, from []byte) ([]attr.Item, []byte, error) {
	if from == nil {
		from = itemPrefix(l.t.ID)
	}
	snap, err := l.e.store.NewSnapshot()
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: from, Upper: itemPrefix(l.t.ID + 1)})
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
		if ttl.Expired(item, l.a, now) {
			out = append(out, l.t.keyItem(item))
		}
	}
	return out, nil, it.Err()
}

// Expire deletes one item if it is still expired. The write itself
// carries the TTL label (itemWrite.ttl), so its stream record, and only
// its record, is marked as the service's.
func (l ttlTable) Expire(ctx context.Context, key attr.Item) (bool, error) {
	e, t, a := l.e, l.t, l.a
	k := t.primaryKeyOf(key)
	_, err := e.writeItem(ctx, itemWrite{table: t, key: k, tooBig: msgItemSize, ttl: true,
		apply: func(old attr.Item) (attr.Item, error) {
			if old == nil || !ttl.Expired(old, a, e.clock.Now()) {
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
