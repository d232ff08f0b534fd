//go:build !tikvmock

package tikv

import "errors"

func connectMock(string) (*Cluster, error) {
	return nil, errors.New("tikv: this build has no mock cluster (build with -tags tikvmock)")
}
