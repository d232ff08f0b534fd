package postgres

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/storagetest"
)

// testURL is the PostgreSQL the tests use (test/pg/cluster.sh starts a
// private one). Without it they skip, unless KURA_REQUIRE_POSTGRES=1 (CI)
// makes that a failure.
func testURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("KURA_TEST_POSTGRES")
	if url == "" {
		if os.Getenv("KURA_REQUIRE_POSTGRES") == "1" {
			t.Fatal("KURA_REQUIRE_POSTGRES=1 but KURA_TEST_POSTGRES (a connection URL) is unset")
		}
		t.Skip("KURA_TEST_POSTGRES (a connection URL) is unset: start a cluster with test/pg/cluster.sh start DIR")
	}
	return url
}

func connect(t testing.TB) *Cluster {
	t.Helper()
	c, err := Connect(testURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

var nsN atomic.Int64

// freshNamespace names a namespace no earlier run used.
func freshNamespace(t testing.TB) string {
	return fmt.Sprintf("test-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), nsN.Add(1))
}

func TestConformance(t *testing.T) {
	c := connect(t)
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := c.Store(freshNamespace(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
	if n := c.open.Load(); n != 0 {
		t.Errorf("%d snapshots or transactions left open", n)
	}
}

// TestNamespaces checks that stores of different namespaces see only their
// own keys, also in open-ended scans either way, and that a namespace with
// a '/' (which would nest one prefix in another) is refused.
func TestNamespaces(t *testing.T) {
	c := connect(t)
	base := freshNamespace(t)
	open := func(ns string) storage.Store {
		s, err := c.Store(ns)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, ab := open(base+"a"), open(base+"ab")
	for _, w := range []struct {
		s storage.Store
		k string
	}{{a, "k1"}, {a, "k2"}, {ab, "k0"}, {ab, "k3"}} {
		tx, _ := w.s.Begin()
		_ = tx.Set([]byte(w.k), []byte(w.k))
		if err := tx.Commit(storage.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(s storage.Store, reverse bool) []string {
		sn, err := s.NewSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		defer sn.Close()
		it, _ := sn.NewIterator(storage.IterOptions{Reverse: reverse})
		defer it.Close()
		var out []string
		for it.Next() {
			out = append(out, string(it.Key()))
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
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
		if _, err := c.Store(bad); err == nil {
			t.Errorf("namespace %q accepted", bad)
		}
	}
}

// put commits key/value pairs in one transaction.
func put(t testing.TB, s storage.Store, kv ...string) {
	t.Helper()
	tx, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		_ = tx.Set([]byte(kv[i]), []byte(kv[i+1]))
	}
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}
