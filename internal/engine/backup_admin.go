package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/wire"
)

// backupNotFound is the BackupNotFoundException for an ARN that names no
// backup.
func backupNotFound(arn string) *ddberr.Error {
	return ddberr.BackupNotFound("Backup not found: " + arn)
}

// findBackup is the backup a BackupArn member of action names:
// checkBackupARN's refusals, AccessDeniedException for another account's
// (arn_access.go), BackupNotFoundException when no backup has it.
func (e *Engine) findBackup(action, arn string) (*backupRecord, error) {
	if err := checkBackupARN(arn); err != nil {
		return nil, err
	}
	if err := e.authorizeARN(action, arn); err != nil {
		return nil, err
	}
	b, ok := e.backup(arn)
	if !ok {
		return nil, backupNotFound(arn)
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
	d := backupDescription(b)
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
	if b.System {
		// "Invalid Request: " as a probe of DynamoDB quotes it verbatim
		// (2026-10-08; its date is cut off there: RFC 3339 here).
		return nil, ddberr.Validation("Invalid Request: User is not allowed to delete the system backup with arn " + arn +
			". It will automatically expire on " + b.Expires.UTC().Format(time.RFC3339))
	}
	if b.Status == backupCreating {
		return nil, ddberr.BackupInUse("Backup is being created: " + arn)
	}
	if e.restoresFrom(b.ARN) > 0 {
		return nil, ddberr.BackupInUse("Backup is being used to restore table: " + arn)
	}
	if err := e.removeBackup(b); err != nil {
		return nil, err
	}
	e.goBackground(func() { e.purgeUntilClose(backupItemRange(b)) })
	gone := *b
	gone.Status = backupDeleted
	d := backupDescription(&gone)
	d.BackupDetails.BackupArn = cpPtr(arn) // as given, like DescribeBackup
	return &wire.DeleteBackupOutput{BackupDescription: d}, nil
}

// ListBackups lists the user backups, oldest first, optionally only those
// of one table and those created within a time range (lower bound
// inclusive, upper bound exclusive, to the millisecond, as DynamoDB).
// ExclusiveStartBackupArn is a position: the listing resumes after the
// place its ARN's creation time gives it, whether or not that backup
// still exists. SYSTEM and AWS_BACKUP backups do not exist here.
func (e *Engine) ListBackups(ctx context.Context, in *wire.ListBackupsInput) (*wire.ListBackupsOutput, error) {
	lo, hi := in.TimeRangeLowerBound, in.TimeRangeUpperBound
	if lo != nil && hi != nil && hi.Before(lo.Time) {
		return nil, ddberr.Validation("Time range lower bound must be less than or equal to upper bound")
	}
	var match []*backupRecord
	for _, b := range e.backupsOf(cpDeref(in.TableName)) {
		if !b.TypeMatches(in.BackupType) {
			continue
		}
		ms := b.Created.UnixMilli()
		if lo != nil && ms < lo.UnixMilli() || hi != nil && ms >= hi.UnixMilli() {
			continue
		}
		if s := in.ExclusiveStartBackupArn; s != nil && b.Position().Compare(backup.PositionOf(*s)) <= 0 {
			continue
		}
		match = append(match, b)
	}
	out := &wire.ListBackupsOutput{BackupSummaries: []wire.BackupSummary{}}
	if limit := int(cpDeref(in.Limit)); limit > 0 && len(match) > limit {
		match = match[:limit]
		out.LastEvaluatedBackupArn = cpPtr(match[limit-1].ARN)
	}
	for _, b := range match {
		out.BackupSummaries = append(out.BackupSummaries, backupSummary(b))
	}
	return out, nil
}

// backupsOf returns the backups of the named table (a name or a table
// ARN; every backup when empty), oldest first.
func (e *Engine) backupsOf(table string) []*backupRecord {
	name := tableNameOf(table)
	return e.bk.Sorted(func(b *backupRecord) bool { return table == "" || b.Source.Name == name })
}

// backupSummary is ListBackups' line for a backup: its BackupDetails and
// its table's name, ID and ARN.
func backupSummary(b *backupRecord) wire.BackupSummary {
	bd, d := b.Details(), &b.Source.Desc
	return wire.BackupSummary{
		BackupArn:              bd.BackupArn,
		BackupName:             bd.BackupName,
		BackupSizeBytes:        bd.BackupSizeBytes,
		BackupStatus:           bd.BackupStatus,
		BackupType:             bd.BackupType,
		BackupCreationDateTime: bd.BackupCreationDateTime,
		BackupExpiryDateTime:   bd.BackupExpiryDateTime,
		TableArn:               d.TableArn,
		TableId:                d.TableId,
		TableName:              d.TableName,
	}
}

// backupDescription is the BackupDescription of a backup: the backup, and
// the table it was taken of as it was then.
func backupDescription(b *backupRecord) *wire.BackupDescription {
	d := &b.Source.Desc
	src := &wire.SourceTableDetails{
		TableName:             d.TableName,
		TableId:               d.TableId,
		TableArn:              d.TableArn,
		TableSizeBytes:        cpPtr(b.SizeBytes),
		ItemCount:             cpPtr(b.ItemCount),
		KeySchema:             d.KeySchema,
		TableCreationDateTime: d.CreationDateTime,
		BillingMode:           cmp.Or(b.Source.BillingMode, "PROVISIONED"),
		OnDemandThroughput:    d.OnDemandThroughput,
	}
	if pt := d.ProvisionedThroughput; pt != nil {
		src.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: pt.ReadCapacityUnits, WriteCapacityUnits: pt.WriteCapacityUnits}
	}
	return &wire.BackupDescription{
		BackupDetails:             b.Details(),
		SourceTableDetails:        src,
		SourceTableFeatureDetails: backupFeatures(b),
	}
}

// backupFeatures is what a backup keeps of its table besides the keys:
// indexes, stream and TTL settings, encryption ({} for a table with none
// of them, as DynamoDB describes it).
func backupFeatures(b *backupRecord) *wire.SourceTableFeatureDetails {
	if b.System {
		return &wire.SourceTableFeatureDetails{} // DynamoDB describes none for a system backup
	}
	rec := &b.Source
	d := &rec.Desc
	f := &wire.SourceTableFeatureDetails{SSEDescription: d.SSEDescription}
	for _, l := range d.LocalSecondaryIndexes {
		f.LocalSecondaryIndexes = append(f.LocalSecondaryIndexes, wire.LocalSecondaryIndexInfo{IndexName: l.IndexName, KeySchema: l.KeySchema, Projection: l.Projection})
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus == StatusDeleting {
			continue
		}
		gi := wire.GlobalSecondaryIndexInfo{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection, OnDemandThroughput: g.OnDemandThroughput}
		if pt := g.ProvisionedThroughput; pt != nil {
			gi.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: pt.ReadCapacityUnits, WriteCapacityUnits: pt.WriteCapacityUnits}
		}
		f.GlobalSecondaryIndexes = append(f.GlobalSecondaryIndexes, gi)
	}
	for _, v := range d.VectorIndexes {
		if v.IndexStatus == StatusDeleting {
			continue
		}
		f.VectorIndexes = append(f.VectorIndexes, wire.VectorIndexInfo{IndexName: v.IndexName, Dimensions: v.Dimensions,
			DistanceFunction: v.DistanceFunction, Projection: v.Projection, SearchSchema: v.SearchSchema, VectorAttribute: v.VectorAttribute})
	}
	if s := d.StreamSpecification; s != nil && cpDeref(s.StreamEnabled) {
		f.StreamDescription = &wire.StreamSpecification{StreamEnabled: s.StreamEnabled, StreamViewType: s.StreamViewType}
	}
	if rec.TTL != nil && rec.TTL.Enabled {
		f.TimeToLiveDescription = &wire.TimeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: cpPtr(rec.TTL.Attribute)}
	}
	return f
}
