// Package storage is Kura's ordered, transactional key-value interface and
// its backends. The interface is deliberately small and shaped so that a
// distributed transactional engine (TiKV through client-go's txnkv) can
// implement it later: point reads, bounded forward/reverse iteration over a
// consistent snapshot, and atomic multi-key commit with optimistic conflict
// detection.
//
// Two optional interfaces let a backend serve a read that touches one key
// (PointReader) or opens one iterator (RangeReader) without a snapshot,
// since such a read is consistent by itself; the engine falls back to a
// snapshot where a backend lacks them.
//
// Backends: pebble (default, durable), memory, postgres (a PostgreSQL
// database through pgx), and tikv (a TiKV cluster through client-go's
// txnkv; the server links it only with the tikv build tag). Every backend must pass the conformance suite in storage/storagetest.
package storage
