//go:build tikv

package server

import (
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/tikv"
)

// TiKVBuilt reports whether this binary can store data in TiKV.
const TiKVBuilt = true

func connectTiKV(cfg Config) (tikvCluster, error) {
	c, err := tikv.Connect(cfg.TiKVPD, tikv.TLS{CA: cfg.TiKVCA, Cert: cfg.TiKVCert, Key: cfg.TiKVKey})
	if err != nil {
		return nil, err
	}
	return cluster{c}, nil
}

type cluster struct{ *tikv.Cluster }

func (c cluster) Store(namespace string) (storage.Store, error) { return c.Cluster.Store(namespace) }

func (c cluster) SharedStore(namespace string) (storage.Store, error) {
	return c.Cluster.SharedStore(namespace)
}
