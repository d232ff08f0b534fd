package engine

import (
	"context"
	"time"

	"github.com/kura-db/kura/internal/engine/export"
	"github.com/kura-db/kura/internal/engine/reads"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/wire"
)

// Exports to S3 (ExportTableToPointInTime, DescribeExport, ListExports)
// are package export's: the core hands it its catalog (exportCatalog)
// and the store.

// ExportTableToPointInTime starts a full export of a table to S3.
func (e *Engine) ExportTableToPointInTime(ctx context.Context, in *wire.ExportTableToPointInTimeInput) (*wire.ExportTableToPointInTimeOutput, error) {
	d, err := e.exp.Export(in)
	if d == nil && err != nil {
		return nil, err
	}
	return &wire.ExportTableToPointInTimeOutput{ExportDescription: d}, err
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
			f, err := export.ParseFilter(exportKeys{t}, spec)
			return f, true, err
		},
		Closing: e.closing, Go: e.goBackground, Claim: e.claimJob,
		Catalog: exportCatalog{jobsHost{e}}, Region: e.cfg.Region, Account: e.cfg.AccountID, Shared: e.cfg.Cluster,
	})
	return err
}

// exportCatalog is export.Catalog.
type exportCatalog struct{ jobsHost }

func (c exportCatalog) Resolve(action, arn string) (string, error) {
	name, verr := c.e.parseTableARN(arn)
	if verr != nil {
		return "", verr
	}
	if err := c.e.authorizeARN(action, arn); err != nil {
		return "", err
	}
	return name, nil
}

func (c exportCatalog) Table(name string) (export.Table, bool) {
	t, ok := c.e.freshTable(name)
	if !ok {
		return export.Table{}, false
	}
	v := export.Table{ID: t.ID, Name: t.Name, Status: t.Status, TableArn: t.Desc.TableArn, TableId: t.Desc.TableId,
		PITR: t.rec.PITR.Enabled, Keys: exportKeys{t}}
	if v.PITR {
		v.Earliest, _ = pitrWindow(t.rec.PITR, c.e.clock.Now())
	}
	return v, true
}

func (c exportCatalog) ChangeTime(now time.Time) time.Time { return time.Unix(0, c.e.pitr.Next(now)) }

// exportKeys checks a FilterSpecification against t's keys.
type exportKeys struct{ t *Table }

func (k exportKeys) CheckKeyCondition(c *expr.Condition) error {
	_, err := reads.AnalyzeKeyCondition(k.t.Def(), c)
	return err
}

func (k exportKeys) CheckFilterKeys(f *expr.Condition, by string) error {
	return reads.CheckFilterKeys(k.t.Def(), f, by)
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

// tableByID is the table with this ID, if it still exists (in cluster
// mode, as the store has it: another node may have created it).
func (e *Engine) tableByID(id uint64) (*Table, bool) {
	for _, t := range e.catalogTables() {
		if t.ID == id {
			return t, true
		}
	}
	return nil, false
}
