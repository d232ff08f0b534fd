// Package restore writes the items of a restore into its new table: a
// backup's copy (FromBackup) or a table as it was at a point in time
// (AtTime), read through one snapshot.Reader, decoded and handed in
// chunks of Chunk items to a Target — the core's write path for the new
// table (the index entries and vector marks of each item are written with
// it, in one storage transaction per chunk). Between chunks it yields,
// and stops when the engine closes.
//
// It also shapes the requests (request.go, attime.go): the CreateTable a
// restore amounts to (Request), a point-in-time restore's own checks and
// source (CheckAtTime, SourceNotFound), the time it restores to (Time),
// the refusal of a taken target name (TargetTaken) and the response
// (Response); and it runs them (service.go, Restores):
// RestoreTableFromBackup's and RestoreTableToPointInTime's flow in
// DynamoDB's order, each restore under the core's lease "restore/" +
// table ID, and Adopt.
//
// The core implements Core (backup_host.go): the DDL lock, the backups
// (package backup's, as Backup views), catalog lookups, the creation of
// the CREATING target with CreateTable's validation, its write path and
// its finish (restore_target.go), snapshots and leases. The package never
// imports internal/engine.
//
// State in memory: the set of targets whose restore runs (or waits for
// its lease) on this node, and the chunk being gathered. Nothing else:
// the restores in progress are the catalog's tables whose RestoreSummary
// says so (Core.Pending), started over by Adopt at Open and, in cluster
// mode, every lease TTL on every node, so another node finishes a restore
// whose node died once its lease lapsed (writing an item again changes
// nothing).
package restore
