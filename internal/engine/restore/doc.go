// Package restore writes the items of a restore into its new table: a
// backup's copy (FromBackup) or a table as it was at a point in time
// (AtTime), read through one snapshot.Reader, decoded and handed in
// chunks of Chunk items to a Target — the core's write path for the new
// table (the index entries and vector marks of each item are written with
// it, in one storage transaction per chunk). Between chunks it yields,
// and stops when the engine closes.
//
// The core owns the rest of a restore: the request's validation, the new
// table (CREATING until Finish makes it ACTIVE), the backup records (kept
// by package backup), and resuming. The package never imports
// internal/engine.
//
// State in memory: none beyond the chunk being gathered. A restore a stop
// interrupted is started over by the core at its next Open from the
// table's RestoreSummary (writing an item again changes nothing), on the
// node holding the engine's lease "restore/" + table ID (another node takes
// it over once it lapses).
package restore
