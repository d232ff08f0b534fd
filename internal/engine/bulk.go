package engine

import (
	"cmp"
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/bulk"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/wire"
)

// Bulk operations (StartBulkPutItems, DescribeBulkOperation,
// ListBulkOperations, CancelBulkOperation): the objects under an S3 prefix
// are read, record by record, and each record's item is put into an
// existing table through PutItem (so indexes, streams, TTL and capacity
// see it as any other write), under the record's own condition expression
// when it has one (package bulk). Items that cannot be written are
// reported to the output bucket (bulk/report.go). The operation's record is kept in
// the job log (package jobs) with a resume point, so that one a stop
// interrupted goes on from there at the next start.
//
// Sources: the SDK's doc comments (aws-sdk-go-v2/service/dynamodb v1.74.0:
// statuses, counters, ClientToken's 8 hours, MaxWriteRequestUnits of at
// least 1,024, PerformanceTier's default, ListBulkOperations' 90 days,
// most recent first, 10 a page) and the developer guide's "Bulk put items"
// pages (BulkPutItems.Format, .Output, .Requesting, .Considerations:
// DYNAMODB_JSON is JSON Lines, per-item condition expressions, the two
// report types, the table must be ACTIVE).

// StartBulkPutItems starts putting the items of S3 objects into a table.
func (e *Engine) StartBulkPutItems(ctx context.Context, in *wire.StartBulkPutItemsInput) (*wire.StartBulkPutItemsOutput, error) {
	if err := e.refuseInCluster("StartBulkPutItems"); err != nil { // cluster_refusals.go
		return nil, err
	}
	if e.cfg.Objects == nil {
		return nil, ddberr.Validation("Bulk operations read from S3 and need an object store: start Kura with --s3-dir or --s3-endpoint")
	}
	src, out := in.InputS3Configuration, in.OutputS3Configuration
	if src.InputFormat == "ION" {
		return nil, ddberr.Validation("InputFormat ION is not supported by Kura; use DYNAMODB_JSON")
	}
	if out.S3Bucket == nil {
		// The API reference: "The S3Bucket and OutputType fields are required."
		return nil, ddberr.Validation("OutputS3Configuration.S3Bucket is required")
	}
	if out.S3SseKmsKeyId != nil && out.S3SseAlgorithm != "KMS" {
		return nil, ddberr.Validation("S3SseKmsKeyId can only be specified when S3SseAlgorithm is KMS")
	}
	if prev, err := e.bulk.ByToken(in, tableNameOf(cpDeref(in.TableName))); prev != nil || err != nil {
		return &wire.StartBulkPutItemsOutput{BulkOperationDescription: prev}, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, err := e.activeTable(in.TableName)
	if err != nil {
		return nil, err
	}
	if t.indexBuilding() {
		// BulkPutItems.Considerations: not while the table is creating a
		// secondary index.
		return nil, ddberr.Validation("Cannot start a bulk operation on table " + t.Name + " while it is creating a secondary index")
	}
	now := e.clock.Now()
	src.InputCompressionType = cmp.Or(src.InputCompressionType, "NONE")
	rec := &bulk.Record{TableID: t.ID, Desc: wire.BulkOperationDescription{
		BulkOperationArn:      cpPtr(bulk.ARN(e.cfg.Region, e.cfg.AccountID, t.Name, now)),
		ClientToken:           in.ClientToken,
		InputS3Configuration:  src,
		OutputS3Configuration: out,
		MaxWriteRequestUnits:  in.MaxWriteRequestUnits,
		PerformanceTier:       cmp.Or(in.PerformanceTier, "STANDARD"),
		StartTime:             wire.NewTime(now),
		ProcessedItemCount:    cpPtr[int64](0),
		FailedItemCount:       cpPtr[int64](0),
		ProcessedInputBytes:   cpPtr[int64](0),
		TableDetails:          []wire.BulkOperationTableDetail{{TableId: t.Desc.TableId, TableName: cpPtr(t.Name)}},
	}}
	d, err := e.bulk.Start(rec, bulkTarget{e, t})
	if err != nil {
		return nil, err
	}
	return &wire.StartBulkPutItemsOutput{BulkOperationDescription: d}, nil
}

// openBulk reads the stored bulk operations and goes on with the ones a
// stop interrupted (package bulk).
func (e *Engine) openBulk() (err error) {
	e.bulk, err = bulk.Open(bulk.Options{
		Store: e.store, Objects: e.cfg.Objects, Now: e.clock.Now, Sleep: e.sleep, WriteUnits: writeUnits,
		Target: func(tableID uint64) (bulk.Target, bool) {
			t, ok := e.tableByID(tableID)
			return bulkTarget{e, t}, ok
		},
		Closing: e.closing, Go: e.goBackground, Claim: e.claimJob,
	})
	return err
}

// bulkTarget is a bulk operation's table: PutItem on it, and the index
// entries an item makes there.
type bulkTarget struct {
	e *Engine
	t *Table
}

func (b bulkTarget) Name() string { return b.t.Name }

func (b bulkTarget) Put(in *wire.PutItemInput) error {
	_, err := b.e.PutItem(context.Background(), in)
	return err
}

func (b bulkTarget) IndexEntries(item attr.Item, add func(global bool, index string, size int64)) {
	for _, ix := range b.t.GSIs {
		if ix.Indexed(item) {
			add(true, ix.Name, indexes.EntrySize(b.t.project(ix, item)))
		}
	}
	for _, ix := range b.t.LSIs {
		if ix.Indexed(item) {
			add(false, ix.Name, indexes.EntrySize(b.t.project(ix, item)))
		}
	}
}

// DescribeBulkOperation describes one bulk operation.
func (e *Engine) DescribeBulkOperation(ctx context.Context, in *wire.DescribeBulkOperationInput) (*wire.DescribeBulkOperationOutput, error) {
	if err := e.authorizeARN("DescribeBulkOperation", cpDeref(in.BulkOperationArn)); err != nil {
		return nil, err
	}
	d, err := e.bulk.Describe(cpDeref(in.BulkOperationArn))
	if err != nil {
		return nil, err
	}
	return &wire.DescribeBulkOperationOutput{BulkOperationDescription: d}, nil
}

// ListBulkOperations lists the bulk operations started in the last 90
// days, most recent first, MaxResults (10 by default) at a time.
func (e *Engine) ListBulkOperations(ctx context.Context, in *wire.ListBulkOperationsInput) (*wire.ListBulkOperationsOutput, error) {
	return e.bulk.List(in)
}

// CancelBulkOperation asks a running operation to stop: it is CANCELLING
// until its run has stopped and written its report, then CANCELLED. The
// items it wrote stay.
func (e *Engine) CancelBulkOperation(ctx context.Context, in *wire.CancelBulkOperationInput) (*wire.CancelBulkOperationOutput, error) {
	if err := e.authorizeARN("CancelBulkOperation", cpDeref(in.BulkOperationArn)); err != nil {
		return nil, err
	}
	return e.bulk.Cancel(cpDeref(in.BulkOperationArn))
}

// indexBuilding reports whether a secondary index of t is being created.
func (t *Table) indexBuilding() bool {
	for _, ix := range t.GSIs {
		if ix.Status == StatusCreating || ix.Backfilling {
			return true
		}
	}
	return false
}
