// Package pitr owns the point-in-time recovery history of item changes: for
// every table with point-in-time recovery on, the image each change of an
// item replaced, written in the change's own storage transaction (Log is a
// change.Subsystem of the engine's write path).
//
// Key layout (integers big-endian):
//
//	"p" tableID(8) time(8, Unix ns) → flag(1) uvarint(len(suffix)) suffix [old item]
//
// suffix is the item's storage key without its table's prefix
// (change.Change.Suffix); flag is 1 when the item existed before the change
// (its stored form follows) and 0 when the change created it. Because the
// entry commits with the change, the table as it was at any time T of the
// recovery window is the table now with each item changed since T replaced
// by the image its first change after T replaced; the engine's restore
// walks the entries after T with Key, Prefix and DecodeEntry.
//
// State in memory:
//   - which tables record (by table ID): rebuilt from the catalog, the
//     engine calls SetRecording for each table version it builds (at Open
//     and on every catalog change) and when a backup or export needs the
//     history of a table without recovery on;
//   - the last change time handed out (Next), so that no two entries of a
//     table share a key and the changes of one item keep their order: not
//     persisted, it starts from the clock after a restart (as entry keys do).
//
// Another node writing to the same store would need the same recording
// flags (from the catalog) and change times that never collide with this
// node's: today times are unique only within one process.
//
// The window rules are the package's too (window.go): the span a table
// can be restored to (Window: DynamoDB's default 35 days, five minutes
// behind the present), DescribeContinuousBackups' description of it and
// UpdateContinuousBackups' own check (CheckUpdate). Trimming entries older
// than a table's recovery window is the engine's (it keeps each table's
// window in its catalog record; one node at a time, the holder of the
// lease "pitr"); this package only names the ranges.
package pitr
