// Package objstoretest is the conformance suite every objstore.Store
// passes: what the engine's exports and imports rely on, checked the same
// way against the folder store and against a real S3-compatible server.
//
// State: none. Each run works in the buckets of the store the caller
// hands it; nothing is kept between runs.
package objstoretest
