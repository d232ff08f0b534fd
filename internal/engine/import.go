package engine

import (
	"context"
	"errors"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/imports"
	"github.com/kura-db/kura/internal/wire"
)

// Imports from S3 (ImportTable, DescribeImport, ListImports) are package
// imports': the core creates the import's table (importCatalog) and is
// its write path (importTarget). Items that cannot be imported (a line
// that does not parse, a missing or mistyped key, an item over 400 KB)
// are counted in ErrorCount and logged nowhere else (DynamoDB logs them
// to CloudWatch, which Kura does not have).

// ImportTable creates a table and starts loading it from S3.
func (e *Engine) ImportTable(ctx context.Context, in *wire.ImportTableInput) (*wire.ImportTableOutput, error) {
	d, err := e.imp.Import(in)
	if d == nil && err != nil {
		return nil, err
	}
	return &wire.ImportTableOutput{ImportTableDescription: d}, err
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
		Catalog: importCatalog{jobsHost{e}}, Region: e.cfg.Region, Account: e.cfg.AccountID, Shared: e.cfg.Cluster,
	})
	return err
}

// importCatalog is imports.Catalog.
type importCatalog struct{ jobsHost }

func (c importCatalog) Create(cin *wire.CreateTableInput) (imports.Table, error) {
	name, nerr := createTableName(cpDeref(cin.TableName))
	if nerr != nil {
		return imports.Table{}, nerr
	}
	cin.TableName = &name
	if _, exists := c.e.lookupTable(name); exists {
		return imports.Table{}, ddberr.ResourceInUse("Table already exists: " + name)
	}
	t, _, err := c.e.createRestoreTarget(cin, nil, 0)
	if err != nil {
		return imports.Table{}, err
	}
	return imports.Table{ID: t.ID, Name: t.Name, TableArn: t.Desc.TableArn, TableId: t.Desc.TableId,
		Target: importTarget{restoreTarget{c.e, t}}}, nil
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
