package engine

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
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

type importState struct {
	mu   sync.Mutex
	byID map[string]*importRecord
	all  []string // ARNs, oldest first
}

func metaImportKey(arn string) []byte { return append([]byte("mimport/"), arn...) }

// ImportTable creates a table and starts loading it from S3.
func (e *Engine) ImportTable(ctx context.Context, in *wire.ImportTableInput) (*wire.ImportTableOutput, error) {
	if e.cfg.Objects == nil {
		return nil, ddberr.Validation("Imports from S3 need an object store: start Kura with --s3-dir")
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
		InputCompressionType:    cmpOr(in.InputCompressionType, "NONE"),
		TableCreationParameters: p,
		StartTime:               wire.NewTime(now),
		ErrorCount:              cpPtr[int64](0),
		ProcessedItemCount:      cpPtr[int64](0),
		ProcessedSizeBytes:      cpPtr[int64](0),
		ImportedItemCount:       cpPtr[int64](0),
	}}
	if err := e.saveImport(rec); err != nil {
		return nil, err
	}
	d := rec.Desc
	e.goBackground(func() { e.runImport(rec, t) })
	return &wire.ImportTableOutput{ImportTableDescription: &d}, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
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
	e.imp.mu.Lock()
	defer e.imp.mu.Unlock()
	for _, arn := range e.imp.all {
		r := e.imp.byID[arn]
		if cpDeref(r.Desc.ClientToken) != *in.ClientToken {
			continue
		}
		src, was := in.S3BucketSource, r.Desc.S3BucketSource
		if cpDeref(in.TableCreationParameters.TableName) != cpDeref(r.Desc.TableCreationParameters.TableName) ||
			cpDeref(src.S3Bucket) != cpDeref(was.S3Bucket) || cpDeref(src.S3KeyPrefix) != cpDeref(was.S3KeyPrefix) {
			return nil, ddberr.IdempotentParameterMismatch("ClientToken " + *in.ClientToken + " was used for another import: " + arn)
		}
		d := r.Desc
		return &d, nil
	}
	return nil, nil
}

// saveImport stores rec and makes it the import of its ARN.
func (e *Engine) saveImport(rec *importRecord) error {
	v, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	arn := cpDeref(rec.Desc.ImportArn)
	if err := e.commit(true, func(txn storage.Txn) error { return txn.Set(metaImportKey(arn), v) }); err != nil {
		return err
	}
	e.imp.mu.Lock()
	defer e.imp.mu.Unlock()
	if e.imp.byID == nil {
		e.imp.byID = map[string]*importRecord{}
	}
	if _, known := e.imp.byID[arn]; !known {
		e.imp.all = append(e.imp.all, arn)
	}
	var c importRecord // a deep copy: rec shares pointers with the request
	if err := json.Unmarshal(v, &c); err != nil {
		return err
	}
	e.imp.byID[arn] = &c
	return nil
}

// loadImports reads the stored imports and runs again the ones a stop
// interrupted (their tables are still CREATING).
func (e *Engine) loadImports() error {
	var recs []*importRecord
	err := e.loadMeta(metaImportKey(""), func(v []byte) error {
		var r importRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		recs = append(recs, &r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("engine: import records: %w", err)
	}
	slices.SortFunc(recs, func(a, b *importRecord) int { return a.Desc.StartTime.Time.Compare(b.Desc.StartTime.Time) })
	e.imp.mu.Lock()
	e.imp.byID = map[string]*importRecord{}
	for _, r := range recs {
		arn := cpDeref(r.Desc.ImportArn)
		e.imp.byID[arn] = r
		e.imp.all = append(e.imp.all, arn)
	}
	e.imp.mu.Unlock()
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

// loadMeta hands fn the value of every key under prefix.
func (e *Engine) loadMeta(prefix []byte, fn func(v []byte) error) error {
	snap, err := e.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: prefix, Upper: append(prefix[:len(prefix):len(prefix)], 0xff)})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		if err := fn(it.Value()); err != nil {
			return fmt.Errorf("%q: %w", it.Key(), err)
		}
	}
	return it.Err()
}

// DescribeImport describes one import.
func (e *Engine) DescribeImport(ctx context.Context, in *wire.DescribeImportInput) (*wire.DescribeImportOutput, error) {
	e.imp.mu.Lock()
	defer e.imp.mu.Unlock()
	r, ok := e.imp.byID[cpDeref(in.ImportArn)]
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
	e.imp.mu.Lock()
	defer e.imp.mu.Unlock()
	start := 0
	if tok := cpDeref(in.NextToken); tok != "" {
		i := slices.Index(e.imp.all, tok)
		if i < 0 {
			return nil, ddberr.Validation("Invalid NextToken")
		}
		start = i + 1
	}
	out := &wire.ListImportsOutput{ImportSummaryList: []wire.ImportSummary{}}
	for _, arn := range e.imp.all[start:] {
		d := e.imp.byID[arn].Desc
		if in.TableArn != nil && cpDeref(d.TableArn) != *in.TableArn {
			continue
		}
		if len(out.ImportSummaryList) == limit {
			out.NextToken = cpPtr(*out.ImportSummaryList[limit-1].ImportArn)
			break
		}
		out.ImportSummaryList = append(out.ImportSummaryList, wire.ImportSummary{ImportArn: cpPtr(arn), ImportStatus: d.ImportStatus,
			TableArn: d.TableArn, S3BucketSource: d.S3BucketSource, InputFormat: d.InputFormat, StartTime: d.StartTime, EndTime: d.EndTime})
	}
	return out, nil
}
