// Package snapshot is the one reader of "a table as a consistent snapshot
// holds it, now or at a past point in time". Every job that walks a whole
// table reads through it: backups (the copy of the items), restores from a
// backup, point-in-time restores and exports (the table as it was at a
// time in the recovery window), the item recount after an unclean
// shutdown, index backfills, and the TTL expirer (ItemsFrom: a page per
// snapshot, resumed after the last one).
//
// It owns the walk, not the key layout: the core hands it a Layout (where
// a table's items live, how long their table prefix is, where the table's
// change history lives and how an entry of it decodes), the way etcd's
// applier is handed its subsystems. It never imports internal/engine.
//
// State in memory: none beyond one open storage.Snapshot per Reader, which
// its Close releases. Nothing is rebuilt after a restart: a job that was
// reading a snapshot when the process stopped takes a new one when it is
// resumed (each job's record says how it resumes). Another node reads the
// same store the same way: a snapshot is a view of the store, not of a
// process.
package snapshot
