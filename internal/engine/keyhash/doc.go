// Package keyhash owns DynamoDB's partition hash, which fixes the order of
// Scan and the ranges of parallel Scan segments: item keys and
// secondary-index entry keys both begin with it (the engine's keys.go,
// package indexes).
//
// State: none. It is pure functions of a key's values, so there is nothing
// to keep in memory or to rebuild at Open, and every node sharing a store
// computes the same hashes.
package keyhash
