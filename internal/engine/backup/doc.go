// Package backup owns on-demand and system backups below the core: the
// stored Record of a backup (its ARN, name, status, size, the source
// table's record of the moment it was requested), the key layout of the
// records and of the copied items ("b" and "B" prefixes), the ARNs
// DynamoDB gives backups, ListBackups' order and BackupType filter, the
// BackupDetails of a record, the Registry of the backups and of the
// restores reading each, and Copy, which copies a table's items as a
// snapshot.Reader holds them into a backup; and the requests' answers
// (requests.go): which ARNs name a backup (CheckARN, NotFound),
// DeleteBackup's refusals (CheckDeletable), ListBackups' selection (List)
// and a backup's BackupDescription and BackupSummary, over a Source view
// of the recorded table the core hands in.
//
// The core owns the requests' flow (the DDL lock, looking the backup and
// the table up, authorization, the table a backup is taken of and its
// description, the store writes), the table record type a
// Record carries as its Source (Record is generic over it, so the
// package never imports internal/engine), and the restore, which package
// restore writes.
//
// State in memory: the Registry, every backup record by the resource part
// of its ARN, and a count of the restores in progress from each backup.
// The core rebuilds it at Open from the records under the "b" prefix
// (loadBackups: a backup still CREATING is copied again, restores in
// progress start over and count again); another node would read the same
// records from the store. A copy runs on the node holding the engine's
// lease "backup/" + ARN, and a finished one is never copied again.
package backup
