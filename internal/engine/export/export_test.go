package export

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// The test's key layout: items "i" id(8) suffix; no history (every change
// is before the export time).
var layout = &snapshot.Layout{
	Items: func(id uint64) ([]byte, []byte) {
		return binary.BigEndian.AppendUint64([]byte{'i'}, id), binary.BigEndian.AppendUint64([]byte{'i'}, id+1)
	},
	PrefixLen:     9,
	HistoryAfter:  func(uint64, time.Time) ([]byte, []byte) { return []byte("h"), []byte("h") },
	DecodeHistory: func([]byte) ([]byte, []byte, error) { panic("no history") },
}

// fixture is a store with table 1's items, a folder of buckets and the
// Options that run exports over them.
type fixture struct {
	store   *memory.Store
	root    string
	opts    Options
	bg      sync.WaitGroup
	closing chan struct{}
}

func newFixture(t *testing.T, items ...attr.Item) *fixture {
	t.Helper()
	f := &fixture{store: memory.New(), root: t.TempDir(), closing: make(chan struct{})}
	if err := os.Mkdir(filepath.Join(f.root, "exports"), 0o755); err != nil {
		t.Fatal(err)
	}
	txn, err := f.store.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		key := append(binary.BigEndian.AppendUint64([]byte{'i'}, 1), it["pk"].Str...)
		if err := txn.Set(key, attr.AppendItem(nil, it)); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	f.opts = Options{
		Store: f.store, Objects: objstore.Dir{Root: f.root}, Now: time.Now,
		Snapshot: func() (*snapshot.Reader, error) { return snapshot.Open(f.store, layout) },
		ParseFilter: func(uint64, *wire.FilterSpecification) (Filter, bool, error) {
			return onlyPK("b"), true, nil
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

// onlyPK exports the item with that partition key only.
type onlyPK string

func (o onlyPK) Keep(it attr.Item) (attr.Item, bool, error) {
	return it, it["pk"].Str == string(o), nil
}

func record(bucket string) *Record {
	now := time.Now()
	return &Record{TableID: 1, Desc: wire.ExportDescription{
		ExportArn: wire.Ptr(ARN("us-east-1", "000000000000", "t", now)), StartTime: wire.NewTime(now),
		ExportTime: wire.NewTime(now), S3Bucket: &bucket, S3Prefix: wire.Ptr("p/"),
		ExportFormat: FormatJSON, ExportType: TypeFull,
	}}
}

func wait(t *testing.T, x *Exports, arn string) *wire.ExportDescription {
	t.Helper()
	for range 500 {
		d, err := x.Describe(arn)
		if err != nil {
			t.Fatal(err)
		}
		if d.ExportStatus != InProgress {
			return d
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("export still IN_PROGRESS")
	return nil
}

// dataLines is what the export's data files hold, sorted.
func (f *fixture) dataLines(t *testing.T, d *wire.ExportDescription) []string {
	t.Helper()
	dir := filepath.Join(f.root, wire.Deref(d.S3Bucket), filepath.FromSlash(filesPrefix(d)), "data")
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range files {
		fh, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		for sc := bufio.NewScanner(zr); sc.Scan(); {
			lines = append(lines, sc.Text())
		}
		fh.Close()
	}
	slices.Sort(lines)
	return lines
}

var (
	itemA = attr.Item{"pk": {T: attr.S, Str: "a"}}
	itemB = attr.Item{"pk": {T: attr.S, Str: "b"}, "n": {T: attr.N, Str: "2"}}
)

// TestExportWritesTheSnapshot: Start writes the items the snapshot
// holds (filtered), one data file, the manifests, and COMPLETED with the
// counts; a write after Start is not in it.
func TestExportWritesTheSnapshot(t *testing.T) {
	f := newFixture(t, itemA, itemB)
	x, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	all := record("exports")
	d, err := x.Start(all, nil)
	if err != nil || d.ExportStatus != InProgress {
		t.Fatalf("Start: %+v %v", d, err)
	}
	d = wait(t, x, wire.Deref(d.ExportArn))
	if d.ExportStatus != Completed || wire.Deref(d.ItemCount) != 2 || wire.Deref(d.ExportManifest) != filesPrefix(d)+"manifest-summary.json" {
		t.Fatalf("finished: %+v", d)
	}
	want := []string{`{"Item":{"n":{"N":"2"},"pk":{"S":"b"}}}`, `{"Item":{"pk":{"S":"a"}}}`}
	if got := f.dataLines(t, d); !slices.Equal(got, want) {
		t.Fatalf("data %q, want %q", got, want)
	}
	for _, name := range []string{"_started", "manifest-files.json", "manifest-files.checksum", "manifest-summary.json", "manifest-summary.checksum"} {
		if _, err := os.Stat(filepath.Join(f.root, "exports", filepath.FromSlash(filesPrefix(d)), name)); err != nil {
			t.Errorf("no %s: %v", name, err)
		}
	}
	d, err = x.Start(record("exports"), onlyPK("a"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.dataLines(t, wait(t, x, wire.Deref(d.ExportArn))); !slices.Equal(got, want[1:]) {
		t.Fatalf("filtered data %q", got)
	}
}

// TestExportToMissingBucketFails: S3's error becomes the export's
// FailureCode.
func TestExportToMissingBucketFails(t *testing.T) {
	f := newFixture(t, itemA)
	x, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := x.Start(record("nope"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d = wait(t, x, wire.Deref(d.ExportArn)); d.ExportStatus != Failed || wire.Deref(d.FailureCode) != "S3NoSuchBucket" || d.ItemCount != nil {
		t.Fatalf("export to a missing bucket: %+v", d)
	}
}

// TestOpenRunsInterruptedExportAgain: an export stored IN_PROGRESS (a
// stop interrupted it) runs again at Open, with its filter parsed again,
// and writes the same data file in place of what the first run left.
func TestOpenRunsInterruptedExportAgain(t *testing.T) {
	f := newFixture(t, itemA, itemB)
	x, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := record("exports")
	rec.Desc.ExportStatus = InProgress
	rec.Filter = &wire.FilterSpecification{FilterExpression: wire.Ptr("pk = :b")} // parsed by the core: onlyPK("b") here
	if err := x.log.Save(rec); err != nil {
		t.Fatal(err)
	}
	// What a first, interrupted run left: the same data file, partly written.
	first := filepath.Join(f.root, "exports", filepath.FromSlash(filesPrefix(&rec.Desc)), "data", dataFileName(&rec.Desc)+".json.gz")
	if err := os.MkdirAll(filepath.Dir(first), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	d := wait(t, again, rec.JobARN())
	if d.ExportStatus != Completed || wire.Deref(d.ItemCount) != 1 {
		t.Fatalf("run again: %+v", d)
	}
	if got := f.dataLines(t, d); !slices.Equal(got, []string{`{"Item":{"n":{"N":"2"},"pk":{"S":"b"}}}`}) {
		t.Fatalf("data after running again %q", got)
	}
}

// TestByTokenAndList: a ClientToken names its export again, or conflicts
// when reused for another; List pages oldest first.
func TestByTokenAndList(t *testing.T) {
	f := newFixture(t)
	x, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := record("exports"), record("exports")
	r1.Desc.ClientToken, r1.Desc.TableArn = wire.Ptr("tok"), wire.Ptr("arn:t")
	for _, r := range []*Record{r1, r2} {
		if _, err := x.Start(r, nil); err != nil {
			t.Fatal(err)
		}
		wait(t, x, r.JobARN())
	}
	in := &wire.ExportTableToPointInTimeInput{ClientToken: wire.Ptr("tok"), TableArn: wire.Ptr("arn:t"), S3Bucket: wire.Ptr("exports"), S3Prefix: wire.Ptr("p/")}
	if d, err := x.ByToken(in); err != nil || wire.Deref(d.ExportArn) != r1.JobARN() {
		t.Fatalf("ByToken: %+v %v", d, err)
	}
	in.S3Prefix = wire.Ptr("other/")
	if _, err := x.ByToken(in); err == nil || !strings.Contains(err.Error(), "ExportConflictException") {
		t.Fatalf("token reused: %v", err)
	}
	out, err := x.List(&wire.ListExportsInput{MaxResults: wire.Ptr[int32](1)})
	if err != nil || len(out.ExportSummaries) != 1 || wire.Deref(out.ExportSummaries[0].ExportArn) != r1.JobARN() || out.NextToken == nil {
		t.Fatalf("List: %+v %v", out, err)
	}
	if _, err := x.Describe("arn:none"); err == nil || !strings.Contains(err.Error(), "Export not found: arn:none") {
		t.Fatalf("Describe unknown: %v", err)
	}
}
