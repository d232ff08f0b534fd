// Package server assembles one Kura instance: the storage backend, the
// engine, and the HTTP API on a listener. cmd/kura runs one from flags;
// pkg/embed runs one inside a Go test.
//
// A storage fault (pebble.Options.OnFatal) stops the instance: fail logs
// the cause, closes the listeners and connections and delivers the fault
// on Done; Shutdown then returns it without closing the failed store, and
// cmd/kura exits non-zero. The health check (GET /) answers 503 while a
// store reports a problem (storage.HealthReporter).
package server
