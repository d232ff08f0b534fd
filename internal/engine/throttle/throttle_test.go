package throttle

import (
	"errors"
	"testing"
	"time"
)

var t0 = time.Unix(1000, 0)

// TestBucketFillsAndBursts: a new bucket starts full (rate × burst), a
// charge may take it below zero, it refills at its rate and never holds
// more than the burst.
func TestBucketFillsAndBursts(t *testing.T) {
	b := New(2 * time.Second)
	lim := Limit{Key: Key{Table: 1}, Rate: 10}
	if b.Empty(lim, t0) {
		t.Fatal("a new bucket is empty")
	}
	b.Charge(lim, t0, 25) // 20 held: now -5
	if !b.Empty(lim, t0) {
		t.Fatal("overdrawn bucket admits")
	}
	if !b.Empty(lim, t0.Add(500*time.Millisecond)) { // -5 + 5 = 0
		t.Fatal("bucket at zero admits")
	}
	if b.Empty(lim, t0.Add(600*time.Millisecond)) {
		t.Fatal("refilled bucket refuses")
	}
	later := t0.Add(time.Hour) // idle: capped at the burst (20)
	b.Charge(lim, later, 20)
	if !b.Empty(lim, later) {
		t.Fatal("bucket held more than its burst")
	}
}

// TestOnDemandHoldsOneSecond: an on-demand maximum keeps one second's
// worth whatever the burst; the burst is at least one second.
func TestOnDemandHoldsOneSecond(t *testing.T) {
	b := New(time.Hour)
	od := Limit{Key: Key{Table: 1, Write: true}, Rate: 10, OnDemand: true}
	b.Charge(od, t0, 10)
	if !b.Empty(od, t0) {
		t.Fatal("on-demand bucket held more than a second")
	}
	tiny := New(0)
	lim := Limit{Key: Key{Table: 2}, Rate: 4}
	tiny.Charge(lim, t0, 3.5)
	if tiny.Empty(lim, t0) {
		t.Fatal("a burst under a second's worth")
	}
}

// TestForget: a deleted table's buckets go (a re-created one starts
// full); other tables' stay.
func TestForget(t *testing.T) {
	b := New(time.Second)
	a, g, other := Limit{Key: Key{Table: 1}, Rate: 1}, Limit{Key: Key{Table: 1, Index: "g", Write: true}, Rate: 1}, Limit{Key: Key{Table: 2}, Rate: 1}
	for _, l := range []Limit{a, g, other} {
		b.Charge(l, t0, 5)
	}
	b.Forget(1)
	if b.Empty(a, t0) || b.Empty(g, t0) || !b.Empty(other, t0) {
		t.Fatal("Forget(1) did not reset table 1 only")
	}
}

// TestRefused: the error names the limit's kind, side and resource.
func TestRefused(t *testing.T) {
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/t"
	for _, tc := range []struct {
		lim            Limit
		typ, reason, r string
	}{
		{Limit{Key: Key{Table: 1}}, "ProvisionedThroughputExceededException", "TableReadProvisionedThroughputExceeded", arn},
		{Limit{Key: Key{Table: 1, Index: "g", Write: true}}, "ProvisionedThroughputExceededException", "IndexWriteProvisionedThroughputExceeded", arn + "/index/g"},
		{Limit{Key: Key{Table: 1, Write: true}, OnDemand: true}, "ThrottlingException", "TableWriteMaxOnDemandThroughputExceeded", arn},
	} {
		e := Refused(arn, tc.lim)
		if e.Type != tc.typ || len(e.ThrottlingReasons) != 1 || e.ThrottlingReasons[0].Reason != tc.reason || e.ThrottlingReasons[0].Resource != tc.r {
			t.Errorf("Refused(%+v) = %s %+v", tc.lim, e.Type, e.ThrottlingReasons)
		}
	}
}

// TestShareOfNodes: with n nodes a bucket fills at Rate/n and holds a
// burst of that; a raised share (a node left) refills faster, a lowered
// one (a node joined) caps what the bucket holds at once; Follow
// refreshes the share from the count until told to stop, and a failed
// count keeps the share.
func TestShareOfNodes(t *testing.T) {
	b := New(time.Second)
	lim := Limit{Key: Key{Table: 1, Write: true}, Rate: 30}
	b.SetNodes(3) // a share of 10 a second, 10 held
	b.Charge(lim, t0, 10)
	if !b.Empty(lim, t0) {
		t.Fatal("a third of the burst admits more")
	}
	if b.Empty(lim, t0.Add(110*time.Millisecond)) { // 1.1 refilled
		t.Fatal("the share does not refill")
	}
	b.SetNodes(1) // alone: refills at 30
	b.Charge(lim, t0.Add(110*time.Millisecond), 1.1)
	if b.Empty(lim, t0.Add(150*time.Millisecond)) { // 40 ms at 30/s
		t.Fatal("the raised share refills at the old rate")
	}
	b.SetNodes(3)
	b.Charge(lim, t0.Add(time.Hour), 10) // capped at 10, not 30
	if !b.Empty(lim, t0.Add(time.Hour)) {
		t.Fatal("the lowered share holds the old burst")
	}
	b.SetNodes(0)
	if b.Nodes() != 1 {
		t.Fatalf("no node counts as %d", b.Nodes())
	}

	counts := []int{2, 4}
	var rounds, sleeps int
	b.Follow(func() (int, error) {
		if rounds == len(counts) {
			return 0, errors.New("store down")
		}
		rounds++
		return counts[rounds-1], nil
	}, time.Millisecond, func(time.Duration) bool { sleeps++; return sleeps <= len(counts)+1 })
	if b.Nodes() != 4 {
		t.Fatalf("Follow left the share of %d nodes, want 4 (the last count; the failed one keeps it)", b.Nodes())
	}
}
