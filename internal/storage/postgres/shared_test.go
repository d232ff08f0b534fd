package postgres

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/internal/holder"
)

// TestSharedLease: the nodes of a cluster (SharedStore, each through a pool
// of its own as separate processes would) serve one namespace together,
// and a single server is kept out while they do; and a cluster node is
// kept out while a single server holds the namespace.
func TestSharedLease(t *testing.T) {
	defer func(w time.Duration) { holder.Wait = w }(holder.Wait)
	holder.Wait = 300 * time.Millisecond
	ns := freshNamespace(t)
	c1, c2, c3 := connect(t), connect(t), connect(t)
	a, err := c1.SharedStore(ns)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := c2.SharedStore(ns)
	if err != nil {
		t.Fatalf("second node of a cluster: %v", err)
	}
	defer b.Close()
	_, err = c3.Store(ns)
	if !errors.Is(err, ErrNamespaceInUse) || !strings.Contains(err.Error(), "in cluster mode (--cluster") {
		t.Fatalf("single server on a cluster's namespace = %v, want ErrNamespaceInUse naming cluster mode", err)
	}

	single := freshNamespace(t)
	s, err := c1.Store(single)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = c2.SharedStore(single)
	if !errors.Is(err, ErrNamespaceInUse) || !strings.Contains(err.Error(), "cannot share a namespace") {
		t.Fatalf("cluster node on a single server's namespace = %v, want ErrNamespaceInUse", err)
	}
}

// TestLazyCountersAcrossProcesses: read-modify-write counters through
// lazy transactions (the engine's item writes, storage.LazyBeginner) of two
// pools on one database lose no increment. Each pool's oracle sees only
// its own commits; the conflict check of PostgreSQL (the keys read with Get
// are locked at commit under REPEATABLE READ) is what catches the other
// pool's: with a blind write instead of the Get this test fails.
func TestLazyCountersAcrossProcesses(t *testing.T) {
	ns := freshNamespace(t)
	stores := make([]*Store, 2)
	for i := range stores {
		s, err := connect(t).SharedStore(ns)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	const writers, each = 4, 25
	key := []byte("counter")
	var wg sync.WaitGroup
	errs := make(chan error, writers*len(stores))
	for _, s := range stores {
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					if err := increment(s, key); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	v, err := stores[0].Get(key)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := binary.BigEndian.Uint64(v), uint64(writers*each*len(stores)); got != want {
		t.Fatalf("counter = %d after %d increments: updates were lost", got, want)
	}
}

// increment adds one to the counter at key, retrying conflicts.
func increment(s *Store, key []byte) error {
	for {
		x, err := s.BeginLazy()
		if err != nil {
			return err
		}
		var n uint64
		v, err := x.Get(key)
		switch {
		case err == nil:
			n = binary.BigEndian.Uint64(v)
		case !errors.Is(err, storage.ErrNotFound):
			x.Rollback()
			return err
		}
		_ = x.Set(key, binary.BigEndian.AppendUint64(nil, n+1))
		err = x.Commit(storage.CommitOptions{})
		x.Rollback()
		if !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
}
