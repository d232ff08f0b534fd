package imports

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// table is a Target that keeps what it is given: items by "pk", in
// transactions, and how it ended.
type table struct {
	mu       sync.Mutex
	items    map[string]attr.Item
	txns     int
	finished bool
	dropped  bool
}

func (t *table) Check(it attr.Item) error {
	if it["pk"].T != attr.S {
		return errors.New("no string key pk")
	}
	return nil
}
func (t *table) Key(it attr.Item) string { return it["pk"].Str }
func (t *table) Write(items []attr.Item) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.items == nil {
		t.items = map[string]attr.Item{}
	}
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it["pk"].Str] {
			return errors.New("two items with one key in a transaction")
		}
		seen[it["pk"].Str] = true
		t.items[it["pk"].Str] = it
	}
	t.txns++
	return nil
}
func (t *table) Finish() { t.mu.Lock(); t.finished = true; t.mu.Unlock() }
func (t *table) Drop()   { t.mu.Lock(); t.dropped = true; t.mu.Unlock() }

func (t *table) keys() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ks []string
	for k, it := range t.items {
		ks = append(ks, k+"="+it["v"].Str)
	}
	slices.Sort(ks)
	return ks
}

type fixture struct {
	root    string
	opts    Options
	bg      sync.WaitGroup
	closing chan struct{}
	tables  map[uint64]*table
}

// newFixture is a store, a bucket "src" holding files (key → content)
// and the Options that run imports over them.
func newFixture(t *testing.T, files map[string][]byte) *fixture {
	t.Helper()
	f := &fixture{root: t.TempDir(), closing: make(chan struct{}), tables: map[uint64]*table{}}
	for key, body := range files {
		path := filepath.Join(f.root, "src", filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.opts = Options{
		Store: memory.New(), Objects: objstore.Dir{Root: f.root}, Now: time.Now,
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

func record(bucket, prefix, format, compression string) *Record {
	now := time.Now()
	return &Record{TableID: 1, Desc: wire.ImportTableDescription{
		ImportArn: wire.Ptr(ARN("us-east-1", "000000000000", "t", now)), StartTime: wire.NewTime(now),
		S3BucketSource: &wire.S3BucketSource{S3Bucket: &bucket, S3KeyPrefix: &prefix},
		InputFormat:    format, InputCompressionType: compression,
		TableCreationParameters: &wire.TableCreationParameters{TableName: wire.Ptr("t"),
			AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: wire.Ptr("pk"), AttributeType: "S"}, {AttributeName: wire.Ptr("n"), AttributeType: "N"}}},
	}}
}

func wait(t *testing.T, m *Imports, arn string) *wire.ImportTableDescription {
	t.Helper()
	for range 500 {
		d, err := m.Describe(arn)
		if err != nil {
			t.Fatal(err)
		}
		if d.ImportStatus != InProgress {
			return d
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("import still IN_PROGRESS")
	return nil
}

func gz(b string) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(b))
	w.Close()
	return buf.Bytes()
}

// TestImportJSON: every object under the prefix is read (GZIP); a later
// record of a key replaces an earlier one; a bad record is counted and
// ends its object, not the import, which is FAILED with
// ItemValidationError and its table kept (Finish).
func TestImportJSON(t *testing.T) {
	f := newFixture(t, map[string][]byte{
		"in/a.json.gz": gz(`{"Item":{"pk":{"S":"a"},"v":{"S":"1"}}}` + "\n" + `{"Item":{"pk":{"S":"a"},"v":{"S":"2"}}}{"Item":{"pk":{"S":"b"}}}`),
		"in/b.json.gz": gz(`{"Item":{"pk":{"S":"c"}}}` + "\n" + `{"Item":{"pk":{"N":"1"}}}` + "\n" + `{"Item":{"pk":{"S":"skipped"}}}`),
		"other/c.json": gz(`{"Item":{"pk":{"S":"not under the prefix"}}}`),
	})
	m, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	tb := &table{}
	d, err := m.Start(record("src", "in/", "DYNAMODB_JSON", "GZIP"), tb)
	if err != nil || d.ImportStatus != InProgress {
		t.Fatalf("Start: %+v %v", d, err)
	}
	d = wait(t, m, wire.Deref(d.ImportArn))
	if got := tb.keys(); !slices.Equal(got, []string{"a=2", "b=", "c="}) {
		t.Fatalf("imported %v", got)
	}
	if d.ImportStatus != Failed || wire.Deref(d.FailureCode) != ItemValidation || wire.Deref(d.ErrorCount) != 1 ||
		wire.Deref(d.ImportedItemCount) != 4 || wire.Deref(d.ProcessedItemCount) != 5 || !tb.finished || tb.dropped {
		t.Fatalf("ended: %+v (finished %v dropped %v)", d, tb.finished, tb.dropped)
	}
}

// TestImportCSV: the header names the columns; a key attribute the table
// defines as N is a number, every other column a string; COMPLETED.
func TestImportCSV(t *testing.T) {
	f := newFixture(t, map[string][]byte{"x.csv": []byte("pk,n,v\na,01.50,x\nb,2,y\n")})
	m, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	tb := &table{}
	d, err := m.Start(record("src", "", "CSV", "NONE"), tb)
	if err != nil {
		t.Fatal(err)
	}
	if d = wait(t, m, wire.Deref(d.ImportArn)); d.ImportStatus != Completed || wire.Deref(d.ImportedItemCount) != 2 || !tb.finished {
		t.Fatalf("ended: %+v", d)
	}
	if n := tb.items["a"]["n"]; n.T != attr.N || n.Str != "1.5" {
		t.Fatalf("n = %+v", n)
	}
	if v := tb.items["b"]["v"]; v.T != attr.S || v.Str != "y" {
		t.Fatalf("v = %+v", v)
	}
}

// TestImportMissingBucket: an import that cannot read its objects fails
// with S3's code and drops its table.
func TestImportMissingBucket(t *testing.T) {
	f := newFixture(t, nil)
	m, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	tb := &table{}
	d, err := m.Start(record("nope", "", "DYNAMODB_JSON", "NONE"), tb)
	if err != nil {
		t.Fatal(err)
	}
	if d = wait(t, m, wire.Deref(d.ImportArn)); d.ImportStatus != Failed || wire.Deref(d.FailureCode) != "S3NoSuchBucket" || !tb.dropped || tb.finished {
		t.Fatalf("ended: %+v", d)
	}
	if _, err := m.Describe("arn:none"); err == nil {
		t.Fatal("an unknown import was described")
	}
}

// TestOpenRunsInterruptedImportAgain: an import stored IN_PROGRESS runs
// again at Open when its table is still there, and is left alone when it
// is not.
func TestOpenRunsInterruptedImportAgain(t *testing.T) {
	f := newFixture(t, map[string][]byte{"a.json": []byte(`{"Item":{"pk":{"S":"a"}}}`)})
	m, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	kept, gone := record("src", "", "DYNAMODB_JSON", "NONE"), record("src", "", "DYNAMODB_JSON", "NONE")
	gone.TableID, gone.Desc.StartTime = 2, wire.NewTime(kept.Desc.StartTime.Add(time.Second))
	for _, r := range []*Record{kept, gone} {
		r.Desc.ImportStatus = InProgress
		if err := m.log.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	f.tables[1] = &table{}
	again, err := Open(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := wait(t, again, kept.JobARN()); d.ImportStatus != Completed || !slices.Equal(f.tables[1].keys(), []string{"a="}) {
		t.Fatalf("run again: %+v %v", d, f.tables[1].keys())
	}
	if d, _ := again.Describe(gone.JobARN()); d.ImportStatus != InProgress {
		t.Fatalf("an import without its table: %+v", d)
	}
	list, err := again.List(&wire.ListImportsInput{})
	if err != nil || len(list.ImportSummaryList) != 2 || wire.Deref(list.ImportSummaryList[0].ImportArn) != kept.JobARN() {
		t.Fatalf("List: %+v %v", list, err)
	}
}
