package insights

import (
	"slices"
	"testing"
	"time"
)

// TestUpdate: DynamoDB's transitions — a change answers ENABLING or
// DISABLING, no change the settled status; a mode change keeps the rule
// stamp; disabling keeps the mode.
func TestUpdate(t *testing.T) {
	t0, t1 := time.UnixMilli(1000), time.UnixMilli(2000)
	next, status, mode := Update(nil, true, "", t0)
	if next == nil || !next.Enabled || next.Mode != All || next.Stamp != 1000 || status != Enabling || mode != All {
		t.Fatalf("enable: %+v %s %s", next, status, mode)
	}
	if n, s, m := Update(next, true, All, t1); n != nil || s != Enabled || m != All {
		t.Fatalf("enable again: %+v %s %s", n, s, m)
	}
	changed, s, m := Update(next, true, Throttled, t1)
	if changed == nil || changed.Stamp != 1000 || changed.Mode != Throttled || !changed.Changed.Equal(t1) || s != Enabling || m != Throttled {
		t.Fatalf("mode change: %+v %s %s", changed, s, m)
	}
	off, s, m := Update(changed, false, All, t1)
	if off == nil || off.Enabled || off.Mode != Throttled || off.Stamp != 1000 || s != Disabling || m != Throttled {
		t.Fatalf("disable: %+v %s %s", off, s, m)
	}
	if n, s, m := Update(off, false, "", t1); n != nil || s != Disabled || m != Throttled {
		t.Fatalf("disable again: %+v %s %s", n, s, m)
	}
	if n, s, m := Update(nil, false, "", t1); n != nil || s != Disabled || m != "" {
		t.Fatalf("disable never configured: %+v %s %s", n, s, m)
	}
}

// TestRules: partition-key rules, sort-key ones with a sort key, no
// consumed (C) ones for THROTTLED_KEYS.
func TestRules(t *testing.T) {
	all := Rules("t-g", true, &Record{Mode: All, Stamp: 7})
	want := []string{"DynamoDBContributorInsights-PKC-t-g-7", "DynamoDBContributorInsights-PKT-t-g-7",
		"DynamoDBContributorInsights-SKC-t-g-7", "DynamoDBContributorInsights-SKT-t-g-7"}
	if !slices.Equal(all, want) {
		t.Fatalf("Rules = %v", all)
	}
	if got := Rules("t", false, &Record{Mode: Throttled, Stamp: 7}); !slices.Equal(got, []string{"DynamoDBContributorInsights-PKT-t-7"}) {
		t.Fatalf("throttled, no sort key: %v", got)
	}
}

// TestToken: a NextToken reads back as its position; anything else is
// DynamoDB's "Invalid NextToken".
func TestToken(t *testing.T) {
	tok := Token(Position("t", "g"))
	if pos, err := ParseToken(&tok); err != nil || pos != Position("t", "g") {
		t.Fatalf("ParseToken(Token) = %q %v", pos, err)
	}
	bad := "bm90IGEgcG9zaXRpb24" // base64 of "not a position"
	if _, err := ParseToken(&bad); err == nil || err.Error() != "ValidationException: Invalid NextToken: "+bad {
		t.Fatalf("bad token: %v", err)
	}
	if err := CheckIndexName(&[]string{"ab"}[0]); err == nil {
		t.Fatal("a two-character IndexName passed")
	}
}
