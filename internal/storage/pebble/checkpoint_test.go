package pebble_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/pebble"
)

// A checkpoint taken while writers commit holds every commit acknowledged
// before it (synced or not), opens as a store of its own, and leaves the
// original serving.
func TestCheckpoint(t *testing.T) {
	dir := t.TempDir()
	s, err := pebble.Open(filepath.Join(dir, "db"), pebble.Options{MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put := func(key string, sync bool) {
		tx, _ := s.Begin()
		_ = tx.Set([]byte(key), []byte("v-"+key))
		if err := tx.Commit(storage.CommitOptions{Sync: sync}); err != nil {
			t.Error(err)
		}
	}
	// Enough to flush tables too (a 1 MB memtable), then writers that go
	// on while the checkpoint runs.
	for i := 0; i < 3000; i++ {
		put(fmt.Sprintf("base%05d", i), i%2 == 0)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				put(fmt.Sprintf("w%d-%06d", w, i), i%3 == 0)
			}
		}()
	}
	ck := filepath.Join(dir, "ck")
	if err := s.Checkpoint(ck); err != nil {
		t.Fatal(err)
	}
	stop.Store(true)
	wg.Wait()
	// An unsynced commit right before a checkpoint is in it too (the
	// checkpoint syncs the log first).
	put("last-before", false)
	ck2 := filepath.Join(dir, "ck2")
	if err := s.Checkpoint(ck2); err != nil {
		t.Fatal(err)
	}
	put("after", true)
	c2, err := pebble.Open(ck2, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if v, err := c2.Get([]byte("last-before")); err != nil || string(v) != "v-last-before" {
		t.Errorf("the unsynced commit before the checkpoint: %q %v", v, err)
	}

	c, err := pebble.Open(ck, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sn, _ := c.NewSnapshot()
	defer sn.Close()
	for _, k := range []string{"base00000", "base02999"} {
		if v, err := sn.Get([]byte(k)); err != nil || string(v) != "v-"+k {
			t.Errorf("%s in the checkpoint: %q %v", k, v, err)
		}
	}
	if _, err := sn.Get([]byte("after")); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a commit after the checkpoint is in it: %v", err)
	}
	// Each writer's keys in the copy are a prefix of what it wrote: no gaps.
	for w := 0; w < 4; w++ {
		it, _ := sn.NewIterator(storage.IterOptions{Lower: []byte(fmt.Sprintf("w%d-", w)), Upper: []byte(fmt.Sprintf("w%d.", w))})
		n := 0
		for it.Next() {
			if want := fmt.Sprintf("w%d-%06d", w, n); string(it.Key()) != want {
				t.Fatalf("writer %d: key %q where %q was expected", w, it.Key(), want)
			}
			n++
		}
		it.Close()
	}
	// The original goes on.
	sn2, _ := s.NewSnapshot()
	defer sn2.Close()
	if _, err := sn2.Get([]byte("after")); err != nil {
		t.Fatalf("the original after a checkpoint: %v", err)
	}

	if err := s.Checkpoint(ck); !errors.Is(err, os.ErrExist) {
		t.Errorf("a checkpoint into an existing directory: %v", err)
	}
	mem, _ := pebble.Open("", pebble.Options{InMemory: true})
	defer mem.Close()
	if err := mem.Checkpoint(filepath.Join(dir, "mem")); err == nil {
		t.Error("an in-memory store checkpointed")
	}
}
