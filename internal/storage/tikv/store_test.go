package tikv

import (
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

// TestNamespaces checks that namespaces of one cluster keep their keys
// apart (storagetest.Namespaces).
func TestNamespaces(t *testing.T) {
	c := NewCluster(mockCluster(t))
	storagetest.Namespaces(t, func(ns string) (storage.Store, error) { return c.Store(ns) })
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
