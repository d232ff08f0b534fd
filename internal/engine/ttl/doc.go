// Package ttl owns Time to Live: the APIs DescribeTimeToLive and
// UpdateTimeToLive (DynamoDB's rules and words: one attribute, no repeated
// change, one change an hour), a table's setting (Record, kept in its
// table record), when an item has expired (a Number of epoch seconds in
// the past, and not more than five years in the past, as DynamoDB), and
// the expirer that scans the tables with TTL enabled and deletes their
// expired items — a background pass every interval, at once when asked
// (Kick: TTL was just enabled), and on demand (Pass: the admin
// endpoint), one pass at a time.
//
// The expirer is a job over package snapshot's reader and the core's
// write path: it reads each table in pages of Page items, each page from a
// snapshot of its own (Core.Snapshot, snapshot.Reader.ItemsFrom), and
// deletes each expired item through the write path (Core.Delete, a TTL
// deletion, so its stream record is the service's), where it is checked
// again under the item's lock. Foreground writers wait for one item's
// write at most. The core gives it a Core (engine/table_meta.go): the
// clock, the control-plane lock, the tables and their settings, the
// storing of a setting, the snapshot and the deletion. The package never
// imports internal/engine.
//
// State in memory: the lock that keeps passes one at a time and the kick
// channel. Nothing is stored but the settings (in the table records) and
// the background pass's cursor (in its lease, below), and nothing needs
// rebuilding: expiry is a function of the data and the clock, so after a
// restart (or on another node) a pass simply scans again. The background
// pass takes a Guard (the engine's lease "ttl"): among nodes sharing the
// store only its holder runs a round, from the cursor the last pass
// recorded (a table ID and the storage key of the next page, saved after
// every page), so a node taking the pass over from a dead one resumes
// where that one stopped. Pass (the admin endpoint) is unguarded: two
// nodes expiring the same table would each delete an item only if it is
// still expired under its lock. UpdateTimeToLive kicks only this node's
// pass; the lease holder finds the newly enabled table at its next round.
package ttl
