// Package server assembles one Kura instance: the storage backend, the
// engine, and the HTTP API on a listener. cmd/kura runs one from flags;
// pkg/embed runs one inside a Go test.
//
// Start binds the listeners first, then locks the data directory
// (lock.go: kura.pid names the holder), then opens storage, so that a
// port in use or a directory in use stops the start before anything is
// written.
//
// In memory it keeps the open databases (databases.go): the shared one,
// or with Config.PerCredential one per access key ID and region, opened on
// a request's first use in a folder named by folderName (names.go). On
// disk at most a bound of those stay open; the least recently used one no
// request holds is closed to open another, and reopened from its folder
// when a request needs it, so nothing but the --admin clock offsets
// (kept per database across a close) is lost by closing. Everything else
// is rebuilt from storage when a database opens. With PerCredential and
// two or more regions it also keeps each access key's global tables
// (keyrepl.go): a replication.Group over the key's databases, which stay
// pinned open (acquired, never released) from the key's first
// ReplicaUpdates, or from the start for every key with a replication
// folder on disk, until Shutdown.
//
// A storage fault (pebble.Options.OnFatal) stops the instance: fail logs
// the cause, closes the listeners and connections and delivers the fault
// on Done; Shutdown then returns it without closing the failed store, and
// cmd/kura exits non-zero. The health check (GET /) answers 503 while a
// store reports a problem (storage.HealthReporter).
//
// The --metrics listener opens with the others, before the API server
// exists; with --iam-file its scrapes are answered 503 until Start has
// made the API server, which then authorizes each (api.Server.RequireAdmin).
package server
