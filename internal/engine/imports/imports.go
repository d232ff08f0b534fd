package imports

import (
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Import statuses.
const (
	InProgress     = "IN_PROGRESS"
	Completed      = "COMPLETED"
	Failed         = "FAILED"
	maxListImports = 25
	logPrefix      = "mimport/"
)

// Record is one import as stored under "mimport/" + ARN.
type Record struct {
	Desc    wire.ImportTableDescription `json:"desc"`
	TableID uint64                      `json:"tableId"`
}

func (r *Record) JobARN() string      { return wire.Deref(r.Desc.ImportArn) }
func (r *Record) JobStart() time.Time { return r.Desc.StartTime.Time }
func (r *Record) JobToken() string    { return wire.Deref(r.Desc.ClientToken) }

// Target is the table an import writes into, as the core gives it: the
// small interface through which an import reaches the write path.
type Target interface {
	// Check refuses an item the table would not take from PutItem.
	Check(attr.Item) error
	// Key names the item's primary key (items with the same Key are one
	// item).
	Key(attr.Item) string
	// Write writes items (distinct keys) into the table in one storage
	// transaction, with their index entries.
	Write([]attr.Item) error
	// Finish makes the table ACTIVE.
	Finish()
	// Drop deletes the table (the import could not read its objects).
	Drop()
}

// Options is what the core hands the imports.
type Options struct {
	Store   storage.Store  // where the records are kept
	Objects objstore.Store // where the objects are read
	Now     func() time.Time
	// Target is the table of an import run again after a restart; false
	// when it is gone.
	Target func(tableID uint64) (Target, bool)
	// Closing is closed when the engine closes: running imports stop.
	Closing <-chan struct{}
	// Go runs background work the engine waits for at Close.
	Go func(func())
	// Claim claims an import's run for this node among those sharing
	// the store (nil: every import is this node's).
	Claim jobs.Claimer
	// Catalog is the core's catalog, for requests (request.go); Region
	// and Account name the imports.
	Catalog         Catalog
	Region, Account string
	// Shared: other nodes share the store (cluster mode), so answers
	// read the records again first (jobs.Log.Share).
	Shared bool
}

// Imports are the imports of one engine.
type Imports struct {
	opts Options
	log  jobs.Log[Record, *Record]
	runs jobs.Runs // the imports running on this node
}

// Open reads the stored imports and runs again the ones a stop
// interrupted, when their table still exists (those this node can
// claim).
func Open(opts Options) (*Imports, error) {
	m := &Imports{opts: opts}
	if opts.Shared {
		m.log.Share()
	}
	recs, err := m.log.LoadRuns(opts.Store, logPrefix, &m.runs, opts.Claim, func(r *Record) bool {
		return r.Desc.ImportStatus == InProgress
	})
	if err != nil {
		return nil, err
	}
	m.resume(recs)
	return m, nil
}

// Adopt reads the records again and runs the imports in progress that no
// node holds (their node stopped or died). Callers may start background
// work (the engine's ddl lock).
func (m *Imports) Adopt() error {
	recs, err := m.log.Reload()
	if err == nil {
		m.resume(recs)
	}
	return err
}

func (m *Imports) resume(recs []*Record) {
	for _, r := range recs {
		if r.Desc.ImportStatus != InProgress {
			continue
		}
		c := *r
		if t, ok := m.opts.Target(c.TableID); ok {
			m.runs.Launch(m.opts.Go, c.JobARN(), func() { m.run(&c, t) })
		}
	}
}

// ARN names a new import into table, started at `at`.
func ARN(region, account, table string, at time.Time) string {
	return jobs.NewARN(region, account, table, "import", at)
}

// ByToken is the import an earlier request with the same ClientToken
// started (nil: none), when it named the same table, bucket and prefix;
// a token reused for another import is refused.
func (m *Imports) ByToken(in *wire.ImportTableInput) (*wire.ImportTableDescription, error) {
	if in.ClientToken == nil {
		return nil, nil
	}
	r, ok := m.log.WithToken(*in.ClientToken, nil)
	if !ok {
		return nil, nil
	}
	src, was := in.S3BucketSource, r.Desc.S3BucketSource
	if wire.Deref(in.TableCreationParameters.TableName) != wire.Deref(r.Desc.TableCreationParameters.TableName) ||
		wire.Deref(src.S3Bucket) != wire.Deref(was.S3Bucket) || wire.Deref(src.S3KeyPrefix) != wire.Deref(was.S3KeyPrefix) {
		return nil, ddberr.IdempotentParameterMismatch("ClientToken " + *in.ClientToken + " was used for another import: " + r.JobARN())
	}
	d := r.Desc
	return &d, nil
}

// Start records rec, IN_PROGRESS, and runs it into t in the background.
// It returns the description to answer with.
func (m *Imports) Start(rec *Record, t Target) (*wire.ImportTableDescription, error) {
	rec.Desc.ImportStatus = InProgress
	if err := m.log.Save(rec); err != nil {
		return nil, err
	}
	d := rec.Desc
	m.runs.Launch(m.opts.Go, rec.JobARN(), func() { m.run(rec, t) }) // not claimed: a node adopts it later
	return &d, nil
}

// Describe is DescribeImport's answer, or ImportNotFoundException.
func (m *Imports) Describe(arn string) (*wire.ImportTableDescription, error) {
	r, err := m.log.Find(arn, func(arn string) error { return ddberr.ImportNotFound("Import not found: " + arn) })
	if err != nil {
		return nil, err
	}
	d := r.Desc
	return &d, nil
}

// List is ListImports' answer: oldest first, a page (PageSize, at most
// 25) at a time.
func (m *Imports) List(in *wire.ListImportsInput) (*wire.ListImportsOutput, error) {
	limit := maxListImports
	if in.PageSize != nil {
		limit = int(*in.PageSize)
	}
	recs, next, err := m.log.Page(false, wire.Deref(in.NextToken), limit, func(r *Record) bool {
		return in.TableArn == nil || wire.Deref(r.Desc.TableArn) == *in.TableArn
	})
	if err != nil {
		return nil, err
	}
	out := &wire.ListImportsOutput{ImportSummaryList: []wire.ImportSummary{}}
	for _, r := range recs {
		d := r.Desc
		out.ImportSummaryList = append(out.ImportSummaryList, wire.ImportSummary{ImportArn: wire.Ptr(r.JobARN()), ImportStatus: d.ImportStatus,
			TableArn: d.TableArn, S3BucketSource: d.S3BucketSource, InputFormat: d.InputFormat, StartTime: d.StartTime, EndTime: d.EndTime})
	}
	if next != "" {
		out.NextToken = &next
	}
	return out, nil
}
