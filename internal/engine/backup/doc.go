// Package backup owns on-demand and system backups below the core: the
// stored Record of a backup (its ARN, name, status, size, the source
// table's record of the moment it was requested), the key layout of the
// records and of the copied items ("b" and "B" prefixes), the ARNs
// DynamoDB gives backups, ListBackups' order and BackupType filter, the
// BackupDetails of a record, Copy, which copies a table's items as a
// snapshot.Reader holds them into a backup, the requests' answers
// (requests.go: CheckARN, NotFound, CheckDeletable, List, a backup's
// BackupDescription and BackupSummary over a Source view of the recorded
// table), and Backups (service.go): CreateBackup, DescribeBackup,
// DeleteBackup and ListBackups, the system backup of a deleted table and
// its expiry, and the copies' runs.
//
// The core implements Core (backup_host.go): its DDL lock, catalog
// lookups, authorization, the ID counter, commits, snapshots, purges, the
// number of restores reading a backup (counted from the catalog: the
// tables CREATING whose RestoreSummary names it) and its leases. Record
// is generic over the core's table record, so the package never imports
// internal/engine.
//
// State in memory: the Registry, every backup record by the resource part
// of its ARN, and the set of backups whose copy runs (or waits for its
// lease) on this node. Open rebuilds the Registry from the records under
// the "b" prefix and resumes every copy still CREATING (from the table as
// it is then; dropped when the table is gone). With Config.Shared
// (cluster mode) every answer reads the records from the store again, so
// all nodes answer alike, a copy marks its backup AVAILABLE only if the
// stored record is still CREATING, and Adopt (every lease TTL) resumes the
// copies no node runs: a copy runs on the node holding the lease "backup/"
// + ARN, and a finished one is never copied again.
package backup
