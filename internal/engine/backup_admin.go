package engine

import (
	"context"

	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/wire"
)

// findBackup is the backup a BackupArn member of action names:
// backup.CheckARN's refusals, AccessDeniedException for another account's
// (arn_access.go), BackupNotFoundException when no backup has it.
func (e *Engine) findBackup(action, arn string) (*backupRecord, error) {
	if err := backup.CheckARN(arn); err != nil {
		return nil, err
	}
	if err := e.authorizeARN(action, arn); err != nil {
		return nil, err
	}
	b, ok := e.backup(arn)
	if !ok {
		return nil, backup.NotFound(arn)
	}
	return b, nil
}

// DescribeBackup describes a backup. Its ARN is answered as the request
// gave it (DynamoDB echoes an ARN naming another region back).
func (e *Engine) DescribeBackup(ctx context.Context, in *wire.DescribeBackupInput) (*wire.DescribeBackupOutput, error) {
	arn := cpDeref(in.BackupArn)
	b, err := e.findBackup("DescribeBackup", arn)
	if err != nil {
		return nil, err
	}
	d := b.Description(backupSource(b))
	d.BackupDetails.BackupArn = cpPtr(arn)
	return &wire.DescribeBackupOutput{BackupDescription: d}, nil
}

// DeleteBackup deletes a backup: its record at once, its items in the
// background. A backup that is still being created, or that a restore is
// reading, cannot be deleted.
func (e *Engine) DeleteBackup(ctx context.Context, in *wire.DeleteBackupInput) (*wire.DeleteBackupOutput, error) {
	arn := cpDeref(in.BackupArn)
	e.ddl.Lock()
	defer e.ddl.Unlock()
	b, err := e.findBackup("DeleteBackup", arn)
	if err != nil {
		return nil, err
	}
	if err := b.CheckDeletable(arn, e.restoresFrom(b.ARN)); err != nil {
		return nil, err
	}
	if err := e.removeBackup(b); err != nil {
		return nil, err
	}
	e.goBackground(func() { e.purgeUntilClose(backupItemRange(b)) })
	gone := *b
	gone.Status = backupDeleted
	d := gone.Description(backupSource(&gone))
	d.BackupDetails.BackupArn = cpPtr(arn) // as given, like DescribeBackup
	return &wire.DeleteBackupOutput{BackupDescription: d}, nil
}

// ListBackups lists the backups (of one table, when TableName names
// one) as backup.List selects them.
func (e *Engine) ListBackups(ctx context.Context, in *wire.ListBackupsInput) (*wire.ListBackupsOutput, error) {
	out, err := backup.List(e.backupsOf(cpDeref(in.TableName)), in, backupSource)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// backupsOf returns the backups of the named table (a name or a table
// ARN; every backup when empty), oldest first.
func (e *Engine) backupsOf(table string) []*backupRecord {
	name := tableNameOf(table)
	return e.bk.Sorted(func(b *backupRecord) bool { return table == "" || b.Source.Name == name })
}

// backupSource is what a backup's descriptions show of its table.
func backupSource(b *backupRecord) backup.Source {
	src := backup.Source{Desc: &b.Source.Desc, BillingMode: b.Source.BillingMode}
	if ttl := b.Source.TTL; ttl != nil && ttl.Enabled {
		src.TTLAttribute = ttl.Attribute
	}
	return src
}
