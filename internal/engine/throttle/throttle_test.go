package throttle

import (
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
