// Package server assembles one Kura instance: the storage backend, the
// engine, and the HTTP API on a listener. cmd/kura runs one from flags;
// pkg/embed runs one inside a Go test.
package server
