package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/wire"
)

// Bulk operations (StartBulkPutItems, DescribeBulkOperation,
// ListBulkOperations, CancelBulkOperation): the objects under an S3 prefix
// are read, record by record, and each record's item is put into an
// existing table through PutItem (so indexes, streams, TTL and capacity
// see it as any other write), under the record's own condition expression
// when it has one (bulk_run.go). Items that cannot be written are reported
// to the output bucket (bulk_report.go). The operation's record is kept in
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

// Bulk operation statuses.
const (
	bulkInProgress          = "IN_PROGRESS"
	bulkCompleted           = "COMPLETED"
	bulkCompletedWithErrors = "COMPLETED_WITH_ERRORS"
	bulkCancelling          = "CANCELLING"
	bulkCancelled           = "CANCELLED"
	bulkFailed              = "FAILED"

	bulkListDefault = 10                  // ListBulkOperations' page without MaxResults
	bulkListWindow  = 90 * 24 * time.Hour // ListBulkOperations lists what started this long ago at most
	bulkTokenWindow = 8 * time.Hour       // a ClientToken names one operation this long
)

// bulkRecord is one bulk operation as stored under "mbulk/": its
// description, and where its run has got to.
type bulkRecord struct {
	Desc    wire.BulkOperationDescription `json:"desc"`
	TableID uint64                        `json:"tableId"`
	// Listed says the input objects were listed: once, when the run
	// starts, and stored apart under "mbulkobj/"+ARN (bulkObjectsKey: a
	// listing can be long, the record is saved at every checkpoint), so
	// that a resumed run reads the same ones. objects is that listing.
	Listed  bool `json:"listed,omitempty"`
	objects []objstore.Object
	// Object and Line are the resume point: the objects before Object are
	// done, and so are the first Line records of Object.
	Object int   `json:"object"`
	Line   int64 `json:"line"`
	// Parts counts the report objects written per output type.
	Parts map[string]int `json:"parts,omitempty"`
	// TableBytes is the bytes of the items written, GSIBytes and LSIBytes
	// those of their entries in each index (BulkOperationUsage).
	TableBytes int64            `json:"tableBytes"`
	GSIBytes   map[string]int64 `json:"gsiBytes,omitempty"`
	LSIBytes   map[string]int64 `json:"lsiBytes,omitempty"`
}

func (r *bulkRecord) JobARN() string      { return cpDeref(r.Desc.BulkOperationArn) }
func (r *bulkRecord) JobStart() time.Time { return r.Desc.StartTime.Time }
func (r *bulkRecord) JobToken() string    { return cpDeref(r.Desc.ClientToken) }

// bulkLog keeps the bulk operations (package jobs).
type bulkLog = jobs.Log[bulkRecord, *bulkRecord]

// bulkCancels are the operations a CancelBulkOperation stopped; mu orders
// a cancellation against a run's saving of its record (which must not put
// IN_PROGRESS back over CANCELLING).
type bulkCancels struct {
	mu  sync.Mutex
	set map[string]bool
}

// StartBulkPutItems starts putting the items of S3 objects into a table.
func (e *Engine) StartBulkPutItems(ctx context.Context, in *wire.StartBulkPutItemsInput) (*wire.StartBulkPutItemsOutput, error) {
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
	if prev, err := e.bulkByToken(in); prev != nil || err != nil {
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
	rec := &bulkRecord{TableID: t.ID, Desc: wire.BulkOperationDescription{
		BulkOperationArn:      cpPtr(e.bulkARN(t.Name, now)),
		BulkOperationStatus:   bulkInProgress,
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
	if err := e.bulk.Save(rec); err != nil {
		return nil, err
	}
	d := rec.Desc
	e.goBackground(func() { e.runBulk(rec, t) })
	return &wire.StartBulkPutItemsOutput{BulkOperationDescription: &d}, nil
}

// bulkARN is a new bulk operation's ARN, shaped like an import's.
func (e *Engine) bulkARN(table string, at time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/bulk-operation/%014d-%x", e.cfg.Region, e.cfg.AccountID, table, at.UnixMilli(), r)
}

// bulkByToken is the operation an earlier request with the same
// ClientToken started in the last 8 hours (nil: none), when it asked for
// the same thing; a token reused with other parameters is refused.
func (e *Engine) bulkByToken(in *wire.StartBulkPutItemsInput) (*wire.BulkOperationDescription, error) {
	if in.ClientToken == nil {
		return nil, nil
	}
	r, ok := e.bulk.WithToken(*in.ClientToken, func(r *bulkRecord) bool {
		return e.clock.Now().Sub(r.JobStart()) < bulkTokenWindow
	})
	if !ok {
		return nil, nil
	}
	d := r.Desc
	src := *in.InputS3Configuration
	src.InputCompressionType = cmp.Or(src.InputCompressionType, "NONE")
	same := tableNameOf(cpDeref(in.TableName)) == cpDeref(d.TableDetails[0].TableName) &&
		reflect.DeepEqual(&src, d.InputS3Configuration) &&
		reflect.DeepEqual(in.OutputS3Configuration, d.OutputS3Configuration) &&
		cpDeref(in.MaxWriteRequestUnits) == cpDeref(d.MaxWriteRequestUnits) &&
		cmp.Or(in.PerformanceTier, "STANDARD") == d.PerformanceTier
	if !same {
		return nil, ddberr.IdempotentParameterMismatch("ClientToken " + *in.ClientToken + " was used for another bulk operation: " + r.JobARN())
	}
	return &d, nil
}

// loadBulk reads the stored bulk operations and goes on with the ones a
// stop interrupted.
func (e *Engine) loadBulk() error {
	recs, err := e.bulk.Load(e.store, "mbulk/")
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Desc.BulkOperationStatus != bulkInProgress && r.Desc.BulkOperationStatus != bulkCancelling {
			continue
		}
		c := r.clone()
		if c.Desc.BulkOperationStatus == bulkCancelling {
			e.bulkCancel.mark(c.JobARN())
		}
		t, ok := e.tableByID(c.TableID)
		if !ok {
			c.Desc.BulkOperationStatus = bulkFailed
			code, msg := "TableNotFound", "The table was deleted while the bulk operation ran"
			c.Desc.FailureCode, c.Desc.FailureMessage, c.Desc.EndTime = &code, &msg, wire.NewTime(e.clock.Now())
			if err := e.bulk.Save(c); err != nil {
				return err
			}
			continue
		}
		e.goBackground(func() { e.runBulk(c, t) })
	}
	return nil
}

// clone is a copy of r that shares no map with it (a run changes its
// maps; the log's copy is read meanwhile).
func (r *bulkRecord) clone() *bulkRecord {
	c := *r
	c.Parts, c.GSIBytes, c.LSIBytes = maps.Clone(r.Parts), maps.Clone(r.GSIBytes), maps.Clone(r.LSIBytes)
	return &c
}

// bulkRecordOf is the stored record of arn, or the error that names it
// missing.
func (e *Engine) bulkRecordOf(action string, arn *string) (*bulkRecord, error) {
	if err := e.authorizeARN(action, cpDeref(arn)); err != nil {
		return nil, err
	}
	r, ok := e.bulk.Get(cpDeref(arn))
	if !ok {
		return nil, ddberr.ResourceNotFound("Bulk operation not found: " + cpDeref(arn))
	}
	return r, nil
}

// DescribeBulkOperation describes one bulk operation.
func (e *Engine) DescribeBulkOperation(ctx context.Context, in *wire.DescribeBulkOperationInput) (*wire.DescribeBulkOperationOutput, error) {
	r, err := e.bulkRecordOf("DescribeBulkOperation", in.BulkOperationArn)
	if err != nil {
		return nil, err
	}
	d := r.Desc
	d.BulkOperationUsage = r.usage()
	return &wire.DescribeBulkOperationOutput{BulkOperationDescription: &d}, nil
}

// usage is the operation's BulkOperationUsage: the bytes of the items it
// wrote to its table and of their entries in its secondary indexes (the
// total excludes vector bytes, as DynamoDB's; vector indexes are not
// itemised).
func (r *bulkRecord) usage() []wire.BulkOperationUsage {
	u := wire.BulkOperationUsage{
		TableName:              r.Desc.TableDetails[0].TableName,
		Table:                  &wire.BulkOperationBytes{BulkPutBytes: cpPtr(r.TableBytes)},
		GlobalSecondaryIndexes: indexBytes(r.GSIBytes),
		LocalSecondaryIndexes:  indexBytes(r.LSIBytes),
	}
	total := r.TableBytes
	for _, m := range []map[string]int64{r.GSIBytes, r.LSIBytes} {
		for _, n := range m {
			total += n
		}
	}
	u.BulkPutBytes = &total
	return []wire.BulkOperationUsage{u}
}

func indexBytes(m map[string]int64) map[string]wire.BulkOperationBytes {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]wire.BulkOperationBytes, len(m))
	for name, n := range m {
		out[name] = wire.BulkOperationBytes{BulkPutBytes: cpPtr(n)}
	}
	return out
}

// countWritten adds a written item to the usage figures.
func (r *bulkRecord) countWritten(t *Table, item attr.Item) {
	r.TableBytes += int64(attr.ItemSize(item))
	add := func(m *map[string]int64, ix *Index) {
		if !ix.indexed(item) {
			return
		}
		if *m == nil {
			*m = map[string]int64{}
		}
		(*m)[ix.Name] += entrySize(t.project(ix, item))
	}
	for _, ix := range t.GSIs {
		add(&r.GSIBytes, ix)
	}
	for _, ix := range t.LSIs {
		add(&r.LSIBytes, ix)
	}
}

// ListBulkOperations lists the bulk operations started in the last 90
// days, most recent first, MaxResults (10 by default) at a time.
func (e *Engine) ListBulkOperations(ctx context.Context, in *wire.ListBulkOperationsInput) (*wire.ListBulkOperationsOutput, error) {
	limit := bulkListDefault
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	since := e.clock.Now().Add(-bulkListWindow)
	recs, next, err := e.bulk.Page(true, cpDeref(in.NextToken), limit, func(r *bulkRecord) bool {
		return !r.JobStart().Before(since)
	})
	if err != nil {
		return nil, err
	}
	out := &wire.ListBulkOperationsOutput{BulkOperationsSummaryList: []wire.BulkOperationSummary{}}
	for _, r := range recs {
		d := r.Desc
		out.BulkOperationsSummaryList = append(out.BulkOperationsSummaryList, wire.BulkOperationSummary{
			BulkOperationArn: d.BulkOperationArn, BulkOperationStatus: d.BulkOperationStatus, StartTime: d.StartTime, EndTime: d.EndTime})
	}
	if next != "" {
		out.NextToken = &next
	}
	return out, nil
}

// CancelBulkOperation asks a running operation to stop: it is CANCELLING
// until its run has stopped and written its report, then CANCELLED. The
// items it wrote stay.
func (e *Engine) CancelBulkOperation(ctx context.Context, in *wire.CancelBulkOperationInput) (*wire.CancelBulkOperationOutput, error) {
	r, err := e.bulkRecordOf("CancelBulkOperation", in.BulkOperationArn)
	if err != nil {
		return nil, err
	}
	e.bulkCancel.mu.Lock()
	defer e.bulkCancel.mu.Unlock()
	if cur, _ := e.bulk.Get(r.JobARN()); cur != nil {
		r = cur
	}
	switch r.Desc.BulkOperationStatus {
	case bulkInProgress:
	case bulkCancelling:
		return &wire.CancelBulkOperationOutput{BulkOperationArn: r.Desc.BulkOperationArn, BulkOperationStatus: bulkCancelling}, nil
	default:
		return nil, ddberr.Validation("Bulk operation " + r.JobARN() + " cannot be cancelled: its status is " + r.Desc.BulkOperationStatus)
	}
	c := r.clone()
	c.Desc.BulkOperationStatus = bulkCancelling
	if err := e.bulk.Save(c); err != nil {
		return nil, err
	}
	e.bulkCancel.markLocked(c.JobARN())
	return &wire.CancelBulkOperationOutput{BulkOperationArn: c.Desc.BulkOperationArn, BulkOperationStatus: bulkCancelling}, nil
}

func (c *bulkCancels) mark(arn string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.markLocked(arn)
}

func (c *bulkCancels) markLocked(arn string) {
	if c.set == nil {
		c.set = map[string]bool{}
	}
	c.set[arn] = true
}

// cancelled reports whether arn was cancelled.
func (c *bulkCancels) cancelled(arn string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set[arn]
}

// saveBulk stores a running operation's record, CANCELLING once it was
// cancelled (and in its final status once it has ended: a cancellation
// that comes after is refused, as CancelBulkOperation reads the record
// under the same lock).
func (e *Engine) saveBulk(rec *bulkRecord) error {
	e.bulkCancel.mu.Lock()
	defer e.bulkCancel.mu.Unlock()
	if e.bulkCancel.set[rec.JobARN()] && rec.Desc.BulkOperationStatus == bulkInProgress {
		rec.Desc.BulkOperationStatus = bulkCancelling
	}
	return e.bulk.Save(rec)
}

// bulkOperationID is the last part of the operation's ARN (the folder of
// its report).
func bulkOperationID(arn string) string { return arn[strings.LastIndex(arn, "/")+1:] }

// indexBuilding reports whether a secondary index of t is being created.
func (t *Table) indexBuilding() bool {
	for _, ix := range t.GSIs {
		if ix.Status == StatusCreating || ix.Backfilling {
			return true
		}
	}
	return false
}
