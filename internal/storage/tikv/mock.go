//go:build tikvmock

package tikv

import (
	"fmt"
	"sync"

	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"
)

// The mock cluster of this process: its data directory can be opened once.
var mock struct {
	sync.Mutex
	dir  string
	kv   *tikv.KVStore
	refs int
}

// connectMock starts (or shares) client-go's in-process mock cluster, with
// its data in dir.
func connectMock(dir string) (*Cluster, error) {
	mock.Lock()
	defer mock.Unlock()
	if mock.kv == nil {
		client, cluster, pd, err := testutils.NewMockTiKV(dir, nil)
		if err != nil {
			return nil, fmt.Errorf("tikv: mock cluster in %s: %w", dir, err)
		}
		testutils.BootstrapWithSingleStore(cluster)
		kvs, err := tikv.NewTestTiKVStore(client, pd, nil, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("tikv: mock cluster: %w", err)
		}
		mock.dir, mock.kv = dir, kvs
	} else if dir != mock.dir {
		return nil, fmt.Errorf("tikv: the mock cluster of this process keeps its data in %s, not %s", mock.dir, dir)
	}
	mock.refs++
	return &Cluster{kv: mock.kv, close: releaseMock}, nil
}

func releaseMock() error {
	mock.Lock()
	defer mock.Unlock()
	if mock.refs--; mock.refs > 0 {
		return nil
	}
	err := mock.kv.Close()
	mock.kv = nil
	return err
}
