package catalog

import "encoding/binary"

// Prefix begins every table record's key: Prefix + table name.
const Prefix = 'c'

// Key is the storage key of the named table's record.
func Key(name string) []byte {
	return append([]byte{Prefix}, name...)
}

// The catalog's keys under the engine's "m" metadata prefix.
//
//	"m" "next-table-id"        → next table ID (uint64 BE)
//	"m" "clean"                → present after a clean Close (stats are valid)
//	"m" "stats/" tableID(8)    → ItemCount(8) TableSizeBytes(8) at last Close (cluster mode: last leased recount)
//	"m" "istats/" tableID(8)   → the table's index statistics at last Close (package indexes)
//	"m" "purge/" tableID(8)    → a deleted table whose items are still being removed
//	"m" "tgen/" tableID(8)     → the generation of the table's current record (nodes.go)
var (
	NextIDKey = []byte("mnext-table-id")
	CleanKey  = []byte("mclean")
)

const (
	statsPrefix = "mstats/"
	purgePrefix = "mpurge/"
	genPrefix   = "mtgen/"
)

// StatsKey holds table id's ItemCount and TableSizeBytes at the last
// clean Close (in cluster mode, at the last recount: SaveCounts).
func StatsKey(id uint64) []byte { return idKey(statsPrefix, id) }

// PurgeKey marks table id as deleted with its ranges still being purged;
// its value is PurgeKeepItems when a system backup keeps the items.
func PurgeKey(id uint64) []byte { return idKey(purgePrefix, id) }

// GenKey holds the generation of table id's current record.
func GenKey(id uint64) []byte { return idKey(genPrefix, id) }

func idKey(prefix string, id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(prefix), id)
}

// PurgeKeepItems is the value of a purge marker whose table's items a
// system backup keeps (the core's backup_system.go).
var PurgeKeepItems = []byte{1}
