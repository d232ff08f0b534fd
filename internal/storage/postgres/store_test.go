package postgres

import (
	"fmt"
	"os"
	"strings"
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

// TestNamespaces checks that namespaces of one database keep their keys
// apart (storagetest.Namespaces), under a prefix no earlier run used.
func TestNamespaces(t *testing.T) {
	c := connect(t)
	base := freshNamespace(t)
	storagetest.Namespaces(t, func(ns string) (storage.Store, error) {
		if ns != "" && !strings.Contains(ns, "/") {
			ns = base + ns
		}
		return c.Store(ns)
	})
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
