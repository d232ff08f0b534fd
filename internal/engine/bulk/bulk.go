package bulk

import (
	"cmp"
	"errors"
	"maps"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Bulk operation statuses.
const (
	InProgress          = "IN_PROGRESS"
	Completed           = "COMPLETED"
	CompletedWithErrors = "COMPLETED_WITH_ERRORS"
	Cancelling          = "CANCELLING"
	Cancelled           = "CANCELLED"
	Failed              = "FAILED"

	bulkListDefault = 10                  // ListBulkOperations' page without MaxResults
	bulkListWindow  = 90 * 24 * time.Hour // ListBulkOperations lists what started this long ago at most
	bulkTokenWindow = 8 * time.Hour       // a ClientToken names one operation this long
	logPrefix       = "mbulk/"
)

// Record is one bulk operation as stored under "mbulk/": its
// description, and where its run has got to.
type Record struct {
	Desc    wire.BulkOperationDescription `json:"desc"`
	TableID uint64                        `json:"tableId"`
	// Listed says the input objects were listed: once, when the run
	// starts, and stored apart under "mbulkobj/"+ARN (objectsKey: a
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

func (r *Record) JobARN() string      { return wire.Deref(r.Desc.BulkOperationArn) }
func (r *Record) JobStart() time.Time { return r.Desc.StartTime.Time }
func (r *Record) JobToken() string    { return wire.Deref(r.Desc.ClientToken) }

// cancels are the operations a CancelBulkOperation stopped; mu orders
// a cancellation against a run's saving of its record (which must not put
// IN_PROGRESS back over CANCELLING).
type cancels struct {
	mu  sync.Mutex
	set map[string]bool
}

// Options is what the core hands the bulk operations.
type Options struct {
	Store   storage.Store  // where the records and listings are kept
	Objects objstore.Store // where the input is read and the report written
	Now     func() time.Time
	// Sleep waits d, or until the engine closes (then false).
	Sleep func(d time.Duration) bool
	// WriteUnits is the write capacity units an item of size bytes costs.
	WriteUnits func(size int) float64
	// Target is the table of an operation that goes on after a restart;
	// false when it is gone.
	Target func(tableID uint64) (Target, bool)
	// Closing is closed when the engine closes: running operations stop.
	Closing <-chan struct{}
	// Go runs background work the engine waits for at Close.
	Go func(func())
	// Claim claims an operation's run for this node among those sharing
	// the store (nil: every operation is this node's).
	Claim jobs.Claimer
	// Catalog is the core's catalog, for requests (request.go); Region
	// and Account name the operations.
	Catalog         Catalog
	Region, Account string
	// Shared: other nodes share the store (cluster mode), so answers
	// read the records again first (jobs.Log.Share).
	Shared bool
}

// Target is the table an operation writes into, as the core gives it.
type Target interface {
	Name() string
	// Put is PutItem on the table.
	Put(*wire.PutItemInput) error
	// IndexEntries calls add with the size of each secondary index entry
	// the item makes (global: a GSI's, else an LSI's).
	IndexEntries(item attr.Item, add func(global bool, index string, size int64))
}

// Operations are the bulk operations of one engine.
type Operations struct {
	opts    Options
	log     jobs.Log[Record, *Record]
	cancels cancels
	runs    jobs.Runs // the operations running on this node
}

// ARN names a new bulk operation on table, started at `at`, shaped like
// an import's.
func ARN(region, account, table string, at time.Time) string {
	return jobs.NewARN(region, account, table, "bulk-operation", at)
}

// Start records rec, IN_PROGRESS, and runs it into t in the background.
// It returns the description to answer with.
func (o *Operations) Start(rec *Record, t Target) (*wire.BulkOperationDescription, error) {
	rec.Desc.BulkOperationStatus = InProgress
	if err := o.log.Save(rec); err != nil {
		return nil, err
	}
	d := rec.Desc
	o.runs.Launch(o.opts.Go, rec.JobARN(), func() { o.run(rec, t) }) // not claimed: a node adopts it later
	return &d, nil
}

// record is the stored record of arn, or the error that names it missing.
func (o *Operations) record(arn string) (*Record, error) {
	return o.log.Find(arn, func(arn string) error { return ddberr.ResourceNotFound("Bulk operation not found: " + arn) })
}

// Describe is DescribeBulkOperation's answer.
func (o *Operations) Describe(arn string) (*wire.BulkOperationDescription, error) {
	r, err := o.record(arn)
	if err != nil {
		return nil, err
	}
	d := r.Desc
	d.BulkOperationUsage = r.usage()
	return &d, nil
}

// ByToken is the operation an earlier request with the same
// ClientToken started in the last 8 hours (nil: none), when it asked for
// the same thing; a token reused with other parameters is refused.
// table is the name the request names (its TableName, or the name in
// its ARN).
func (o *Operations) ByToken(in *wire.StartBulkPutItemsInput, table string) (*wire.BulkOperationDescription, error) {
	if in.ClientToken == nil {
		return nil, nil
	}
	r, ok := o.log.WithToken(*in.ClientToken, func(r *Record) bool {
		return o.opts.Now().Sub(r.JobStart()) < bulkTokenWindow
	})
	if !ok {
		return nil, nil
	}
	d := r.Desc
	src := *in.InputS3Configuration
	src.InputCompressionType = cmp.Or(src.InputCompressionType, "NONE")
	same := table == wire.Deref(d.TableDetails[0].TableName) &&
		reflect.DeepEqual(&src, d.InputS3Configuration) &&
		reflect.DeepEqual(in.OutputS3Configuration, d.OutputS3Configuration) &&
		wire.Deref(in.MaxWriteRequestUnits) == wire.Deref(d.MaxWriteRequestUnits) &&
		cmp.Or(in.PerformanceTier, "STANDARD") == d.PerformanceTier
	if !same {
		return nil, ddberr.IdempotentParameterMismatch("ClientToken " + *in.ClientToken + " was used for another bulk operation: " + r.JobARN())
	}
	return &d, nil
}

// Open reads the stored bulk operations and goes on with the ones a
// stop interrupted (those this node can claim).
func Open(opts Options) (*Operations, error) {
	o := &Operations{opts: opts}
	if opts.Shared {
		o.log.Share()
	}
	recs, err := o.log.LoadRuns(opts.Store, logPrefix, &o.runs, opts.Claim, func(r *Record) bool {
		return (r.Desc.BulkOperationStatus == InProgress || r.Desc.BulkOperationStatus == Cancelling)
	})
	if err != nil {
		return nil, err
	}
	if err := o.resume(recs); err != nil {
		return nil, err
	}
	return o, nil
}

// Adopt reads the records again and goes on with the operations in
// progress that no node holds (their node stopped or died). Callers may
// start background work (the engine's ddl lock).
func (o *Operations) Adopt() error {
	recs, err := o.log.Reload()
	if err != nil {
		return err
	}
	return o.resume(recs)
}

func (o *Operations) resume(recs []*Record) error {
	for _, r := range recs {
		if r.Desc.BulkOperationStatus != InProgress && r.Desc.BulkOperationStatus != Cancelling {
			continue
		}
		c := r.clone()
		arn := c.JobARN()
		if !o.runs.Start(arn) {
			continue // running here, or on another node
		}
		if c.Desc.BulkOperationStatus == Cancelling {
			o.cancels.mark(arn)
		}
		t, ok := o.opts.Target(c.TableID)
		if !ok {
			c.Desc.BulkOperationStatus = Failed
			code, msg := "TableNotFound", "The table was deleted while the bulk operation ran"
			c.Desc.FailureCode, c.Desc.FailureMessage, c.Desc.EndTime = &code, &msg, wire.NewTime(o.opts.Now())
			err := o.log.Save(c)
			o.runs.Done(arn)
			if err != nil {
				return err
			}
			continue
		}
		o.opts.Go(func() {
			defer o.runs.Done(arn)
			o.run(c, t)
		})
	}
	return nil
}

// clone is a copy of r that shares no map with it (a run changes its
// maps; the log's copy is read meanwhile).
func (r *Record) clone() *Record {
	c := *r
	c.Parts, c.GSIBytes, c.LSIBytes = maps.Clone(r.Parts), maps.Clone(r.GSIBytes), maps.Clone(r.LSIBytes)
	return &c
}

// usage is the operation's BulkOperationUsage: the bytes of the items it
// wrote to its table and of their entries in its secondary indexes (the
// total excludes vector bytes, as DynamoDB's; vector indexes are not
// itemised).
func (r *Record) usage() []wire.BulkOperationUsage {
	u := wire.BulkOperationUsage{
		TableName:              r.Desc.TableDetails[0].TableName,
		Table:                  &wire.BulkOperationBytes{BulkPutBytes: wire.Ptr(r.TableBytes)},
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
		out[name] = wire.BulkOperationBytes{BulkPutBytes: wire.Ptr(n)}
	}
	return out
}

// countWritten adds a written item to the usage figures.
func (r *Record) countWritten(t Target, item attr.Item) {
	r.TableBytes += int64(attr.ItemSize(item))
	t.IndexEntries(item, func(global bool, index string, size int64) {
		m := &r.LSIBytes
		if global {
			m = &r.GSIBytes
		}
		if *m == nil {
			*m = map[string]int64{}
		}
		(*m)[index] += size
	})
}

// List is ListBulkOperations' answer: the bulk operations started in the last 90
// days, most recent first, MaxResults (10 by default) at a time.
func (o *Operations) List(in *wire.ListBulkOperationsInput) (*wire.ListBulkOperationsOutput, error) {
	limit := bulkListDefault
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	since := o.opts.Now().Add(-bulkListWindow)
	recs, next, err := o.log.Page(true, wire.Deref(in.NextToken), limit, func(r *Record) bool {
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

// Cancel is CancelBulkOperation's answer: it asks a running operation to stop: it is CANCELLING
// until its run has stopped and written its report, then CANCELLED. The
// items it wrote stay.
func (o *Operations) Cancel(arn string) (*wire.CancelBulkOperationOutput, error) {
	r, err := o.record(arn)
	if err != nil {
		return nil, err
	}
	o.cancels.mu.Lock()
	defer o.cancels.mu.Unlock()
	if cur, _ := o.log.Get(r.JobARN()); cur != nil {
		r = cur
	}
	switch r.Desc.BulkOperationStatus {
	case InProgress:
	case Cancelling:
		return &wire.CancelBulkOperationOutput{BulkOperationArn: r.Desc.BulkOperationArn, BulkOperationStatus: Cancelling}, nil
	default:
		return nil, ddberr.Validation("Bulk operation " + r.JobARN() + " cannot be cancelled: its status is " + r.Desc.BulkOperationStatus)
	}
	c := r.clone()
	c.Desc.BulkOperationStatus = Cancelling
	err = o.log.SaveWith(c, func(stored *Record) error {
		// The node running it may have ended it since it was read.
		if st := stored.Desc.BulkOperationStatus; st != InProgress {
			c.Desc.BulkOperationStatus = st
			return errNotRunning
		}
		return nil
	})
	if errors.Is(err, errNotRunning) {
		if c.Desc.BulkOperationStatus == Cancelling {
			return &wire.CancelBulkOperationOutput{BulkOperationArn: c.Desc.BulkOperationArn, BulkOperationStatus: Cancelling}, nil
		}
		return nil, ddberr.Validation("Bulk operation " + c.JobARN() + " cannot be cancelled: its status is " + c.Desc.BulkOperationStatus)
	}
	if err != nil {
		return nil, err
	}
	o.cancels.markLocked(c.JobARN())
	return &wire.CancelBulkOperationOutput{BulkOperationArn: c.Desc.BulkOperationArn, BulkOperationStatus: Cancelling}, nil
}

func (c *cancels) mark(arn string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.markLocked(arn)
}

func (c *cancels) markLocked(arn string) {
	if c.set == nil {
		c.set = map[string]bool{}
	}
	c.set[arn] = true
}

// cancelled reports whether arn was cancelled.
func (c *cancels) cancelled(arn string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set[arn]
}

// save stores a running operation's record, CANCELLING once it was
// cancelled (and in its final status once it has ended: a cancellation
// that comes after is refused, as CancelBulkOperation reads the record
// under the same lock).
func (o *Operations) save(rec *Record) error {
	o.cancels.mu.Lock()
	defer o.cancels.mu.Unlock()
	if o.cancels.set[rec.JobARN()] && rec.Desc.BulkOperationStatus == InProgress {
		rec.Desc.BulkOperationStatus = Cancelling
	}
	return o.log.SaveWith(rec, func(stored *Record) error {
		// A CancelBulkOperation through another node: the run stops at
		// its next record.
		if stored.Desc.BulkOperationStatus == Cancelling && rec.Desc.BulkOperationStatus == InProgress {
			rec.Desc.BulkOperationStatus = Cancelling
			o.cancels.markLocked(rec.JobARN())
		}
		return nil
	})
}

// errNotRunning refuses a cancellation of an operation that ended.
var errNotRunning = errors.New("bulk operation not running")

// operationID is the last part of the operation's ARN (the folder of
// its report).
func operationID(arn string) string { return arn[strings.LastIndex(arn, "/")+1:] }
