package stripes

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestLockOrder: two goroutines locking overlapping key sets given in
// opposite orders never deadlock, a key's stripe is the same every time,
// and Lock holds every stripe of its keys until unlock.
func TestLockOrder(t *testing.T) {
	var l Locks
	var keys [][]byte
	for i := range 64 {
		keys = append(keys, fmt.Appendf(nil, "item-%d", i))
	}
	rev := make([][]byte, len(keys))
	for i, k := range keys {
		rev[len(keys)-1-i] = k
	}
	if l.Of(keys[3]) != l.Of([]byte("item-3")) || l.For(keys[3]) != &l[l.Of(keys[3])] {
		t.Fatal("a key's stripe changed")
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for _, ks := range [][][]byte{keys, rev, append(keys[:0:0], keys[0], keys[0])} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				l.Lock(ks)()
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("deadlock: locks taken out of order")
	}

	unlock := l.Lock(keys[:8])
	for _, k := range keys[:8] {
		if l.For(k).TryLock() {
			t.Fatalf("stripe of %s not held", k)
		}
	}
	unlock()
	for _, k := range keys[:8] {
		if !l.For(k).TryLock() {
			t.Fatalf("stripe of %s still held after unlock", k)
		}
		l.For(k).Unlock()
	}
}

// TestLockAll: LockAll holds every stripe until its unlock, and waits for a
// writer holding one.
func TestLockAll(t *testing.T) {
	var l Locks
	unlock := l.LockAll()
	for i := range l {
		if l[i].TryLock() {
			t.Fatalf("stripe %d not held", i)
		}
	}
	unlock()
	for i := range l {
		if !l[i].TryLock() {
			t.Fatalf("stripe %d still held after unlock", i)
		}
		l[i].Unlock()
	}
	writer := l.Lock([][]byte{[]byte("k")})
	got := make(chan struct{})
	go func() { l.LockAll()(); close(got) }()
	select {
	case <-got:
		t.Fatal("LockAll did not wait for a held stripe")
	case <-time.After(50 * time.Millisecond):
	}
	writer()
	<-got
}
