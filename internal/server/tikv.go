package server

import (
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// tikvCluster is a connection to a TiKV cluster (internal/storage/tikv),
// linked only into binaries built with the tikv tag: client-go's packages
// would double an idle server's resident memory (BENCHMARKS.md).
type tikvCluster interface {
	Store(namespace string) (storage.Store, error)
	// SharedStore is Store for a node of a cluster (Config.Cluster).
	SharedStore(namespace string) (storage.Store, error)
	// StartGC moves the cluster's GC safe point to lifetime ago every few
	// minutes, held back by this server's open transactions.
	StartGC(lifetime time.Duration)
	Close() error
}

// ValidNamespace reports whether name suits --tikv-namespace and
// --postgres-namespace: 1 to 64 letters, digits, '-' or '_' (no '.', which
// joins it to a database's name, and no '/', which ends a namespace's key
// prefix).
func ValidNamespace(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
