package occ

import (
	"errors"
	"testing"

	"github.com/kura-db/kura/internal/storage"
)

func writeSet(keys ...string) map[string]Write {
	m := make(map[string]Write, len(keys))
	for _, k := range keys {
		m[k] = Write{Value: []byte("v")}
	}
	return m
}

// TestWatermarkOutOfOrder checks that a commit whose apply finishes first
// does not raise the start timestamp past an earlier, still-applying one.
func TestWatermarkOutOfOrder(t *testing.T) {
	o := NewOracle()
	a, b := o.begin(), o.begin()
	tsA, err := o.commit(a, nil, writeSet("a"))
	if err != nil {
		t.Fatal(err)
	}
	tsB, err := o.commit(b, nil, writeSet("b"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { o.finish(b, tsB); close(done) }() // B applied first: waits for A
	select {
	case <-done:
		t.Fatal("B acknowledged before A was applied")
	default:
	}
	if s := o.begin(); s != 0 {
		t.Fatalf("start = %d while commit 1 is unapplied, want 0", s)
	} else {
		o.finish(s, 0)
	}
	o.finish(a, tsA)
	<-done
	if s := o.begin(); s != tsB {
		t.Fatalf("start = %d, want %d", s, tsB)
	} else {
		o.finish(s, 0)
	}
}

func TestConflictRule(t *testing.T) {
	o := NewOracle()
	t1, t2 := o.Begin(), o.Begin()
	t2.NoteRead([]byte("k"))
	_ = t1.Set([]byte("k"), nil)
	if err := t1.Commit(func(map[string]Write) error { return nil }); err != nil {
		t.Fatal(err)
	}
	_ = t2.Set([]byte("other"), nil)
	if err := t2.Commit(func(map[string]Write) error { t.Fatal("applied"); return nil }); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("got %v, want ErrConflict", err)
	}
	t3 := o.Begin()
	t3.NoteRead([]byte("k"))
	_ = t3.Set([]byte("k"), nil)
	if err := t3.Commit(func(map[string]Write) error { return nil }); err != nil {
		t.Fatalf("txn begun after commit: %v", err)
	}
	if err := t3.Commit(nil); !errors.Is(err, ErrTxnDone) {
		t.Fatalf("second Commit = %v", err)
	}
}

// TestPruning checks that remembered commits are bounded by the oldest
// active transaction and dropped when none is active.
func TestPruning(t *testing.T) {
	o := NewOracle()
	apply := func(map[string]Write) error { return nil }
	long := o.Begin()
	for i := 0; i < 100; i++ {
		tx := o.Begin()
		_ = tx.Set([]byte{byte(i)}, nil)
		if err := tx.Commit(apply); err != nil {
			t.Fatal(err)
		}
	}
	if st := o.Stats(); st.TrackedCommits != 100 || st.ActiveTxns != 1 {
		t.Fatalf("with a long txn open: %+v", st)
	}
	long.Rollback()
	st := o.Stats()
	if st.TrackedCommits != 0 || st.TrackedKeys != 0 || st.ActiveTxns != 0 || st.Watermark != 100 {
		t.Fatalf("after all txns ended: %+v", st)
	}
	if len(o.starts) != 0 || len(o.applied) != 0 || len(o.active) != 0 {
		t.Fatalf("leftover bookkeeping: starts %v applied %v active %v", o.starts, o.applied, o.active)
	}
}

// TestApplyErrorAdvances checks that a failed apply still releases the
// watermark.
func TestApplyErrorAdvances(t *testing.T) {
	o := NewOracle()
	tx := o.Begin()
	_ = tx.Set([]byte("k"), nil)
	boom := errors.New("boom")
	if err := tx.Commit(func(map[string]Write) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if st := o.Stats(); st.Watermark != 1 {
		t.Fatalf("watermark = %d, want 1", st.Watermark)
	}
}
