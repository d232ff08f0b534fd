package tags

import (
	"testing"

	"github.com/kura-db/kura/internal/wire"
)

func tag(k, v string) wire.Tag { return wire.Tag{Key: &k, Value: &v} }

// TestCheck: AWS's characters and lengths, no aws: prefix, no
// duplicates, in DynamoDB's words.
func TestCheck(t *testing.T) {
	long := make([]rune, 129)
	for i := range long {
		long[i] = 'k'
	}
	for _, tc := range []struct {
		tags []wire.Tag
		msg  string
	}{
		{[]wire.Tag{tag("env", "prod"), tag("team", "a b:c/d=e+f-g@h")}, ""},
		{[]wire.Tag{tag("", "x")}, "The Tag Key provided is invalid, Key: "},
		{[]wire.Tag{tag(string(long), "x")}, "The Tag Key provided is invalid, Key: " + string(long)},
		{[]wire.Tag{tag("AWS:x", "x")}, "Tag Key cannot be prefixed with aws:, Key: AWS:x"},
		{[]wire.Tag{tag("k", "bad*")}, "The Tag Value provided is invalid, Value: bad*"},
		{[]wire.Tag{{Key: &[]string{"k"}[0]}}, "The Tag Value provided is invalid, Value: null"},
		{[]wire.Tag{tag("k", "1"), tag("k", "2")}, "Duplicate Tag Keys provided as input: Duplicate Tag Key found k"},
	} {
		err := Check(tc.tags)
		if (tc.msg == "") != (err == nil) || (err != nil && err.Message != tc.msg) {
			t.Errorf("Check(%v) = %v, want %q", tc.tags, err, tc.msg)
		}
	}
	if err := CheckKey(nil); err == nil || err.Message != "The Tag Key provided is invalid, Key: null" {
		t.Errorf("CheckKey(nil) = %v", err)
	}
}

// TestMergeAndRemove: Merge overwrites a key's value and appends new
// ones without changing its input, refusing more than Max; Remove
// ignores absent keys.
func TestMergeAndRemove(t *testing.T) {
	cur := []wire.Tag{tag("a", "1"), tag("b", "2")}
	got, err := Merge(cur, []wire.Tag{tag("b", "3"), tag("c", "4")})
	if err != nil || len(got) != 3 || *got[1].Value != "3" || *got[2].Key != "c" || *cur[1].Value != "2" {
		t.Fatalf("Merge = %v %v (cur %v)", got, err, cur)
	}
	var many []wire.Tag
	for i := range Max {
		many = append(many, tag(string(rune('A'+i)), "v"))
	}
	if _, err := Merge(many, []wire.Tag{tag("one-more", "v")}); err == nil || err.Message != MsgTooMany {
		t.Fatalf("Merge over Max: %v", err)
	}
	if _, err := Merge(many, []wire.Tag{tag("A", "w")}); err != nil {
		t.Fatalf("overwriting at Max: %v", err)
	}
	left := Remove(got, []string{"a", "zz"})
	if len(left) != 2 || *left[0].Key != "b" || len(got) != 3 || *got[0].Key != "a" {
		t.Fatalf("Remove = %v (input %v)", left, got)
	}
}
