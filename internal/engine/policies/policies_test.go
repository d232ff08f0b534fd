package policies

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
)

func wantErr(t *testing.T, err error, typ, msg string) {
	t.Helper()
	var e *ddberr.Error
	if !errors.As(err, &e) || e.Type != typ || e.Message != msg {
		t.Fatalf("got %v, want %s: %s", err, typ, msg)
	}
}

const arn = "arn:aws:dynamodb:us-east-1:000000000000:table/T"

// TestCheck: the size first, then internal/iam's grammar.
func TestCheck(t *testing.T) {
	ok := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:root"},"Action":"dynamodb:GetItem","Resource":"` + arn + `"}]}`
	if err := Check(ok, false); err != nil {
		t.Fatal(err)
	}
	big := ok + strings.Repeat(" ", MaxBytes-len(ok)+1)
	wantErr(t, Check(big, false), "ValidationException", "One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded")
	if err := Check("{", false); err == nil || err.(*ddberr.Error).Type != "ValidationException" {
		t.Fatalf("a document that does not parse: %v", err)
	}
}

// TestCheckRevision: what an ExpectedRevisionId demands of Put and Delete.
func TestCheckRevision(t *testing.T) {
	cur := &Record{Document: "{}", Revision: "1700000000000"}
	none, rev, other := NoPolicy, cur.Revision, "1600000000000"
	const pre = "Resource-based policy not found for the provided ResourceArn: "
	for _, tc := range []struct {
		expected *string
		cur      *Record
		put      bool
		msg      string
	}{
		{nil, cur, true, ""},
		{nil, nil, false, ""},
		{&none, nil, true, ""},
		{&rev, cur, true, ""},
		{&rev, cur, false, ""},
		{&none, cur, true, pre + "Requested policy update expecting none to be present for table T, but a policy exists with revision id 1700000000000."},
		{&none, nil, false, pre + arn},
		{&rev, nil, true, pre + arn},
		{&other, cur, false, pre + "Requested update for policy with revision id 1600000000000, but the policy associated to target table T has revision id 1700000000000."},
	} {
		err := CheckRevision(tc.expected, tc.cur, "T", arn, tc.put)
		if tc.msg == "" {
			if err != nil {
				t.Fatalf("%+v: %v", tc, err)
			}
			continue
		}
		wantErr(t, err, "PolicyNotFoundException", tc.msg)
	}
	wantErr(t, NotFound(arn), "PolicyNotFoundException", pre+arn)
}

// TestNextRevision: the attach time in milliseconds, always after the
// revision it replaces.
func TestNextRevision(t *testing.T) {
	now := time.UnixMilli(1700000000000)
	if got := NextRevision(now, ""); got != "1700000000000" {
		t.Fatal(got)
	}
	if got := NextRevision(now, "1700000000000"); got != "1700000000001" {
		t.Fatal(got)
	}
	if got := NextRevision(now, "1600000000000"); got != "1700000000000" {
		t.Fatal(got)
	}
}

// TestSet: the lookup, and the stored form (the table record's
// "policies" member) unchanged.
func TestSet(t *testing.T) {
	var s Set
	if _, ok := s.Document(""); ok {
		t.Fatal("a nil Set has a policy")
	}
	s = Set{"": {Document: "{}", Revision: "1"}}
	if d, ok := s.Document(""); !ok || d != "{}" {
		t.Fatal(d, ok)
	}
	if _, ok := s.Document(arn + "/stream/x"); ok {
		t.Fatal("the stream has the table's policy")
	}
	b, _ := json.Marshal(s)
	if string(b) != `{"":{"doc":"{}","rev":"1"}}` {
		t.Fatal(string(b))
	}
	if n := testing.AllocsPerRun(100, func() { s.Document("nope") }); n != 0 {
		t.Fatalf("a lookup of no policy allocates %v times", n)
	}
}
