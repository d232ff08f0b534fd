// Package ttl owns Time to Live expiry: when an item has expired (a Number
// of epoch seconds in the past, and not more than five years in the past,
// as DynamoDB), and the expirer that scans the tables with TTL enabled
// and deletes their expired items — a background pass every interval, at
// once when asked (Kick: TTL was just enabled), and on demand (Pass: the
// admin endpoint), one pass at a time.
//
// The core gives the expirer a Core: the tables to scan, a page of a
// table's expired keys read from one snapshot, and the deletion of one
// item through the core's write path (a TTL deletion, so its stream
// record is the service's). Foreground writers wait for one item's write
// at most. The package never imports internal/engine.
//
// State in memory: the lock that keeps passes one at a time and the kick
// channel. Nothing is stored but the background pass's cursor (in its
// lease, below) and nothing needs rebuilding: expiry is a function of the
// data and the clock, so after a restart (or on another
// node) a pass simply scans again. The background pass takes a Guard
// (the engine's lease "ttl"): among nodes sharing the store only its
// holder runs a round, from the cursor the last pass recorded (a table ID
// and the next page's key, saved after every page), so a node taking the
// pass over from a dead one resumes where that one stopped. Pass (the
// admin endpoint) is unguarded: two nodes expiring the same table would
// each delete an item only if it is still expired under its lock.
package ttl
