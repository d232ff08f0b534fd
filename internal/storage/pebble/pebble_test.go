package pebble_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := pebble.Open(t.TempDir(), pebble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestConformanceInMemory(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := pebble.Open("mem", pebble.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestConformanceSyncDelay runs the suite with a sync delay: commits held
// back for a shared WAL sync behave exactly like the others.
func TestConformanceSyncDelay(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := pebble.Open(t.TempDir(), pebble.Options{SyncDelay: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestSyncDelayConcurrentDurable commits durably from more writers than
// SyncSiblings, so syncs are held back and shared, then reopens the store
// and finds every acknowledged key.
func TestSyncDelayConcurrentDurable(t *testing.T) {
	dir := t.TempDir()
	s, err := pebble.Open(dir, pebble.Options{SyncDelay: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 3 * pebble.SyncSiblings, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				txn, err := s.Begin()
				if err == nil {
					err = txn.Set([]byte(fmt.Sprintf("k%02d-%03d", w, i)), []byte("v"))
				}
				if err == nil {
					err = txn.Commit(storage.CommitOptions{Sync: true})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = pebble.Open(dir, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			if _, err := s.Get([]byte(fmt.Sprintf("k%02d-%03d", w, i))); err != nil {
				t.Fatalf("k%02d-%03d: %v", w, i, err)
			}
		}
	}
}
