package export

import (
	"errors"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Export statuses and formats.
const (
	InProgress     = "IN_PROGRESS"
	Completed      = "COMPLETED"
	Failed         = "FAILED"
	FormatJSON     = "DYNAMODB_JSON"
	TypeFull       = "FULL_EXPORT"
	maxListExports = 25
	logPrefix      = "mexport/"
)

// Record is one export as stored under "mexport/" + ARN: its description
// and what it needs to run again.
type Record struct {
	Desc    wire.ExportDescription    `json:"desc"`
	TableID uint64                    `json:"tableId"`
	Filter  *wire.FilterSpecification `json:"filter,omitempty"`
}

func (r *Record) JobARN() string      { return wire.Deref(r.Desc.ExportArn) }
func (r *Record) JobStart() time.Time { return r.Desc.StartTime.Time }
func (r *Record) JobToken() string    { return wire.Deref(r.Desc.ClientToken) }

// Filter is a FilterSpecification parsed against its table: Keep reports
// whether an item is exported, and projects it.
type Filter interface {
	Keep(attr.Item) (attr.Item, bool, error)
}

// Options is what the core hands the exports.
type Options struct {
	Store   storage.Store  // where the records are kept
	Objects objstore.Store // where the files are written
	Now     func() time.Time
	// Snapshot takes a snapshot of the store now.
	Snapshot func() (*snapshot.Reader, error)
	// ParseFilter parses an export's FilterSpecification against table
	// tableID as it is now (for an export run again after a restart);
	// false when the table is gone.
	ParseFilter func(tableID uint64, spec *wire.FilterSpecification) (Filter, bool, error)
	// Closing is closed when the engine closes: running exports stop.
	Closing <-chan struct{}
	// Go runs background work the engine waits for at Close.
	Go func(func())
	// Claim claims an export's run for this node among those sharing
	// the store (nil: every export is this node's).
	Claim jobs.Claimer
	// Catalog is the core's catalog, for requests (request.go); Region
	// and Account name the exports.
	Catalog         Catalog
	Region, Account string
	// Shared: other nodes share the store (cluster mode), so answers
	// read the records again first (jobs.Log.Share).
	Shared bool
}

// Exports are the exports of one engine.
type Exports struct {
	opts Options
	log  jobs.Log[Record, *Record]
	runs jobs.Runs // the exports running on this node
}

// Open reads the stored exports and runs again the ones a stop
// interrupted (those this node can claim).
func Open(opts Options) (*Exports, error) {
	x := &Exports{opts: opts}
	if opts.Shared {
		x.log.Share()
	}
	recs, err := x.log.LoadRuns(opts.Store, logPrefix, &x.runs, opts.Claim, func(r *Record) bool {
		return r.Desc.ExportStatus == InProgress
	})
	if err != nil {
		return nil, err
	}
	x.resume(recs)
	return x, nil
}

// Adopt reads the records again and runs the exports in progress that no
// node holds (their node stopped or died). Callers may start background
// work (the engine's ddl lock).
func (x *Exports) Adopt() error {
	recs, err := x.log.Reload()
	if err == nil {
		x.resume(recs)
	}
	return err
}

func (x *Exports) resume(recs []*Record) {
	for _, r := range recs {
		if r.Desc.ExportStatus == InProgress {
			c := *r
			x.runs.Launch(x.opts.Go, c.JobARN(), func() { x.run(&c, nil, nil) })
		}
	}
}

// ARN names a new export of table, started at `at`.
func ARN(region, account, table string, at time.Time) string {
	return jobs.NewARN(region, account, table, "export", at)
}

// ByToken is the export a request's ClientToken already started (nil:
// none), or ExportConflictException when the token started another one.
func (x *Exports) ByToken(in *wire.ExportTableToPointInTimeInput) (*wire.ExportDescription, error) {
	if in.ClientToken == nil {
		return nil, nil
	}
	r, ok := x.log.WithToken(*in.ClientToken, nil)
	if !ok {
		return nil, nil
	}
	if wire.Deref(r.Desc.TableArn) != wire.Deref(in.TableArn) || wire.Deref(r.Desc.S3Bucket) != wire.Deref(in.S3Bucket) ||
		wire.Deref(r.Desc.S3Prefix) != wire.Deref(in.S3Prefix) {
		return nil, ddberr.ExportConflict("ClientToken " + *in.ClientToken + " was used for another export: " + r.JobARN())
	}
	d := r.Desc
	return &d, nil
}

// Start records rec, IN_PROGRESS, takes the snapshot it reads (now: a
// DeleteTable right after cannot take the items away) and runs it in the
// background with filter (nil: everything). It returns the description
// to answer with.
func (x *Exports) Start(rec *Record, filter Filter) (*wire.ExportDescription, error) {
	rec.Desc.ExportStatus = InProgress
	if err := x.log.Save(rec); err != nil {
		return nil, err
	}
	snap, err := x.opts.Snapshot()
	if err != nil {
		return nil, err
	}
	d := rec.Desc
	if !x.runs.Launch(x.opts.Go, rec.JobARN(), func() { x.run(rec, snap, filter) }) {
		snap.Close() // not claimed (the store failed): a node adopts it later
	}
	return &d, nil
}

// Describe is DescribeExport's answer, or ExportNotFoundException.
func (x *Exports) Describe(arn string) (*wire.ExportDescription, error) {
	r, err := x.log.Find(arn, func(arn string) error { return ddberr.ExportNotFound("Export not found: " + arn) })
	if err != nil {
		return nil, err
	}
	d := r.Desc
	return &d, nil
}

// List is ListExports' answer.
func (x *Exports) List(in *wire.ListExportsInput) (*wire.ListExportsOutput, error) {
	limit := maxListExports
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	recs, next, err := x.log.Page(false, wire.Deref(in.NextToken), limit, func(r *Record) bool {
		return in.TableArn == nil || wire.Deref(r.Desc.TableArn) == *in.TableArn
	})
	if err != nil {
		return nil, err
	}
	out := &wire.ListExportsOutput{ExportSummaries: []wire.ExportSummary{}}
	for _, r := range recs {
		arn := r.JobARN()
		out.ExportSummaries = append(out.ExportSummaries, wire.ExportSummary{
			ExportArn: &arn, ExportStatus: r.Desc.ExportStatus, ExportType: r.Desc.ExportType})
	}
	if next != "" {
		out.NextToken = &next
	}
	return out, nil
}

// run writes rec's files and records how it ended. snap is the snapshot
// the request took and filter its FilterSpecification parsed (nil both
// after a restart: a snapshot is taken now, and the filter parsed against
// the table); snap is closed here.
func (x *Exports) run(rec *Record, snap *snapshot.Reader, filter Filter) {
	if snap == nil {
		var err error
		if snap, err = x.opts.Snapshot(); err != nil {
			return // still IN_PROGRESS: the next start runs it again
		}
	}
	defer snap.Close()
	ctx, cancel := jobs.Context(x.opts.Closing)
	defer cancel()
	d := &rec.Desc
	count, billed, err := x.write(ctx, rec, snap, filter)
	if errors.Is(err, jobs.ErrStopped) || ctx.Err() != nil {
		return
	}
	d.EndTime = wire.NewTime(x.opts.Now())
	if err != nil {
		d.ExportStatus = Failed
		code, msg := jobs.Failure(err)
		d.FailureCode, d.FailureMessage = &code, &msg
	} else {
		d.ExportStatus = Completed
		d.ItemCount, d.BilledSizeBytes = &count, &billed
		manifest := filesPrefix(d) + "manifest-summary.json"
		d.ExportManifest = &manifest
		if err := x.writeSummary(ctx, rec); err != nil {
			if ctx.Err() != nil {
				return
			}
			d.ExportStatus = Failed
			code, msg := jobs.Failure(err)
			d.FailureCode, d.FailureMessage = &code, &msg
			d.ExportManifest, d.ItemCount, d.BilledSizeBytes = nil, nil, nil
		}
	}
	_ = x.log.Save(rec) // on error the export stays IN_PROGRESS and runs again at the next start
}

// filesPrefix is the key prefix of an export's files:
// "<S3Prefix>/AWSDynamoDB/<ExportId>/" (no leading part without a prefix).
func filesPrefix(d *wire.ExportDescription) string {
	arn := wire.Deref(d.ExportArn)
	id := arn[strings.LastIndexByte(arn, '/')+1:]
	p := strings.TrimSuffix(wire.Deref(d.S3Prefix), "/")
	if p != "" {
		p += "/"
	}
	return p + "AWSDynamoDB/" + id + "/"
}
