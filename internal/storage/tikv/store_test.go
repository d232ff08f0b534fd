package tikv

import (
	"slices"
	"strings"
	"testing"

	"github.com/tikv/client-go/v2/config"
	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/storagetest"
)

// mockCluster starts client-go's in-process cluster (one store, one
// region) and closes it when the test ends.
func mockCluster(t testing.TB) *tikv.KVStore {
	t.Helper()
	client, cluster, pd, err := testutils.NewMockTiKV("", nil)
	if err != nil {
		t.Fatal(err)
	}
	testutils.BootstrapWithSingleStore(cluster)
	kvs, err := tikv.NewTestTiKVStore(client, pd, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kvs.Close() })
	return kvs
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := NewCluster(mockCluster(t)).Store("test")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestNamespaces checks that stores of different namespaces on one cluster
// see only their own keys, also in open-ended scans either way, and that a
// namespace with a '/' (which would nest one prefix in another) is refused.
func TestNamespaces(t *testing.T) {
	c := NewCluster(mockCluster(t))
	open := func(ns string) storage.Store {
		s, err := c.Store(ns)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, ab := open("a"), open("ab")
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
		it, err := sn.NewIterator(storage.IterOptions{Reverse: reverse})
		if err != nil {
			t.Fatal(err)
		}
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

// TestConnectTLS checks that the TLS files reach client-go: missing ones
// fail the connection at once, naming the file.
func TestConnectTLS(t *testing.T) {
	defer config.UpdateGlobal(func(*config.Config) {})()
	_, err := Connect([]string{"127.0.0.1:1"}, TLS{CA: "/nonexistent/ca.pem", Cert: "/nonexistent/kura.pem", Key: "/nonexistent/kura-key.pem"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/kura.pem") {
		t.Fatalf("Connect with missing TLS files: %v", err)
	}
}
