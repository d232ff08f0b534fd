package engine

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// Exports to S3 (ExportTableToPointInTime, DescribeExport, ListExports):
// a full export of a table as it was at ExportTime, read like a
// point-in-time restore reads it (the table's items and the images its
// changes since replaced), written to Config.Objects in DynamoDB's layout
// (export_files.go). Point-in-time recovery must be on, as in DynamoDB.
// The export runs in the background: IN_PROGRESS, then COMPLETED or
// FAILED; one a stop interrupted runs again at the next start.
//
// Kura writes DYNAMODB_JSON; ION and INCREMENTAL_EXPORT are refused with a
// ValidationException that says so.

// Export statuses and formats.
const (
	exportInProgress = "IN_PROGRESS"
	exportCompleted  = "COMPLETED"
	exportFailed     = "FAILED"
	exportJSON       = "DYNAMODB_JSON"
	exportFull       = "FULL_EXPORT"
	maxListExports   = 25
)

// exportRecord is one export as stored under metaExportKey: its
// description and what it needs to run again.
type exportRecord struct {
	Desc    wire.ExportDescription    `json:"desc"`
	TableID uint64                    `json:"tableId"`
	Filter  *wire.FilterSpecification `json:"filter,omitempty"`
}

func (r *exportRecord) JobARN() string      { return cpDeref(r.Desc.ExportArn) }
func (r *exportRecord) JobStart() time.Time { return r.Desc.StartTime.Time }
func (r *exportRecord) JobToken() string    { return cpDeref(r.Desc.ClientToken) }

// exportLog keeps the exports (package jobs).
type exportLog = jobs.Log[exportRecord, *exportRecord]

// exportFilter is a FilterSpecification parsed and resolved.
type exportFilter struct {
	key, filter *expr.Condition
	proj        *expr.Projection
}

// keep reports whether it is exported, and projects it.
func (f *exportFilter) keep(it attr.Item) (attr.Item, bool, error) {
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
	if e.cfg.Objects == nil {
		return nil, ddberr.Validation("Exports to S3 need an object store: start Kura with --s3-dir or --s3-endpoint")
	}
	switch {
	case in.ExportFormat != "" && in.ExportFormat != exportJSON:
		return nil, ddberr.Validation("ExportFormat " + in.ExportFormat + " is not supported by Kura; use DYNAMODB_JSON")
	case in.ExportType != "" && in.ExportType != exportFull:
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
	if prev, err := e.exportByToken(in); prev != nil || err != nil {
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
			return nil, ddberr.InvalidExportTime("ExportTime '" + isoSeconds(at) + "' must be within the point in time recovery window: from '" +
				isoSeconds(earliest) + "' to now")
		}
	}
	filter, err := parseExportFilter(t, in.FilterSpecification)
	if err != nil {
		return nil, err
	}
	rec := &exportRecord{TableID: t.ID, Filter: in.FilterSpecification, Desc: wire.ExportDescription{
		ExportArn:           cpPtr(e.exportARN(t.Name, now)),
		ExportStatus:        exportInProgress,
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
		ExportFormat:        exportJSON,
		ExportType:          exportFull,
		FilterSpecification: in.FilterSpecification,
	}}
	if err := e.exp.Save(rec); err != nil {
		return nil, err
	}
	snap, err := e.openSnapshot() // now: a DeleteTable right after cannot take the items away
	if err != nil {
		return nil, err
	}
	d := rec.Desc
	e.goBackground(func() { e.runExport(rec, snap, filter) })
	return &wire.ExportTableToPointInTimeOutput{ExportDescription: &d}, nil
}

// cmpOrPtr is p, or def when p is nil or empty.
func cmpOrPtr(p *string, def string) *string {
	if p == nil || *p == "" {
		return &def
	}
	return p
}

// exportARN is a new export's ARN, shaped like DynamoDB's: the table's ARN,
// "/export/", the request time in milliseconds (14 digits) and eight
// random hex digits.
func (e *Engine) exportARN(table string, at time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/export/%014d-%x", e.cfg.Region, e.cfg.AccountID, table, at.UnixMilli(), r)
}

// exportByToken is the export an earlier request with the same
// ClientToken started (nil: none), when it asked for the same table, bucket
// and prefix; a token reused for another export is refused.
func (e *Engine) exportByToken(in *wire.ExportTableToPointInTimeInput) (*wire.ExportDescription, error) {
	if in.ClientToken == nil {
		return nil, nil
	}
	r, ok := e.exp.WithToken(*in.ClientToken, nil)
	if !ok {
		return nil, nil
	}
	if cpDeref(r.Desc.TableArn) != cpDeref(in.TableArn) || cpDeref(r.Desc.S3Bucket) != cpDeref(in.S3Bucket) ||
		cpDeref(r.Desc.S3Prefix) != cpDeref(in.S3Prefix) {
		return nil, ddberr.ExportConflict("ClientToken " + *in.ClientToken + " was used for another export: " + r.JobARN())
	}
	d := r.Desc
	return &d, nil
}

// loadExports reads the stored exports and runs again the ones a stop
// interrupted.
func (e *Engine) loadExports() error {
	recs, err := e.exp.Load(e.store, "mexport/")
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Desc.ExportStatus == exportInProgress {
			c := *r
			e.goBackground(func() { e.runExport(&c, nil, nil) })
		}
	}
	return nil
}

// DescribeExport describes one export.
func (e *Engine) DescribeExport(ctx context.Context, in *wire.DescribeExportInput) (*wire.DescribeExportOutput, error) {
	if err := e.authorizeARN("DescribeExport", cpDeref(in.ExportArn)); err != nil {
		return nil, err
	}
	r, ok := e.exp.Get(cpDeref(in.ExportArn))
	if !ok {
		return nil, ddberr.ExportNotFound("Export not found: " + cpDeref(in.ExportArn))
	}
	d := r.Desc
	return &wire.DescribeExportOutput{ExportDescription: &d}, nil
}

// ListExports lists the exports, of one table or all, oldest first, a
// page (MaxResults, at most 25) at a time; NextToken is the last ARN of
// the page before.
func (e *Engine) ListExports(ctx context.Context, in *wire.ListExportsInput) (*wire.ListExportsOutput, error) {
	limit := maxListExports
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	recs, next, err := e.exp.Page(false, cpDeref(in.NextToken), limit, func(r *exportRecord) bool {
		return in.TableArn == nil || cpDeref(r.Desc.TableArn) == *in.TableArn
	})
	if err != nil {
		return nil, err
	}
	out := &wire.ListExportsOutput{ExportSummaries: []wire.ExportSummary{}}
	for _, r := range recs {
		out.ExportSummaries = append(out.ExportSummaries, wire.ExportSummary{
			ExportArn: cpPtr(r.JobARN()), ExportStatus: r.Desc.ExportStatus, ExportType: r.Desc.ExportType})
	}
	if next != "" {
		out.NextToken = &next
	}
	return out, nil
}

// exportPrefix is the key prefix of an export's files:
// "<S3Prefix>/AWSDynamoDB/<ExportId>/" (no leading part without a prefix).
func exportPrefix(d *wire.ExportDescription) string {
	arn := cpDeref(d.ExportArn)
	id := arn[strings.LastIndexByte(arn, '/')+1:]
	p := strings.TrimSuffix(cpDeref(d.S3Prefix), "/")
	if p != "" {
		p += "/"
	}
	return p + "AWSDynamoDB/" + id + "/"
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
