package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/wire"
)

// Imports from S3 (ImportTable, DescribeImport, ListImports): a new table,
// CREATING while the objects under S3BucketSource's prefix are read into
// it (import_read.go), ACTIVE when they are. Objects come from
// Config.Objects (--s3-dir). Items that cannot be imported (a line that
// does not parse, a missing or mistyped key, an item over 400 KB) are
// counted in ErrorCount and logged nowhere else (DynamoDB logs them to
// CloudWatch, which Kura does not have); the rest are imported. An import
// that cannot read its objects fails, and its table is deleted. One a stop
// interrupted runs again at the next start.
//
// Formats: DYNAMODB_JSON ({"Item":{...}} per line, as exports write them)
// and CSV (a header line or HeaderList; key attributes typed as the table
// defines them, every other column a string). ION is refused with a
// ValidationException that says so. Compression: NONE, GZIP, ZSTD.

// Import statuses.
const (
	importInProgress = "IN_PROGRESS"
	importCompleted  = "COMPLETED"
	importFailed     = "FAILED"
	maxListImports   = 25
)

// importRecord is one import as stored under metaImportKey.
type importRecord struct {
	Desc    wire.ImportTableDescription `json:"desc"`
	TableID uint64                      `json:"tableId"`
}

func (r *importRecord) JobARN() string      { return cpDeref(r.Desc.ImportArn) }
func (r *importRecord) JobStart() time.Time { return r.Desc.StartTime.Time }
func (r *importRecord) JobToken() string    { return cpDeref(r.Desc.ClientToken) }

// importLog keeps the imports (package jobs).
type importLog = jobs.Log[importRecord, *importRecord]

// ImportTable creates a table and starts loading it from S3.
func (e *Engine) ImportTable(ctx context.Context, in *wire.ImportTableInput) (*wire.ImportTableOutput, error) {
	if e.cfg.Objects == nil {
		return nil, ddberr.Validation("Imports from S3 need an object store: start Kura with --s3-dir or --s3-endpoint")
	}
	if in.InputFormat == "ION" {
		return nil, ddberr.Validation("InputFormat ION is not supported by Kura; use DYNAMODB_JSON or CSV")
	}
	if in.InputFormatOptions != nil && in.InputFormat != "CSV" {
		return nil, ddberr.Validation("InputFormatOptions apply to the CSV InputFormat only")
	}
	if prev, err := e.importByToken(in); prev != nil || err != nil {
		return &wire.ImportTableOutput{ImportTableDescription: prev}, err
	}
	p := in.TableCreationParameters
	cin := &wire.CreateTableInput{
		TableName: p.TableName, AttributeDefinitions: p.AttributeDefinitions, KeySchema: p.KeySchema,
		BillingMode: p.BillingMode, ProvisionedThroughput: p.ProvisionedThroughput, OnDemandThroughput: p.OnDemandThroughput,
		SSESpecification: p.SSESpecification, GlobalSecondaryIndexes: p.GlobalSecondaryIndexes, VectorIndexes: p.VectorIndexes,
	}
	name, nerr := createTableName(cpDeref(p.TableName))
	if nerr != nil {
		return nil, nerr
	}
	cin.TableName = &name
	e.ddl.Lock()
	defer e.ddl.Unlock()
	if _, exists := e.lookupTable(name); exists {
		return nil, ddberr.ResourceInUse("Table already exists: " + name)
	}
	t, _, err := e.createRestoreTarget(cin, nil, 0)
	if err != nil {
		return nil, err
	}
	now := e.clock.Now()
	rec := &importRecord{TableID: t.ID, Desc: wire.ImportTableDescription{
		ImportArn:               cpPtr(e.importARN(name, now)),
		ImportStatus:            importInProgress,
		TableArn:                t.Desc.TableArn,
		TableId:                 t.Desc.TableId,
		ClientToken:             in.ClientToken,
		S3BucketSource:          in.S3BucketSource,
		InputFormat:             in.InputFormat,
		InputFormatOptions:      in.InputFormatOptions,
		InputCompressionType:    cmp.Or(in.InputCompressionType, "NONE"),
		TableCreationParameters: p,
		StartTime:               wire.NewTime(now),
		ErrorCount:              cpPtr[int64](0),
		ProcessedItemCount:      cpPtr[int64](0),
		ImportedItemCount:       cpPtr[int64](0),
	}}
	if err := e.imp.Save(rec); err != nil {
		return nil, err
	}
	d := rec.Desc
	e.goBackground(func() { e.runImport(rec, t) })
	return &wire.ImportTableOutput{ImportTableDescription: &d}, nil
}

// importARN is a new import's ARN, shaped like an export's.
func (e *Engine) importARN(table string, at time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/import/%014d-%x", e.cfg.Region, e.cfg.AccountID, table, at.UnixMilli(), r)
}

// importByToken is the import an earlier request with the same ClientToken
// started (nil: none), when it asked for the same table and source; a
// token reused for another import is refused.
func (e *Engine) importByToken(in *wire.ImportTableInput) (*wire.ImportTableDescription, error) {
	if in.ClientToken == nil {
		return nil, nil
	}
	r, ok := e.imp.WithToken(*in.ClientToken, nil)
	if !ok {
		return nil, nil
	}
	src, was := in.S3BucketSource, r.Desc.S3BucketSource
	if cpDeref(in.TableCreationParameters.TableName) != cpDeref(r.Desc.TableCreationParameters.TableName) ||
		cpDeref(src.S3Bucket) != cpDeref(was.S3Bucket) || cpDeref(src.S3KeyPrefix) != cpDeref(was.S3KeyPrefix) {
		return nil, ddberr.IdempotentParameterMismatch("ClientToken " + *in.ClientToken + " was used for another import: " + r.JobARN())
	}
	d := r.Desc
	return &d, nil
}

// loadImports reads the stored imports and runs again the ones a stop
// interrupted (their tables are still CREATING).
func (e *Engine) loadImports() error {
	recs, err := e.imp.Load(e.store, "mimport/")
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Desc.ImportStatus != importInProgress {
			continue
		}
		c := *r
		if t, ok := e.tableByID(c.TableID); ok {
			e.goBackground(func() { e.runImport(&c, t) })
		}
	}
	return nil
}

// DescribeImport describes one import.
func (e *Engine) DescribeImport(ctx context.Context, in *wire.DescribeImportInput) (*wire.DescribeImportOutput, error) {
	if err := e.authorizeARN("DescribeImport", cpDeref(in.ImportArn)); err != nil {
		return nil, err
	}
	r, ok := e.imp.Get(cpDeref(in.ImportArn))
	if !ok {
		return nil, ddberr.ImportNotFound("Import not found: " + cpDeref(in.ImportArn))
	}
	d := r.Desc
	return &wire.DescribeImportOutput{ImportTableDescription: &d}, nil
}

// ListImports lists the imports, into one table or all, oldest first, a
// page (PageSize, at most 25) at a time; NextToken is the last ARN of the
// page before.
func (e *Engine) ListImports(ctx context.Context, in *wire.ListImportsInput) (*wire.ListImportsOutput, error) {
	limit := maxListImports
	if in.PageSize != nil {
		limit = int(*in.PageSize)
	}
	recs, next, err := e.imp.Page(false, cpDeref(in.NextToken), limit, func(r *importRecord) bool {
		return in.TableArn == nil || cpDeref(r.Desc.TableArn) == *in.TableArn
	})
	if err != nil {
		return nil, err
	}
	out := &wire.ListImportsOutput{ImportSummaryList: []wire.ImportSummary{}}
	for _, r := range recs {
		d := r.Desc
		out.ImportSummaryList = append(out.ImportSummaryList, wire.ImportSummary{ImportArn: cpPtr(r.JobARN()), ImportStatus: d.ImportStatus,
			TableArn: d.TableArn, S3BucketSource: d.S3BucketSource, InputFormat: d.InputFormat, StartTime: d.StartTime, EndTime: d.EndTime})
	}
	if next != "" {
		out.NextToken = &next
	}
	return out, nil
}
