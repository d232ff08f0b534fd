package bulk

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// table is a Target that keeps the items put into it; an item whose pk
// is "taken" fails its condition, and every item makes one GSI entry
// "g" of 10 bytes.
type table struct {
	mu    sync.Mutex
	items map[string]attr.Item
}

func (t *table) Name() string { return "t" }

func (t *table) Put(in *wire.PutItemInput) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	pk := in.Item["pk"].Str
	if pk == "taken" && in.ConditionExpression != nil {
		e := ddberr.ConditionalCheckFailed()
		e.Item = attr.Item{"pk": in.Item["pk"], "old": {T: attr.S, Str: "yes"}}
		return e
	}
	if pk == "" {
		return ddberr.Validation("One or more parameter values were invalid: Missing the key pk in the item")
	}
	if t.items == nil {
		t.items = map[string]attr.Item{}
	}
	t.items[pk] = in.Item
	return nil
}

func (t *table) IndexEntries(item attr.Item, add func(bool, string, int64)) { add(true, "g", 10) }

type fixture struct {
	root    string
	opts    Options
	bg      sync.WaitGroup
	closing chan struct{}
	tables  map[uint64]*table
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	f := &fixture{root: t.TempDir(), closing: make(chan struct{}), tables: map[uint64]*table{}}
	for _, dir := range []string{"input", "output"} {
		if err := os.MkdirAll(filepath.Join(f.root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for key, body := range files {
		if err := os.WriteFile(filepath.Join(f.root, "input", key), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.opts = Options{
		Store: memory.New(), Objects: objstore.Dir{Root: f.root}, Now: time.Now,
		Sleep: func(d time.Duration) bool {
			select {
			case <-f.closing:
				return false
			case <-time.After(d):
				return true
			}
		},
		WriteUnits: func(size int) float64 { return float64(max(1, (size+1023)/1024)) },
		Target: func(id uint64) (Target, bool) {
			tb, ok := f.tables[id]
			return tb, ok
		},
		Closing: f.closing,
		Go: func(fn func()) {
			f.bg.Add(1)
			go func() { defer f.bg.Done(); fn() }()
		},
	}
	t.Cleanup(func() { close(f.closing); f.bg.Wait() })
	return f
}

func record() *Record {
	now := time.Now()
	return &Record{TableID: 1, Desc: wire.BulkOperationDescription{
		BulkOperationArn: wire.Ptr(ARN("us-east-1", "000000000000", "t", now)), StartTime: wire.NewTime(now),
		InputS3Configuration:  &wire.InputS3Configuration{S3Bucket: wire.Ptr("input"), InputCompressionType: "NONE"},
		OutputS3Configuration: &wire.OutputS3Configuration{S3Bucket: wire.Ptr("output"), OutputType: []string{"ERROR", "CONDITION_CHECK_FAILURE"}},
		ProcessedItemCount:    wire.Ptr[int64](0), FailedItemCount: wire.Ptr[int64](0), ProcessedInputBytes: wire.Ptr[int64](0),
		TableDetails: []wire.BulkOperationTableDetail{{TableName: wire.Ptr("t")}},
	}}
}

func wait(t *testing.T, o *Operations, arn string) *wire.BulkOperationDescription {
	t.Helper()
	for range 1000 {
		d, err := o.Describe(arn)
		if err != nil {
			t.Fatal(err)
		}
		if d.BulkOperationStatus != InProgress && d.BulkOperationStatus != Cancelling {
			return d
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("bulk operation still running")
	return nil
}

// TestRunPutsAndReports: every record is put through the Target; one
// that is not a record and one the table refuses are ERRORs, one whose
// condition fails a CONDITION_CHECK_FAILURE (not a failed item); the
// report and the usage say so.
func TestRunPutsAndReports(t *testing.T) {
	f := newFixture(t, map[string]string{"a.json": `{"Item":{"pk":{"S":"a"}}}
not json
{"Item":{"pk":{"S":"taken"}},"ConditionExpression":"attribute_not_exists(pk)"}

{"Item":{"x":{"S":"no key"}}}
{"Item":{"pk":{"S":"b"}}}
`})
	tb := &table{}
	f.tables[1] = tb
	o, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := record()
	if _, err := o.Start(rec, tb); err != nil {
		t.Fatal(err)
	}
	d := wait(t, o, rec.JobARN())
	if d.BulkOperationStatus != CompletedWithErrors || wire.Deref(d.ProcessedItemCount) != 5 || wire.Deref(d.FailedItemCount) != 2 || len(tb.items) != 2 {
		t.Fatalf("ended: %s %s %s processed %d failed %d, items %v", d.BulkOperationStatus, wire.Deref(d.FailureCode), wire.Deref(d.FailureMessage), wire.Deref(d.ProcessedItemCount), wire.Deref(d.FailedItemCount), tb.items)
	}
	if u := d.BulkOperationUsage[0]; wire.Deref(u.GlobalSecondaryIndexes["g"].BulkPutBytes) != 20 || wire.Deref(u.BulkPutBytes) != wire.Deref(u.Table.BulkPutBytes)+20 {
		t.Fatalf("usage %+v", u)
	}
	dir := filepath.Join(f.root, "output", "AWSDynamoDB", operationID(rec.JobARN()))
	errs, err := os.ReadFile(filepath.Join(dir, "ERROR", "part-00000.json"))
	if err != nil || strings.Count(string(errs), "\n") != 2 || !strings.Contains(string(errs), `"RecordNumber":2`) {
		t.Fatalf("ERROR report %q %v", errs, err)
	}
	cond, err := os.ReadFile(filepath.Join(dir, "CONDITION_CHECK_FAILURE", "part-00000.json"))
	if err != nil || !strings.Contains(string(cond), `"ExistingItem"`) {
		t.Fatalf("CONDITION_CHECK_FAILURE report %q %v", cond, err)
	}
	var m struct{ Files []string }
	if b, err := os.ReadFile(filepath.Join(dir, "manifest-summary.json")); err != nil || json.Unmarshal(b, &m) != nil || len(m.Files) != 2 {
		t.Fatalf("manifest %+v %v", m, err)
	}
	if _, err := o.Cancel(rec.JobARN()); err == nil || !strings.Contains(err.Error(), "cannot be cancelled: its status is COMPLETED_WITH_ERRORS") {
		t.Fatalf("cancelling an ended operation: %v", err)
	}
	var de *ddberr.Error
	if _, err := o.Describe("arn:none"); !errors.As(err, &de) || de.Message != "Bulk operation not found: arn:none" {
		t.Fatalf("Describe unknown: %v", err)
	}
}

// TestOpenGoesOn: at Open an operation stored IN_PROGRESS goes on when its
// table is there and ends FAILED when it is gone; one stored CANCELLING
// ends CANCELLED.
func TestOpenGoesOn(t *testing.T) {
	f := newFixture(t, map[string]string{"a.json": `{"Item":{"pk":{"S":"a"}}}` + "\n"})
	o, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	running, gone, cancelling := record(), record(), record()
	gone.TableID = 2
	cancelling.Desc.BulkOperationStatus = Cancelling
	for i, r := range []*Record{running, gone, cancelling} {
		r.Desc.StartTime = wire.NewTime(r.Desc.StartTime.Add(time.Duration(i) * time.Second))
		if r.Desc.BulkOperationStatus == "" {
			r.Desc.BulkOperationStatus = InProgress
		}
		if err := o.log.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	f.tables[1] = &table{}
	again, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := wait(t, again, running.JobARN()); d.BulkOperationStatus != Completed || len(f.tables[1].items) != 1 {
		t.Fatalf("went on: %+v", d)
	}
	if d := wait(t, again, gone.JobARN()); d.BulkOperationStatus != Failed || wire.Deref(d.FailureCode) != "TableNotFound" {
		t.Fatalf("table gone: %+v", d)
	}
	if d := wait(t, again, cancelling.JobARN()); d.BulkOperationStatus != Cancelled {
		t.Fatalf("cancelling: %+v", d)
	}
	list, err := again.List(&wire.ListBulkOperationsInput{MaxResults: wire.Ptr[int32](2)})
	if err != nil || len(list.BulkOperationsSummaryList) != 2 || wire.Deref(list.BulkOperationsSummaryList[0].BulkOperationArn) != cancelling.JobARN() || list.NextToken == nil {
		t.Fatalf("List (newest first): %+v %v", list, err)
	}
}
