// Package metatest is, for the tests of the packages whose Core gives
// them a table's record (tags, policies, insights, ttl), the core's
// catalog in memory: tables by name in the package's own view (T), the
// control-plane lock and a clock. Tests only.
//
// State in memory: a Catalog's tables, clock and lock, built by each test
// (New) and never persisted or rebuilt.
package metatest
