package tikv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/tikv"

	"github.com/kura-db/kura/internal/storage/internal/holder"
)

// One Kura server per namespace: the engine keeps table definitions,
// statistics and recently used items in its own memory, so a second server
// writing the same namespace would build on stale copies and could undo
// the first one's writes. A store therefore holds a lease on its
// namespace, a key outside every namespace's range, renewed while it is
// open and deleted when it closes. Time is the cluster's (the physical
// part of a PD timestamp), so servers' clocks need not agree. The timing
// (holder.TTL, holder.Renew, holder.Wait) is shared with storage/postgres.

// ErrNamespaceInUse is returned by Cluster.Store while another Kura server
// holds the namespace.
var ErrNamespaceInUse = errors.New("tikv: the namespace is in use by another Kura server")

// leaseRecord is the lease key's value.
type leaseRecord struct {
	Owner   string // random, per store
	Host    string
	PID     int
	Expires int64 // cluster time, Unix ms
}

// lease is a store's hold on its namespace.
type lease struct {
	kv    *tikv.KVStore
	key   []byte
	me    leaseRecord
	stop  chan struct{}
	done  chan struct{}
	close sync.Once
}

// acquireLease takes the namespace's lease, waiting up to holder.Wait for
// another holder's lease to lapse. A lease whose holder ran on this host
// and whose process is gone (a crash, kill -9) is taken over at once.
// lost is called if the lease is later found taken by another server.
// With shared, the lease is the one the nodes of a cluster share
// (holder.SharedOwner): taken while any of them renews it, and left to
// lapse at release.
func acquireLease(kvs *tikv.KVStore, namespace string, shared bool, lost func(error)) (*lease, error) {
	me := holder.Me()
	if shared {
		me = holder.Shared()
	}
	host := me.Host
	l := &lease{
		kv:   kvs,
		key:  []byte("kura-lease/" + namespace),
		me:   leaseRecord{Owner: me.Owner, Host: me.Host, PID: me.PID},
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	deadline := time.Now().Add(holder.Wait)
	for {
		other, err := l.write(func(cur *leaseRecord, now int64) bool {
			return cur == nil || cur.Owner == l.me.Owner || cur.Expires <= now || cur.Host == host && !holder.Alive(cur.PID)
		})
		if err != nil {
			return nil, err
		}
		if other == nil {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: %s", ErrNamespaceInUse, holder.Held(namespace, holder.Record{Owner: other.Owner, Host: other.Host, PID: other.PID}, shared))
		}
		time.Sleep(holder.Renew / 3)
	}
	go l.renew(lost)
	return l, nil
}

// write sets the lease to this store with a fresh expiry if take allows
// it given the current record (nil: none). It returns the other holder
// when take refuses.
func (l *lease) write(take func(cur *leaseRecord, now int64) bool) (*leaseRecord, error) {
	for attempt := 0; ; attempt++ {
		txn, err := l.kv.Begin()
		if err != nil {
			return nil, fmt.Errorf("tikv: lease: %w", err)
		}
		now := oracle.ExtractPhysical(txn.StartTS())
		var cur *leaseRecord
		v, err := txn.Get(context.Background(), l.key)
		switch {
		case err == nil:
			cur = &leaseRecord{}
			if json.Unmarshal(v, cur) != nil {
				cur = nil // unreadable: take it
			}
		case !tikverr.IsErrNotFound(err):
			_ = txn.Rollback()
			return nil, fmt.Errorf("tikv: lease: %w", err)
		}
		if !take(cur, now) {
			_ = txn.Rollback()
			return cur, nil
		}
		rec := l.me
		rec.Expires = now + holder.TTL.Milliseconds()
		b, _ := json.Marshal(rec)
		if err := txn.Set(l.key, b); err != nil {
			_ = txn.Rollback()
			return nil, fmt.Errorf("tikv: lease: %w", err)
		}
		err = txn.Commit(context.Background())
		if err == nil {
			return nil, nil
		}
		if !tikverr.IsErrWriteConflict(err) || attempt == 10 {
			return nil, fmt.Errorf("tikv: lease: %w", err)
		}
	}
}

// renew extends the lease every holder.Renew until release. Finding the
// lease taken by another server (this one stalled past its expiry) calls
// lost once and stops; a failed renewal is retried at the next tick.
func (l *lease) renew(lost func(error)) {
	defer close(l.done)
	t := time.NewTicker(holder.Renew)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		other, err := l.write(func(cur *leaseRecord, _ int64) bool { return cur == nil || cur.Owner == l.me.Owner })
		switch {
		case err != nil:
			slog.Warn("renewing the TiKV namespace lease", "key", string(l.key), "err", err)
		case other != nil:
			lost(fmt.Errorf("%w: the lease %s was taken by the server on host %s (pid %d)", ErrNamespaceInUse, l.key, other.Host, other.PID))
			return
		}
	}
}

// release stops renewing and deletes the lease if this store still holds
// it (a shared lease is left to lapse: other nodes may hold it). Safe to
// call more than once.
func (l *lease) release() error {
	var err error
	l.close.Do(func() {
		close(l.stop)
		<-l.done
		if l.me.Owner == holder.SharedOwner {
			return
		}
		txn, e := l.kv.Begin()
		if e != nil {
			err = fmt.Errorf("tikv: releasing the lease: %w", e)
			return
		}
		var cur leaseRecord
		v, e := txn.Get(context.Background(), l.key)
		if e != nil || json.Unmarshal(v, &cur) != nil || cur.Owner != l.me.Owner {
			_ = txn.Rollback() // gone, or taken by another server
			return
		}
		if e = txn.Delete(l.key); e == nil {
			e = txn.Commit(context.Background())
		}
		if e != nil {
			_ = txn.Rollback()
			err = fmt.Errorf("tikv: releasing the lease: %w", e)
		}
	})
	return err
}
