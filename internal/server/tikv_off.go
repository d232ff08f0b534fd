//go:build !tikv

package server

import "errors"

// TiKVBuilt reports whether this binary can store data in TiKV.
const TiKVBuilt = false

func connectTiKV(Config) (tikvCluster, error) {
	return nil, errors.New("this Kura binary was built without TiKV support: build it with `go build -tags tikv ./cmd/kura`")
}
