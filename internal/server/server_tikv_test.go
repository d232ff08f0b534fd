//go:build tikv && tikvmock

package server

import "testing"

// TestPerCredentialDatabasesOnTiKV runs the per-credential scenario on
// client-go's mock cluster: each access key and region gets its own
// namespace (and lease) in one cluster, and finds its tables again after a
// restart. CI runs it with -tags tikv,tikvmock.
func TestPerCredentialDatabasesOnTiKV(t *testing.T) {
	dir := t.TempDir()
	testPerCredentialDatabases(t, Config{
		DataDir:        dir,
		TiKVPD:         []string{"mock://" + dir},
		TiKVNamespace:  "servertest",
		TiKVGCLifetime: 0,
		PerCredential:  true,
	})
}
