//go:build tikv

package server

import (
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/tikv"
)

// TiKVBuilt reports whether this binary can store data in TiKV.
const TiKVBuilt = true

func connectTiKV(pd []string) (tikvCluster, error) {
	c, err := tikv.Connect(pd)
	if err != nil {
		return nil, err
	}
	return cluster{c}, nil
}

type cluster struct{ *tikv.Cluster }

func (c cluster) Store(namespace string) (storage.Store, error) { return c.Cluster.Store(namespace) }
