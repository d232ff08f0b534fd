package backup

import (
	"cmp"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// The requests' answers about backups: the ARN a request names, the
// refusals of DeleteBackup, ListBackups' selection and the descriptions
// of a backup (the core looks the backup up and hands in its table's
// definition as a Source).

// Source is what the descriptions of a backup show of its table, as the
// backup recorded it (Record.Source, the core's table record).
type Source struct {
	Name        string // the table's name
	TableID     uint64 // the ID its items were copied from
	Desc        *wire.TableDescription
	BillingMode string
	// TTLAttribute is the table's time to live attribute; "" when TTL was
	// off.
	TTLAttribute string
}

// NotFound is the BackupNotFoundException for an ARN that names no
// backup.
func NotFound(arn string) *ddberr.Error {
	return ddberr.BackupNotFound("Backup not found: " + arn)
}

// CheckARN refuses what is not a backup ARN,
// arn:<partition>:dynamodb:<region>:<account>:table/<name>/backup/<id>, in
// DynamoDB's words (a probe of DynamoDB, 2026-10-09): "Invalid Backup ARN"
// for something else than an ARN of a backup (a table's ARN, a plain
// string), "BackupArn is not valid" for a backup ARN of another partition
// or service. The region is not compared: DynamoDB ignores it.
func CheckARN(s string) *ddberr.Error {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return ddberr.Validation("Invalid Backup ARN")
	}
	rest, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return ddberr.Validation("Invalid Backup ARN")
	}
	name, id, ok := strings.Cut(rest, "/backup/")
	if !ok || name == "" || id == "" || strings.Contains(id, "/") {
		return ddberr.Validation("Invalid Backup ARN")
	}
	if !strings.HasPrefix(parts[1], "aws") || parts[2] != "dynamodb" {
		return ddberr.Validation("BackupArn is not valid")
	}
	return nil
}

// CheckDeletable refuses DeleteBackup of b (named arn in the request)
// in DynamoDB's words: a system backup, one still being created, one
// restoring restores are reading.
func (b *Record[S]) CheckDeletable(arn string, restoring int) *ddberr.Error {
	if b.System {
		// "Invalid Request: " as a probe of DynamoDB quotes it verbatim
		// (2026-10-08; its date is cut off there: RFC 3339 here).
		return ddberr.Validation("Invalid Request: User is not allowed to delete the system backup with arn " + arn +
			". It will automatically expire on " + b.Expires.UTC().Format(time.RFC3339))
	}
	if b.Status == Creating {
		return ddberr.BackupInUse("Backup is being created: " + arn)
	}
	if restoring > 0 {
		return ddberr.BackupInUse("Backup is being used to restore table: " + arn)
	}
	return nil
}

// List is ListBackups' answer over all, a table's backups oldest first:
// those of the BackupType asked, created within the time range (lower
// bound inclusive, upper bound exclusive, to the millisecond, as
// DynamoDB), after ExclusiveStartBackupArn's place in the order (whether
// or not that backup still exists), at most Limit of them. source is the
// table each backup was taken of.
func List[S any](all []*Record[S], in *wire.ListBackupsInput, source func(*Record[S]) Source) (*wire.ListBackupsOutput, *ddberr.Error) {
	lo, hi := in.TimeRangeLowerBound, in.TimeRangeUpperBound
	if lo != nil && hi != nil && hi.Before(lo.Time) {
		return nil, ddberr.Validation("Time range lower bound must be less than or equal to upper bound")
	}
	var match []*Record[S]
	for _, b := range all {
		if !b.TypeMatches(in.BackupType) {
			continue
		}
		ms := b.Created.UnixMilli()
		if lo != nil && ms < lo.UnixMilli() || hi != nil && ms >= hi.UnixMilli() {
			continue
		}
		if s := in.ExclusiveStartBackupArn; s != nil && b.Position().Compare(PositionOf(*s)) <= 0 {
			continue
		}
		match = append(match, b)
	}
	out := &wire.ListBackupsOutput{BackupSummaries: []wire.BackupSummary{}}
	if limit := int(wire.Deref(in.Limit)); limit > 0 && len(match) > limit {
		match = match[:limit]
		out.LastEvaluatedBackupArn = wire.Ptr(match[limit-1].ARN)
	}
	for _, b := range match {
		out.BackupSummaries = append(out.BackupSummaries, b.Summary(source(b)))
	}
	return out, nil
}

// Summary is ListBackups' line for a backup of the table src: its
// BackupDetails and its table's name, ID and ARN.
func (b *Record[S]) Summary(src Source) wire.BackupSummary {
	bd, d := b.Details(), src.Desc
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

// Description is the BackupDescription of a backup of the table src: the
// backup, and the table it was taken of as it was then.
func (b *Record[S]) Description(src Source) *wire.BackupDescription {
	d := src.Desc
	st := &wire.SourceTableDetails{
		TableName:             d.TableName,
		TableId:               d.TableId,
		TableArn:              d.TableArn,
		TableSizeBytes:        wire.Ptr(b.SizeBytes),
		ItemCount:             wire.Ptr(b.ItemCount),
		KeySchema:             d.KeySchema,
		TableCreationDateTime: d.CreationDateTime,
		BillingMode:           cmp.Or(src.BillingMode, "PROVISIONED"),
		OnDemandThroughput:    d.OnDemandThroughput,
	}
	if pt := d.ProvisionedThroughput; pt != nil {
		st.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: pt.ReadCapacityUnits, WriteCapacityUnits: pt.WriteCapacityUnits}
	}
	return &wire.BackupDescription{
		BackupDetails:             b.Details(),
		SourceTableDetails:        st,
		SourceTableFeatureDetails: b.features(src),
	}
}

// features is what a backup keeps of its table besides the keys:
// indexes, stream and TTL settings, encryption ({} for a table with none
// of them, as DynamoDB describes it).
func (b *Record[S]) features(src Source) *wire.SourceTableFeatureDetails {
	if b.System {
		return &wire.SourceTableFeatureDetails{} // DynamoDB describes none for a system backup
	}
	d := src.Desc
	f := &wire.SourceTableFeatureDetails{SSEDescription: d.SSEDescription}
	for _, l := range d.LocalSecondaryIndexes {
		f.LocalSecondaryIndexes = append(f.LocalSecondaryIndexes, wire.LocalSecondaryIndexInfo{IndexName: l.IndexName, KeySchema: l.KeySchema, Projection: l.Projection})
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus == "DELETING" {
			continue
		}
		gi := wire.GlobalSecondaryIndexInfo{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection, OnDemandThroughput: g.OnDemandThroughput}
		if pt := g.ProvisionedThroughput; pt != nil {
			gi.ProvisionedThroughput = &wire.ProvisionedThroughput{ReadCapacityUnits: pt.ReadCapacityUnits, WriteCapacityUnits: pt.WriteCapacityUnits}
		}
		f.GlobalSecondaryIndexes = append(f.GlobalSecondaryIndexes, gi)
	}
	for _, v := range d.VectorIndexes {
		if v.IndexStatus == "DELETING" {
			continue
		}
		f.VectorIndexes = append(f.VectorIndexes, wire.VectorIndexInfo{IndexName: v.IndexName, Dimensions: v.Dimensions,
			DistanceFunction: v.DistanceFunction, Projection: v.Projection, SearchSchema: v.SearchSchema, VectorAttribute: v.VectorAttribute})
	}
	if s := d.StreamSpecification; s != nil && wire.Deref(s.StreamEnabled) {
		f.StreamDescription = &wire.StreamSpecification{StreamEnabled: s.StreamEnabled, StreamViewType: s.StreamViewType}
	}
	if src.TTLAttribute != "" {
		f.TimeToLiveDescription = &wire.TimeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: wire.Ptr(src.TTLAttribute)}
	}
	return f
}
