// Package restore writes the items of a restore into its new table: a
// backup's copy (FromBackup) or a table as it was at a point in time
// (AtTime), read through one snapshot.Reader, decoded and handed in
// chunks of Chunk items to a Target — the core's write path for the new
// table (the index entries and vector marks of each item are written with
// it, in one storage transaction per chunk). Between chunks it yields,
// and stops when the engine closes.
//
// It also shapes the requests (request.go, attime.go): the CreateTable a
// restore amounts to (Request: the source's definition, as a backup
// recorded it or as the table is now, with the request's Overrides), a
// point-in-time restore's own checks and source (CheckAtTime,
// SourceNotFound), the time it restores to (Time), the refusal of a taken
// target name (TargetTaken) and the response (Response).
//
// The core owns the rest of a restore: looking the backup or source table
// up, the CreateTable validation of the new table (package tables), the
// new table (CREATING until it is ACTIVE), the backup records (kept by
// package backup), and resuming. The package never imports
// internal/engine.
//
// State in memory: none beyond the chunk being gathered. A restore a stop
// interrupted is started over by the core at its next Open from the
// table's RestoreSummary (writing an item again changes nothing), on the
// node holding the engine's lease "restore/" + table ID (another node takes
// it over once it lapses).
package restore
