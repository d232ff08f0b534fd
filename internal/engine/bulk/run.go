package bulk

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/wire"
)

// errCancelled is a run a CancelBulkOperation stopped.
var errCancelled = errors.New("bulk operation cancelled")

// maxItemSize is DynamoDB's item size limit (400 KB): a record may take
// four times it in DynamoDB JSON.
const maxItemSize = 400 * 1024

// bulkCheckpoint is how many records a run processes between two saves of
// its resume point (a stop makes it process at most these again).
const bulkCheckpoint = 100

// run puts rec's records into t, writes its report and records how it
// ended.
func (o *Operations) run(rec *Record, t Target) {
	ctx, cancel := jobs.Context(o.opts.Closing)
	defer cancel()
	rep := newReport(rec)
	err := o.putAll(ctx, rec, t, rep)
	if err == nil || errors.Is(err, errCancelled) {
		if rerr := o.finishReport(ctx, rec, rep); rerr != nil {
			err = rerr
		}
	}
	if errors.Is(err, jobs.ErrStopped) || ctx.Err() != nil {
		return // it goes on at the next start
	}
	d := &rec.Desc
	d.EndTime = wire.NewTime(o.opts.Now())
	switch {
	case errors.Is(err, errCancelled):
		d.BulkOperationStatus = Cancelled
	case err != nil:
		d.BulkOperationStatus = Failed
		code, msg := bulkFailure(err)
		d.FailureCode, d.FailureMessage = &code, &msg
	case wire.Deref(d.FailedItemCount) > 0:
		d.BulkOperationStatus = CompletedWithErrors
	default:
		d.BulkOperationStatus = Completed
	}
	_ = o.save(rec) // on error the operation stays IN_PROGRESS and goes on at the next start
}

// bulkFailure is the FailureCode and FailureMessage of a run that could
// not go on.
func bulkFailure(err error) (code, msg string) {
	var de *ddberr.Error
	if errors.As(err, &de) {
		return de.Type, de.Message
	}
	return jobs.Failure(err)
}

// putAll lists the input objects (once) and puts the records of each in
// turn, from the resume point on.
func (o *Operations) putAll(ctx context.Context, rec *Record, t Target, rep *report) error {
	src := rec.Desc.InputS3Configuration
	if !rec.Listed {
		// The output bucket must be there before anything is written.
		if _, err := o.opts.Objects.List(ctx, wire.Deref(rec.Desc.OutputS3Configuration.S3Bucket), bulkReportDir(rec)+"/"); err != nil {
			return err
		}
		objs, err := o.opts.Objects.List(ctx, wire.Deref(src.S3Bucket), wire.Deref(src.S3KeyPrefix))
		if err != nil {
			return err
		}
		v, err := json.Marshal(objs)
		if err != nil {
			return err
		}
		if err := jobs.Set(o.opts.Store, objectsKey(rec), v); err != nil {
			return err
		}
		var total int64
		for _, o := range objs {
			total += o.Size
		}
		rec.objects, rec.Listed, rec.Desc.TotalInputBytes = objs, true, &total
		if err := o.save(rec); err != nil {
			return err
		}
	} else if err := jobs.ReadAll(o.opts.Store, objectsKey(rec), func(v []byte) error { return json.Unmarshal(v, &rec.objects) }); err != nil {
		return err
	}
	rate := newWriteRate(rec.Desc.MaxWriteRequestUnits)
	for rec.Object < len(rec.objects) {
		var done int64
		for _, o := range rec.objects[:rec.Object] {
			done += o.Size
		}
		if err := o.putObject(ctx, rec, t, rep, rate, done); err != nil {
			return err
		}
		rec.Object, rec.Line = rec.Object+1, 0
		rec.Desc.ProcessedInputBytes = wire.Ptr(done + rec.objects[rec.Object-1].Size)
		if err := o.checkpoint(ctx, rec, rep); err != nil {
			return err
		}
	}
	return nil
}

// objectsKey is where rec's listing of input objects is stored.
func objectsKey(rec *Record) []byte { return []byte("mbulkobj/" + rec.JobARN()) }

// checkpoint writes the report lines gathered so far and saves the
// resume point.
func (o *Operations) checkpoint(ctx context.Context, rec *Record, rep *report) error {
	if err := o.flushReport(ctx, rec, rep); err != nil {
		return err
	}
	return o.save(rec)
}

// putObject puts the records of the object rec is at, skipping the
// ones it processed before a stop; done is the size of the objects before.
func (o *Operations) putObject(ctx context.Context, rec *Record, t Target, rep *report, rate *writeRate, done int64) error {
	src := rec.Desc.InputS3Configuration
	obj := rec.objects[rec.Object]
	f, err := o.opts.Objects.Open(ctx, wire.Deref(src.S3Bucket), obj.Key)
	if err != nil {
		return fmt.Errorf("%s: %w", obj.Key, err)
	}
	defer f.Close()
	cr := &jobs.CountingReader{R: f}
	r, err := decompressed(src.InputCompressionType, cr)
	if err != nil {
		return fmt.Errorf("%s: %w", obj.Key, err)
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4*maxItemSize)
	var line int64
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		line++
		if line <= rec.Line {
			continue // processed before a stop
		}
		select {
		case <-o.opts.Closing:
			return jobs.ErrStopped
		default:
		}
		if o.cancels.cancelled(rec.JobARN()) {
			return errCancelled
		}
		if err := o.putRecord(rec, t, rep, rate, obj.Key, line, sc.Bytes()); err != nil {
			return err
		}
		if line%bulkCheckpoint == 0 {
			rec.Line, rec.Desc.ProcessedInputBytes = line, wire.Ptr(done+cr.N)
			if err := o.checkpoint(ctx, rec, rep); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		// A record over the scanner's limit, or an object that does not
		// decompress: reported, and the rest of the object is skipped.
		rep.add(outputError, bulkErrorLine(obj.Key, line+1, "ValidationException", err.Error(), nil))
		rec.Desc.ProcessedItemCount = wire.Ptr(wire.Deref(rec.Desc.ProcessedItemCount) + 1)
		rec.Desc.FailedItemCount = wire.Ptr(wire.Deref(rec.Desc.FailedItemCount) + 1)
	}
	return nil
}

// decompressed reads r as the input's compression type says.
func decompressed(compression string, r io.Reader) (io.ReadCloser, error) {
	switch compression {
	case "GZIP":
		return gzip.NewReader(r)
	case "ZSTD":
		zr, err := zstd.NewReader(r)
		if err != nil {
			return nil, err
		}
		return zr.IOReadCloser(), nil
	}
	return io.NopCloser(r), nil
}

// bulkInputRecord is one DYNAMODB_JSON record: the item, and optionally
// the condition under which it is written (BulkPutItems.Format: JSON
// Lines, per-item condition expressions). The member names beside "Item"
// are PutItem's: the guide's own example of a conditioned record was not
// at hand when this was written, so they are Kura's reading of it.
type bulkInputRecord struct {
	Item                      json.RawMessage   `json:"Item"`
	ConditionExpression       *string           `json:"ConditionExpression"`
	ExpressionAttributeNames  map[string]string `json:"ExpressionAttributeNames"`
	ExpressionAttributeValues json.RawMessage   `json:"ExpressionAttributeValues"`
}

// parseRecord reads one record as a PutItem request.
func parseRecord(table string, b []byte) (*wire.PutItemInput, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r bulkInputRecord
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("the record is not a DynamoDB JSON record: %v", err)
	}
	if r.Item == nil {
		return nil, errors.New(`the record has no "Item"`)
	}
	item, err := attr.DecodeItemJSON(r.Item)
	if err != nil {
		return nil, err
	}
	in := &wire.PutItemInput{TableName: &table, Item: item, ConditionExpression: r.ConditionExpression,
		ExpressionAttributeNames: r.ExpressionAttributeNames, ReturnValuesOnConditionCheckFailure: "ALL_OLD"}
	if r.ExpressionAttributeValues != nil {
		if in.ExpressionAttributeValues, err = attr.DecodeItemJSON(r.ExpressionAttributeValues); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// putRecord writes one record through PutItem and counts it: a record
// that cannot be read or written is an ERROR, one whose condition is false
// a CONDITION_CHECK_FAILURE; a throttled write is tried again.
func (o *Operations) putRecord(rec *Record, t Target, rep *report, rate *writeRate, key string, line int64, raw []byte) error {
	d := &rec.Desc
	d.ProcessedItemCount = wire.Ptr(wire.Deref(d.ProcessedItemCount) + 1)
	in, err := parseRecord(t.Name(), raw)
	if err != nil {
		d.FailedItemCount = wire.Ptr(wire.Deref(d.FailedItemCount) + 1)
		rep.add(outputError, bulkErrorLine(key, line, "ValidationException", err.Error(), raw))
		return nil
	}
	size := attr.ItemSize(in.Item)
	if wait := rate.reserve(o.opts.Now(), o.opts.WriteUnits(size)); !o.opts.Sleep(wait) {
		return jobs.ErrStopped
	}
	for backoff := 10 * time.Millisecond; ; backoff = min(2*backoff, time.Second) {
		err = t.Put(in)
		var de *ddberr.Error
		if !errors.As(err, &de) || !bulkThrottled(de) {
			break
		}
		if !o.opts.Sleep(backoff) {
			return jobs.ErrStopped
		}
	}
	var de *ddberr.Error
	switch {
	case err == nil:
		rec.countWritten(t, in.Item)
	case errors.As(err, &de) && de.Type == "ConditionalCheckFailedException":
		existing, _ := de.Item.(attr.Item)
		rep.add(outputConditionCheckFailure, bulkConditionLine(key, line, in.Item, existing))
	case errors.As(err, &de) && de.Type == "ValidationException":
		d.FailedItemCount = wire.Ptr(wire.Deref(d.FailedItemCount) + 1)
		rep.add(outputError, bulkErrorLine(key, line, de.Type, de.Message, raw))
	default:
		return err // the table is gone, or the store failed: the operation fails
	}
	return nil
}

// bulkThrottled reports whether a write was refused for want of capacity.
func bulkThrottled(e *ddberr.Error) bool {
	return e.Type == "ProvisionedThroughputExceededException" || e.Type == "ThrottlingException" || e.Type == "RequestLimitExceeded"
}

// writeRate paces a run to MaxWriteRequestUnits a second: each write
// reserves its units, and waits until the ones reserved before it are
// spent. A nil rate does not pace.
type writeRate struct {
	perSecond float64
	next      time.Time // when the units reserved so far are spent
}

func newWriteRate(max *int64) *writeRate {
	if max == nil {
		return nil
	}
	return &writeRate{perSecond: float64(*max)}
}

// reserve takes units at now and says how long to wait before writing
// (waits under 5 ms are not taken: short bursts are allowed).
func (r *writeRate) reserve(now time.Time, units float64) time.Duration {
	if r == nil {
		return 0
	}
	if r.next.Before(now) {
		r.next = now
	}
	wait := r.next.Sub(now)
	r.next = r.next.Add(time.Duration(units / r.perSecond * float64(time.Second)))
	if wait < 5*time.Millisecond {
		return 0
	}
	return wait
}
