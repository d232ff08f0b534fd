package restore

import (
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// CheckAtTime checks a RestoreTableToPointInTime on its own, in
// DynamoDB's order: exactly one of RestoreDateTime and
// UseLatestRestorableTime, then exactly one source. It returns the name of
// the source table.
func CheckAtTime(in *wire.RestoreTableToPointInTimeInput) (string, *ddberr.Error) {
	latest := wire.Deref(in.UseLatestRestorableTime)
	if in.RestoreDateTime != nil && latest {
		return "", ddberr.Validation("Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for point-in-time restore request. Please specify either RestoreDateTime time or UseLatestRestorableTime")
	}
	if in.RestoreDateTime == nil && !latest {
		return "", ddberr.Validation("Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both")
	}
	return sourceName(in)
}

// sourceName is the source table a point-in-time restore names: exactly
// one of SourceTableName and SourceTableArn.
func sourceName(in *wire.RestoreTableToPointInTimeInput) (string, *ddberr.Error) {
	switch {
	case in.SourceTableName != nil && in.SourceTableArn != nil:
		return "", ddberr.Validation("Must provide exactly one of: sourceTableArn, sourceTableName")
	case in.SourceTableName != nil:
		return *in.SourceTableName, nil
	case in.SourceTableArn == nil:
		return "", ddberr.Validation("The parameter 'TableName' is required")
	}
	arn := *in.SourceTableArn
	name := tables.NameOf(arn)
	if name == arn {
		return "", ddberr.Validation("sourceTableArn is not a valid ARN")
	}
	return name, nil
}

// SourceNotFound is the refusal of a point-in-time restore whose source
// table does not exist (or is still being created): bare when the source
// was named by ARN (a probe of DynamoDB in us-east-1, 2026-10-09).
func SourceNotFound(in *wire.RestoreTableToPointInTimeInput, name string) *ddberr.Error {
	if in.SourceTableArn != nil {
		return ddberr.TableNotFoundBare()
	}
	return ddberr.TableNotFoundException(name)
}

// Time is the time a point-in-time restore restores to: RestoreDateTime,
// which must lie within the source's recovery window [earliest, latest],
// or latest.
func Time(in *wire.RestoreTableToPointInTimeInput, earliest, latest time.Time) (time.Time, *ddberr.Error) {
	if in.RestoreDateTime == nil {
		return latest, nil
	}
	at := in.RestoreDateTime.Time
	if at.Before(earliest) || at.After(latest) {
		return at, ddberr.InvalidRestoreTime("RestoreDateTime '" + ISOSeconds(at) + "' must be within EarliestRestorableDateTime '" +
			ISOSeconds(earliest) + "' and LatestRestorableDateTime '" + ISOSeconds(latest) + "'")
	}
	return at, nil
}

// ISOSeconds formats a time as DynamoDB's restore (and export) errors
// quote it.
func ISOSeconds(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// TargetTaken refuses a restore into the name target of an existing
// table: TableInUseException while that table is itself being restored
// (it is CREATING with the RestoreSummary rs), TableAlreadyExistsException
// otherwise (DELETING included).
func TargetTaken(target, status string, rs *wire.RestoreSummary) *ddberr.Error {
	if rs != nil && status == tables.StatusCreating {
		from := wire.Deref(rs.SourceBackupArn)
		if from == "" {
			from = wire.Deref(rs.SourceTableArn)
		}
		return ddberr.TableInUse("Table: " + target + " is already being restored from backup: " + from)
	}
	return ddberr.TableAlreadyExists(target)
}

// Response makes d, DescribeTable's rendering of a restore's new table,
// the description the restore answers with: without warm throughput.
func Response(d *wire.TableDescription) {
	d.WarmThroughput = nil
	for i := range d.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes[i].WarmThroughput = nil
	}
}
