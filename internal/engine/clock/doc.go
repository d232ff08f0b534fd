// Package clock owns the clock an operator can move: Admin, a base clock
// plus an offset that the --admin endpoint /admin/clock/advance moves
// forward, so tests and demonstrations can age TTL values, shard
// iterators, stream records and pending status transitions without
// waiting. The engine takes any Clock (engine.Config.Clock); the server
// gives it an Admin one per database when the admin endpoints are on.
//
// State in memory: the offset, which is not stored: after a restart the
// clock is the base clock again. Another node sharing the store keeps its
// own offset; moving the clock of one node does not move the others' (and
// lease expiries never follow it: engine.Config.LeaseClock).
package clock
