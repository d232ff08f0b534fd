package engine

import (
	"context"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/export"
	"github.com/kura-db/kura/internal/engine/restore"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// Exports to S3 (ExportTableToPointInTime, DescribeExport, ListExports):
// a full export of a table as it was at ExportTime, read like a
// point-in-time restore reads it (the table's items and the images its
// changes since replaced), written to Config.Objects in DynamoDB's layout
// (package export). Point-in-time recovery must be on, as in DynamoDB.
// The export runs in the background: IN_PROGRESS, then COMPLETED or
// FAILED; one a stop interrupted runs again at the next start.
//
// Kura writes DYNAMODB_JSON; ION and INCREMENTAL_EXPORT are refused with a
// ValidationException that says so.

// exportFilter is a FilterSpecification parsed and resolved.
type exportFilter struct {
	key, filter *expr.Condition
	proj        *expr.Projection
}

// Keep reports whether it is exported, and projects it.
func (f *exportFilter) Keep(it attr.Item) (attr.Item, bool, error) {
	if f == nil {
		return it, true, nil
	}
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

// parseExportFilter is the request phase of a FilterSpecification, checked
// as a Query's expressions are (a key condition on t's key, a filter of
// non-key attributes when there is one).
func parseExportFilter(t *Table, fs *wire.FilterSpecification) (*exportFilter, error) {
	if fs == nil {
		return nil, nil
	}
	hasExpr := fs.FilterExpression != nil || fs.KeyConditionExpression != nil || fs.ProjectionExpression != nil
	valueExpr := fs.FilterExpression != nil || fs.KeyConditionExpression != nil
	if err := expr.ValidateParams(fs.ExpressionAttributeNames, fs.ExpressionAttributeValues, hasExpr, valueExpr); err != nil {
		return nil, err
	}
	params := expr.NewParams(fs.ExpressionAttributeNames, fs.ExpressionAttributeValues)
	f := &exportFilter{}
	var err error
	if fs.KeyConditionExpression != nil {
		if f.key, err = parseCondition(params, expr.KindKeyCondition, *fs.KeyConditionExpression); err != nil {
			return nil, err
		}
		if _, err := t.analyzeKeyCondition(f.key); err != nil {
			return nil, err
		}
	}
	if fs.FilterExpression != nil {
		if f.filter, err = parseCondition(params, expr.KindFilter, *fs.FilterExpression); err != nil {
			return nil, err
		}
		if f.key != nil {
			if err := t.checkFilterKeys(f.filter, "FilterExpression"); err != nil {
				return nil, err
			}
		}
	}
	if fs.ProjectionExpression != nil {
		if f.proj, err = parseProjection(params, *fs.ProjectionExpression); err != nil {
			return nil, err
		}
	}
	return f, params.CheckUnused()
}

// ExportTableToPointInTime starts a full export of a table to S3.
func (e *Engine) ExportTableToPointInTime(ctx context.Context, in *wire.ExportTableToPointInTimeInput) (*wire.ExportTableToPointInTimeOutput, error) {
	if err := e.refuseInCluster("ExportTableToPointInTime"); err != nil { // cluster_refusals.go
		return nil, err
	}
	if e.cfg.Objects == nil {
		return nil, ddberr.Validation("Exports to S3 need an object store: start Kura with --s3-dir or --s3-endpoint")
	}
	switch {
	case in.ExportFormat != "" && in.ExportFormat != export.FormatJSON:
		return nil, ddberr.Validation("ExportFormat " + in.ExportFormat + " is not supported by Kura; use DYNAMODB_JSON")
	case in.ExportType != "" && in.ExportType != export.TypeFull:
		return nil, ddberr.Validation("ExportType " + in.ExportType + " is not supported by Kura; use FULL_EXPORT")
	case in.IncrementalExportSpecification != nil:
		return nil, ddberr.Validation("IncrementalExportSpecification applies to INCREMENTAL_EXPORT, which Kura does not support")
	}
	arn := cpDeref(in.TableArn)
	name, verr := e.parseTableARN(arn)
	if verr != nil {
		return nil, verr
	}
	if err := e.authorizeARN("ExportTableToPointInTime", arn); err != nil {
		return nil, err
	}
	if prev, err := e.exp.ByToken(in); prev != nil || err != nil {
		return &wire.ExportTableToPointInTimeOutput{ExportDescription: prev}, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, ok := e.lookupTable(name)
	if !ok || t.Status == StatusCreating || t.Status == StatusDeleting {
		return nil, ddberr.TableNotFoundException(arn)
	}
	if !t.rec.PITR.Enabled {
		return nil, ddberr.PointInTimeRecoveryUnavailable("Point in time recovery is not enabled for table '" + t.Name + "'")
	}
	now := e.clock.Now()
	// Now, as a change time: after every change already logged, so that
	// all of them are in the export whatever the clock's resolution.
	at := time.Unix(0, e.pitr.Next(now)).UTC()
	if in.ExportTime != nil {
		at = in.ExportTime.Time
		earliest, _ := pitrWindow(t.rec.PITR, now)
		if at.Before(earliest) || at.After(now) {
			return nil, ddberr.InvalidExportTime("ExportTime '" + restore.ISOSeconds(at) + "' must be within the point in time recovery window: from '" +
				restore.ISOSeconds(earliest) + "' to now")
		}
	}
	filter, err := parseExportFilter(t, in.FilterSpecification)
	if err != nil {
		return nil, err
	}
	rec := &export.Record{TableID: t.ID, Filter: in.FilterSpecification, Desc: wire.ExportDescription{
		ExportArn:           cpPtr(export.ARN(e.cfg.Region, e.cfg.AccountID, t.Name, now)),
		StartTime:           wire.NewTime(now),
		TableArn:            t.Desc.TableArn,
		TableId:             t.Desc.TableId,
		ExportTime:          wire.NewTime(at),
		ClientToken:         in.ClientToken,
		S3Bucket:            in.S3Bucket,
		S3BucketOwner:       cmpOrPtr(in.S3BucketOwner, e.cfg.AccountID),
		S3Prefix:            in.S3Prefix,
		S3SseAlgorithm:      in.S3SseAlgorithm,
		S3SseKmsKeyId:       in.S3SseKmsKeyId,
		ExportFormat:        export.FormatJSON,
		ExportType:          export.TypeFull,
		FilterSpecification: in.FilterSpecification,
	}}
	var keep export.Filter
	if filter != nil {
		keep = filter
	}
	d, err := e.exp.Start(rec, keep)
	if err != nil {
		return nil, err
	}
	return &wire.ExportTableToPointInTimeOutput{ExportDescription: d}, nil
}

// cmpOrPtr is p, or def when p is nil or empty.
func cmpOrPtr(p *string, def string) *string {
	if p == nil || *p == "" {
		return &def
	}
	return p
}

// openExports reads the stored exports and runs again the ones a stop
// interrupted (package export).
func (e *Engine) openExports() (err error) {
	e.exp, err = export.Open(export.Options{
		Store: e.store, Objects: e.cfg.Objects, Now: e.clock.Now, Snapshot: e.openSnapshot,
		ParseFilter: func(tableID uint64, spec *wire.FilterSpecification) (export.Filter, bool, error) {
			t, ok := e.tableByID(tableID)
			if !ok {
				return nil, false, nil
			}
			f, err := parseExportFilter(t, spec)
			return f, true, err
		},
		Closing: e.closing, Go: e.goBackground, Claim: e.claimJob,
	})
	return err
}

// DescribeExport describes one export.
func (e *Engine) DescribeExport(ctx context.Context, in *wire.DescribeExportInput) (*wire.DescribeExportOutput, error) {
	if err := e.authorizeARN("DescribeExport", cpDeref(in.ExportArn)); err != nil {
		return nil, err
	}
	d, err := e.exp.Describe(cpDeref(in.ExportArn))
	if err != nil {
		return nil, err
	}
	return &wire.DescribeExportOutput{ExportDescription: d}, nil
}

// ListExports lists the exports, of one table or all, oldest first, a
// page (MaxResults, at most 25) at a time; NextToken is the last ARN of
// the page before.
func (e *Engine) ListExports(ctx context.Context, in *wire.ListExportsInput) (*wire.ListExportsOutput, error) {
	return e.exp.List(in)
}

// tableByID is the table with this ID, if it still exists.
func (e *Engine) tableByID(id uint64) (*Table, bool) {
	for _, t := range e.snapshotTables() {
		if t.ID == id {
			return t, true
		}
	}
	return nil, false
}
