// Package catalog owns the table catalog's store side below the core: the
// table record (Record, with its index IDs, PITR and TTL settings; Clone,
// SetStatus, Settle of an elapsed CREATING/UPDATING), its decoded key
// schema (Schema: the key attributes, the secondary and vector index
// definitions the core builds its in-memory table from), and the keys,
// reads and writes of the catalog in the store:
//
//	"c" + tableName          → the table's Record (JSON)
//	"mnext-table-id"         → the next table ID (tables and backups share it)
//	"mtgen/" + tableID(8)    → the generation of the table's current record
//	"mclean"                 → present after a clean Close
//	"mstats/" + tableID(8)   → ItemCount and TableSizeBytes at that Close
//	"mistats/" + tableID(8)  → the table's index statistics (package indexes' encoding)
//	"mpurge/" + tableID(8)   → a deleted table whose ranges are still being purged
//
// Put is the one writer of records: it stores each version one
// generation higher and refuses (ErrStale, a storage conflict) a record
// built on an older generation than the stored one, so that nodes sharing
// the store never overwrite each other's definitions; StoredGen is the
// item write's check of its table's generation inside its own transaction
// (nodes.go). AllocID and CommitNewID allocate table and backup IDs with
// the counter read by Get, so two nodes never allocate one ID twice.
// Purge removes a deleted table's ranges in chunks, then its statistics
// and marker; Count counts a table's items through a snapshot reader
// (the recount after an unclean stop, and cluster mode's periodic one);
// SaveStats writes the figures and the clean marker at Close.
// LayoutSchemas gives package layout's migration the key schemas of the
// stored tables and backups.
//
// State in memory: a Catalog keeps only the next table ID to allocate
// (never behind the stored counter's last value this node saw; the stored
// counter is the truth, read in every allocation's transaction). Load
// rebuilds it at Open and returns the records (settled), whether the last
// Close was clean with the statistics it saved, and the pending purges;
// the core builds its tables from the records and keeps them, the map of
// built tables, itself. Another node sharing the store (issue #28) needs
// nothing of this node's memory: it reads the records and generations
// (Read, Gen, Records: with a point read when the store has one) and
// reloads what changed.
//
// It never imports internal/engine; the core wires a Catalog at Open
// (Options: the store, the point reader, durability, the conflict retry
// policy, the closing channel).
package catalog
