package engine

import (
	"cmp"
	"context"
	"errors"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/imports"
	"github.com/kura-db/kura/internal/wire"
)

// Imports from S3 (ImportTable, DescribeImport, ListImports): a new table,
// CREATING while the objects under S3BucketSource's prefix are read into
// it (package imports), ACTIVE when they are. Objects come from
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

// ImportTable creates a table and starts loading it from S3.
func (e *Engine) ImportTable(ctx context.Context, in *wire.ImportTableInput) (*wire.ImportTableOutput, error) {
	if err := e.refuseInCluster("ImportTable"); err != nil { // cluster_refusals.go
		return nil, err
	}
	if e.cfg.Objects == nil {
		return nil, ddberr.Validation("Imports from S3 need an object store: start Kura with --s3-dir or --s3-endpoint")
	}
	if in.InputFormat == "ION" {
		return nil, ddberr.Validation("InputFormat ION is not supported by Kura; use DYNAMODB_JSON or CSV")
	}
	if in.InputFormatOptions != nil && in.InputFormat != "CSV" {
		return nil, ddberr.Validation("InputFormatOptions apply to the CSV InputFormat only")
	}
	if prev, err := e.imp.ByToken(in); prev != nil || err != nil {
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
	rec := &imports.Record{TableID: t.ID, Desc: wire.ImportTableDescription{
		ImportArn:               cpPtr(imports.ARN(e.cfg.Region, e.cfg.AccountID, name, now)),
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
	d, err := e.imp.Start(rec, importTarget{restoreTarget{e, t}})
	if err != nil {
		return nil, err
	}
	return &wire.ImportTableOutput{ImportTableDescription: d}, nil
}

// openImports reads the stored imports and runs again the ones a stop
// interrupted (package imports).
func (e *Engine) openImports() (err error) {
	e.imp, err = imports.Open(imports.Options{
		Store: e.store, Objects: e.cfg.Objects, Now: e.clock.Now,
		Target: func(tableID uint64) (imports.Target, bool) {
			t, ok := e.tableByID(tableID)
			return importTarget{restoreTarget{e, t}}, ok
		},
		Closing: e.closing, Go: e.goBackground, Claim: e.claimJob,
	})
	return err
}

// DescribeImport describes one import.
func (e *Engine) DescribeImport(ctx context.Context, in *wire.DescribeImportInput) (*wire.DescribeImportOutput, error) {
	if err := e.authorizeARN("DescribeImport", cpDeref(in.ImportArn)); err != nil {
		return nil, err
	}
	d, err := e.imp.Describe(cpDeref(in.ImportArn))
	if err != nil {
		return nil, err
	}
	return &wire.DescribeImportOutput{ImportTableDescription: d}, nil
}

// ListImports lists the imports, into one table or all, oldest first, a
// page (PageSize, at most 25) at a time; NextToken is the last ARN of the
// page before.
func (e *Engine) ListImports(ctx context.Context, in *wire.ListImportsInput) (*wire.ListImportsOutput, error) {
	return e.imp.List(in)
}

// importTarget is an import's table: a restore's target (the core's
// write path for it), that also checks items, names their keys and ends
// the import.
type importTarget struct{ restoreTarget }

// Check refuses an item the table would not take from PutItem: invalid
// values, a missing or mistyped key, index keys of the wrong type, over
// 400 KB.
func (it importTarget) Check(item attr.Item) error {
	if err := attr.ValidateItem(item); err != nil {
		return err
	}
	if _, err := it.t.validateItemKey(item); err != nil {
		return err
	}
	if err := it.t.checkIndexKeys(item, false); err != nil {
		return err
	}
	if attr.ItemSize(item) > maxItemSize {
		return errors.New("item over the size limit")
	}
	return nil
}

// Key is the item's storage key.
func (it importTarget) Key(item attr.Item) string {
	return string(it.t.storageKey(it.t.primaryKeyOf(item)))
}

// Finish makes the table ACTIVE.
func (it importTarget) Finish() { it.e.finishRestore(it.t.ID, it.t.Name) }

// Drop deletes a failed import's table, still CREATING (which
// DeleteTable refuses).
func (it importTarget) Drop() {
	e := it.e
	e.ddl.Lock()
	defer e.ddl.Unlock()
	if cur, ok := e.lookupTable(it.t.Name); ok && cur.ID == it.t.ID {
		_, _ = e.dropTable(cur) // on failure the table stays CREATING; the import is FAILED either way
	}
}
