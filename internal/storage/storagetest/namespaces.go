package storagetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/storage"
)

// Namespaces checks a backend whose stores are namespaces of one cluster
// (tikv, postgres): stores of the namespaces "a" and "ab" see only their
// own keys, also in open-ended scans either way, and a namespace that is
// empty or holds a '/' (which would nest one prefix in another) is
// refused. open opens the store of a namespace; the test closes them.
func Namespaces(t *testing.T, open func(namespace string) (storage.Store, error)) {
	must := func(ns string) storage.Store {
		s, err := open(ns)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, ab := must("a"), must("ab")
	put(t, a, "k1", "k1", "k2", "k2")
	put(t, ab, "k0", "k0", "k3", "k3")
	keys := func(s storage.Store, reverse bool) []string {
		var out []string
		for _, kv := range snapScan(t, s, storage.IterOptions{Reverse: reverse}) {
			k, _, _ := strings.Cut(kv, "=")
			out = append(out, k)
		}
		return out
	}
	if got := keys(a, false); !slices.Equal(got, []string{"k1", "k2"}) {
		t.Errorf("a forward = %q", got)
	}
	if got := keys(a, true); !slices.Equal(got, []string{"k2", "k1"}) {
		t.Errorf("a reverse = %q", got)
	}
	if got := keys(ab, true); !slices.Equal(got, []string{"k3", "k0"}) {
		t.Errorf("ab reverse = %q", got)
	}
	for _, bad := range []string{"", "a/b"} {
		if s, err := open(bad); err == nil {
			_ = s.Close()
			t.Errorf("namespace %q accepted", bad)
		}
	}
}
