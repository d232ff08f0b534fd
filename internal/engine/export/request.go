package export

import (
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// Table is the table an ExportTableToPointInTime names, as the core's
// catalog has it.
type Table struct {
	ID                uint64
	Name, Status      string
	TableArn, TableId *string
	PITR              bool      // point-in-time recovery on
	Earliest          time.Time // the start of the recovery window, when PITR
	Keys              Keys      // checks a FilterSpecification against the table's keys
}

// Keys checks the expressions of a FilterSpecification against a table's
// key schema, as a Query's are checked (the core's rules).
type Keys interface {
	// CheckKeyCondition refuses a key condition that is not one on the
	// table's key.
	CheckKeyCondition(*expr.Condition) error
	// CheckFilterKeys refuses a filter (of the member by) naming a key
	// attribute.
	CheckFilterKeys(filter *expr.Condition, by string) error
}

// Catalog is what a request needs from the core's catalog.
type Catalog interface {
	// Lock and Unlock hold the core's DDL lock.
	Lock()
	Unlock()
	// Resolve is the name of the table a request's TableArn names, after
	// the ARN's checks and authorization.
	Resolve(action, arn string) (string, error)
	// Table is the named table; false when there is none.
	Table(name string) (Table, bool)
	// ChangeTime is now as a time of the point-in-time history: after
	// every change already logged, whatever the clock's resolution.
	ChangeTime(now time.Time) time.Time
}

// Export is ExportTableToPointInTime: a full export of a table as it was
// at ExportTime (now by default), read as a point-in-time restore reads
// it, written to the object store in DynamoDB's layout. Point-in-time
// recovery must be on, as in DynamoDB. Kura writes DYNAMODB_JSON; ION and
// INCREMENTAL_EXPORT are refused with a ValidationException that says so.
func (x *Exports) Export(in *wire.ExportTableToPointInTimeInput) (*wire.ExportDescription, error) {
	if x.opts.Objects == nil {
		return nil, ddberr.Validation("Exports to S3 need an object store: start Kura with --s3-dir or --s3-endpoint")
	}
	switch {
	case in.ExportFormat != "" && in.ExportFormat != FormatJSON:
		return nil, ddberr.Validation("ExportFormat " + in.ExportFormat + " is not supported by Kura; use DYNAMODB_JSON")
	case in.ExportType != "" && in.ExportType != TypeFull:
		return nil, ddberr.Validation("ExportType " + in.ExportType + " is not supported by Kura; use FULL_EXPORT")
	case in.IncrementalExportSpecification != nil:
		return nil, ddberr.Validation("IncrementalExportSpecification applies to INCREMENTAL_EXPORT, which Kura does not support")
	}
	cat := x.opts.Catalog
	arn := wire.Deref(in.TableArn)
	name, err := cat.Resolve("ExportTableToPointInTime", arn)
	if err != nil {
		return nil, err
	}
	if prev, err := x.ByToken(in); prev != nil || err != nil {
		return prev, err
	}
	cat.Lock()
	defer cat.Unlock()
	t, ok := cat.Table(name)
	if !ok || t.Status == "CREATING" || t.Status == "DELETING" {
		return nil, ddberr.TableNotFoundException(arn)
	}
	if !t.PITR {
		return nil, ddberr.PointInTimeRecoveryUnavailable("Point in time recovery is not enabled for table '" + t.Name + "'")
	}
	now := x.opts.Now()
	at := cat.ChangeTime(now).UTC()
	if in.ExportTime != nil {
		at = in.ExportTime.Time
		if at.Before(t.Earliest) || at.After(now) {
			return nil, ddberr.InvalidExportTime("ExportTime '" + isoSeconds(at) + "' must be within the point in time recovery window: from '" +
				isoSeconds(t.Earliest) + "' to now")
		}
	}
	filter, err := ParseFilter(t.Keys, in.FilterSpecification)
	if err != nil {
		return nil, err
	}
	owner := in.S3BucketOwner
	if owner == nil || *owner == "" {
		owner = &x.opts.Account
	}
	rec := &Record{TableID: t.ID, Filter: in.FilterSpecification, Desc: wire.ExportDescription{
		ExportArn:           wire.Ptr(ARN(x.opts.Region, x.opts.Account, t.Name, now)),
		StartTime:           wire.NewTime(now),
		TableArn:            t.TableArn,
		TableId:             t.TableId,
		ExportTime:          wire.NewTime(at),
		ClientToken:         in.ClientToken,
		S3Bucket:            in.S3Bucket,
		S3BucketOwner:       owner,
		S3Prefix:            in.S3Prefix,
		S3SseAlgorithm:      in.S3SseAlgorithm,
		S3SseKmsKeyId:       in.S3SseKmsKeyId,
		ExportFormat:        FormatJSON,
		ExportType:          TypeFull,
		FilterSpecification: in.FilterSpecification,
	}}
	return x.Start(rec, filter)
}

// isoSeconds formats a time as DynamoDB's errors quote it.
func isoSeconds(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// filter is a FilterSpecification parsed and resolved.
type filter struct {
	key, filter *expr.Condition
	proj        *expr.Projection
}

// Keep reports whether it is exported, and projects it.
func (f *filter) Keep(it attr.Item) (attr.Item, bool, error) {
	for _, c := range []*expr.Condition{f.key, f.filter} {
		if c == nil {
			continue
		}
		if ok, err := c.Eval(it); err != nil || !ok {
			return nil, false, err
		}
	}
	if f.proj != nil {
		it = f.proj.Apply(it)
	}
	return it, true, nil
}

// ParseFilter is the request phase of a FilterSpecification (nil: no
// filter), checked as a Query's expressions are: a key condition on the
// table's key (keys), a filter of non-key attributes when there is one.
func ParseFilter(keys Keys, fs *wire.FilterSpecification) (Filter, error) {
	if fs == nil {
		return nil, nil
	}
	hasExpr := fs.FilterExpression != nil || fs.KeyConditionExpression != nil || fs.ProjectionExpression != nil
	valueExpr := fs.FilterExpression != nil || fs.KeyConditionExpression != nil
	if err := expr.ValidateParams(fs.ExpressionAttributeNames, fs.ExpressionAttributeValues, hasExpr, valueExpr); err != nil {
		return nil, err
	}
	params := expr.NewParams(fs.ExpressionAttributeNames, fs.ExpressionAttributeValues)
	f := &filter{}
	var err error
	if fs.KeyConditionExpression != nil {
		if f.key, err = condition(params, expr.KindKeyCondition, *fs.KeyConditionExpression); err != nil {
			return nil, err
		}
		if err := keys.CheckKeyCondition(f.key); err != nil {
			return nil, err
		}
	}
	if fs.FilterExpression != nil {
		if f.filter, err = condition(params, expr.KindFilter, *fs.FilterExpression); err != nil {
			return nil, err
		}
		if f.key != nil {
			if err := keys.CheckFilterKeys(f.filter, "FilterExpression"); err != nil {
				return nil, err
			}
		}
	}
	if fs.ProjectionExpression != nil {
		pr, err := expr.ParseProjection(*fs.ProjectionExpression)
		if err != nil {
			return nil, err
		}
		if err := params.ResolveProjection(pr); err != nil {
			return nil, err
		}
		f.proj = pr
	}
	if err := params.CheckUnused(); err != nil {
		return nil, err
	}
	return f, nil
}

// condition parses and resolves one condition-like expression.
func condition(params *expr.Params, kind expr.Kind, s string) (*expr.Condition, error) {
	c, err := expr.ParseCondition(kind, s)
	if err != nil {
		return nil, err
	}
	if err := params.ResolveCondition(c); err != nil {
		return nil, err
	}
	return c, nil
}
