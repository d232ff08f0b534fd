package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/export"
	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// leaseTTL is the lease life of the multi-node tests: long in real time,
// so that no renewer tick (every TTL/3) falls within a test; the tests
// move the shared lease clock instead.
const leaseTTL = time.Hour

// openNode opens an engine named id over store, its leases on clock,
// with no timed background TTL pass (the tests run its rounds).
func openNode(t *testing.T, store storage.Store, id string, clock *ctlClock, objects objstore.Store) *Engine {
	t.Helper()
	e, err := Open(store, Config{Node: lease.Node{ID: id, Host: "test", PID: 1}, LeaseClock: clock, LeaseTTL: leaseTTL,
		TTLInterval: -1, Objects: objects})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func putExpired(t *testing.T, e *Engine, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, err := e.PutItem(context.Background(), &wire.PutItemInput{TableName: cpPtr("t"),
			Item: attr.Item{"pk": dpS(k), "exp": dpN(strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10))}}); err != nil {
			t.Fatal(err)
		}
	}
}

// ttlRound runs one background TTL round on e, as its timer would.
func ttlRound(t *testing.T, e *Engine) (int, bool) {
	t.Helper()
	n, ran, err := e.ttl.Round(context.Background(), e.ttlLease())
	if err != nil {
		t.Fatal(err)
	}
	return n, ran
}

// TestLeasedBackgroundWorkOneNodeAtATime: two engines on one store (each
// backend of the layout tests: memory, Pebble, the TiKV mock and, with
// KURA_TEST_POSTGRES, PostgreSQL). The TTL pass, stream upkeep and PITR
// trimming run on one of them only; when that node stops renewing (it
// hangs or dies) the other takes the work over once its leases expire,
// and when it closes, at once.
func TestLeasedBackgroundWorkOneNodeAtATime(t *testing.T) {
	for _, b := range layoutBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			store, _ := b.open(t)
			leasedWorkOneNodeAtATime(t, store)
		})
	}
}

func leasedWorkOneNodeAtATime(t *testing.T, store storage.Store) {
	clock := &ctlClock{}
	a := openNode(t, store, "a", clock, nil)
	ctx := context.Background()
	if _, err := a.CreateTable(ctx, &wire.CreateTableInput{TableName: cpPtr("t"), BillingMode: BillingPayPerRequest,
		AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: cpPtr("pk"), AttributeType: "S"}},
		KeySchema:            []wire.KeySchemaElement{{AttributeName: cpPtr("pk"), KeyType: "HASH"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.UpdateTimeToLive(ctx, &wire.UpdateTimeToLiveInput{TableName: cpPtr("t"),
		TimeToLiveSpecification: &wire.TimeToLiveSpecification{AttributeName: cpPtr("exp"), Enabled: cpPtr(true)}}); err != nil {
		t.Fatal(err)
	}
	putExpired(t, a, "1", "2", "3")
	b := openNode(t, store, "b", clock, nil)

	if n, ran := ttlRound(t, a); !ran || n != 3 {
		t.Fatalf("a's TTL round: ran %v, deleted %d; want it to run and delete 3", ran, n)
	}
	putExpired(t, a, "4", "5")
	if n, ran := ttlRound(t, b); ran || n != 0 {
		t.Fatalf("b's TTL round while a holds the pass: ran %v, deleted %d", ran, n)
	}
	for _, name := range []string{leaseStreams, leasePITR} {
		if !a.holds(name) || b.holds(name) {
			t.Fatalf("lease %s: want a to hold it and b not", name)
		}
	}

	// a stops renewing: b takes every lease over once they expire.
	clock.advance(leaseTTL - time.Second)
	if _, ran := ttlRound(t, b); ran {
		t.Fatal("b took the TTL pass over before a's lease expired")
	}
	clock.advance(2 * time.Second)
	if n, ran := ttlRound(t, b); !ran || n != 2 {
		t.Fatalf("b's TTL round after a's lease expired: ran %v, deleted %d; want 2", ran, n)
	}
	if _, ran := ttlRound(t, a); ran {
		t.Fatal("a ran the TTL pass after b took it over")
	}
	for _, name := range []string{leaseStreams, leasePITR} {
		if !b.holds(name) || a.holds(name) {
			t.Fatalf("lease %s after a's expired: want b to hold it and a not", name)
		}
	}
	h, ok, err := a.leases.Inspect(leaseTTLPass)
	if err != nil || !ok || h.Node.ID != "b" || h.Gen != 2 {
		t.Fatalf("the TTL lease: %+v %v %v, want b's, generation 2", h, ok, err)
	}

	// b closes: a takes over at once.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	putExpired(t, a, "6")
	if n, ran := ttlRound(t, a); !ran || n != 1 {
		t.Fatalf("a's TTL round after b closed: ran %v, deleted %d; want 1", ran, n)
	}
}

// TestJobAdoptedAfterHolderDies: an export left IN_PROGRESS by a node
// that died holding its lease is not run by another node while the lease
// lasts, and is run to completion by it once the lease expired.
func TestJobAdoptedAfterHolderDies(t *testing.T) {
	a, _, root := exportEngine(t)
	exportPut(t, a, attr.Item{"pk": dpS("x"), "v": dpN("1")})
	out, err := a.ExportTableToPointInTime(context.Background(), &wire.ExportTableToPointInTimeInput{
		TableArn: cpPtr(exportTableARN), S3Bucket: cpPtr("exports")})
	if err != nil {
		t.Fatal(err)
	}
	arn := cpDeref(out.ExportDescription.ExportArn)
	waitExport(t, a, arn)
	store := a.store

	// Make it look interrupted: IN_PROGRESS, its files gone, its lease
	// held by a node that then died.
	key := []byte("mexport/" + arn)
	rec := readJSON(t, store, key)
	rec.Desc.ExportStatus, rec.Desc.EndTime, rec.Desc.ExportManifest = export.InProgress, nil, nil
	writeJSON(t, store, key, rec)
	if err := os.RemoveAll(filepath.Join(root, "exports", "AWSDynamoDB")); err != nil {
		t.Fatal(err)
	}
	clock := &ctlClock{}
	dead := lease.New(lease.Config{Store: store, Node: lease.Node{ID: "dead", Host: "elsewhere", PID: 1}, Clock: clock, TTL: leaseTTL})
	if _, err := dead.Acquire(leaseJob + arn); err != nil {
		t.Fatal(err)
	}

	b := openNode(t, store, "b", clock, objstore.Dir{Root: root})
	b.adoptJobs()
	for range 30 { // an export this small runs in milliseconds
		if d := describeExport(t, b, arn); d.ExportStatus != export.InProgress {
			t.Fatalf("b ran an export whose lease another node holds: %s", d.ExportStatus)
		}
		time.Sleep(10 * time.Millisecond)
	}
	clock.advance(leaseTTL + time.Second)
	b.adoptJobs()
	if d := waitExport(t, b, arn); d.ExportStatus != export.Completed {
		t.Fatalf("the adopted export ended %s (%s)", d.ExportStatus, cpDeref(d.FailureMessage))
	}
	if _, err := os.Stat(filepath.Join(root, "exports", "AWSDynamoDB")); err != nil {
		t.Fatalf("the adopted export wrote no files: %v", err)
	}
	// The run releases its lease just after the export is COMPLETED.
	var h lease.Holder
	var ok bool
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		h, ok, err = b.leases.Inspect(leaseJob + arn)
		if err == nil && ok && h.Node.ID == "b" && h.Expires.Equal(time.UnixMilli(0)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job's lease after its run: %+v %v %v, want b's, released", h, ok, err)
		}
	}
}

func describeExport(t *testing.T, e *Engine, arn string) *wire.ExportDescription {
	t.Helper()
	out, err := e.DescribeExport(context.Background(), &wire.DescribeExportInput{ExportArn: &arn})
	if err != nil {
		t.Fatal(err)
	}
	return out.ExportDescription
}

func readJSON(t *testing.T, s storage.Store, key []byte) *export.Record {
	t.Helper()
	snap, err := s.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	v, err := snap.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	var rec export.Record
	if err := json.Unmarshal(v, &rec); err != nil {
		t.Fatal(err)
	}
	return &rec
}

func writeJSON(t *testing.T, s storage.Store, key []byte, rec *export.Record) {
	t.Helper()
	v, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	txn, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Rollback()
	if err := txn.Set(key, v); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestUnderLeaseWaitsForHolder: work guarded by a lease another node
// holds (a backfill it runs) waits until that lease lapses, then runs
// here; it is dropped when no longer wanted.
func TestUnderLeaseWaitsForHolder(t *testing.T) {
	store := memory.New()
	clock := &ctlClock{}
	const ttl = 200 * time.Millisecond // real polling every 100 ms; expiry on clock
	e, err := Open(store, Config{Node: lease.Node{ID: "a", Host: "test", PID: 1}, LeaseClock: clock, LeaseTTL: ttl, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	other := lease.New(lease.Config{Store: store, Node: lease.Node{ID: "b", Host: "test", PID: 1}, Clock: clock, TTL: ttl})
	name := backfillLease(7, 1)
	if _, err := other.Acquire(name); err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.underLease(name, func() bool { return true }, func() { close(ran) })
	}()
	select {
	case <-ran:
		t.Fatal("work ran while another node held its lease")
	case <-time.After(350 * time.Millisecond):
	}
	clock.advance(ttl + time.Millisecond)
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("work did not run after the holder's lease lapsed")
	}
	<-done
	if h, _, _ := e.leases.Inspect(name); h.Node.ID != "a" || h.Gen != 2 || !h.Expires.Equal(time.UnixMilli(0)) {
		t.Fatalf("lease after the work: %+v, want a's generation 2, released", h)
	}

	// Held elsewhere and no longer wanted: dropped without running.
	if _, err := other.Acquire("x"); err != nil {
		t.Fatal(err)
	}
	e.underLease("x", func() bool { return false }, func() { t.Fatal("unwanted work ran") })

	// Finished work is recorded in its lease: a node taking the lease
	// later, whose view may be stale, does not run it again.
	finished := false
	if !e.underLease("y", func() bool { return !finished }, func() { finished = true }) {
		t.Fatal("free work did not run")
	}
	if h, _, _ := e.leases.Inspect("y"); string(h.Progress) != lease.Done {
		t.Fatalf("finished work's lease progress %q, want %q", h.Progress, lease.Done)
	}
	if e.underLease("y", func() bool { return true }, func() { t.Fatal("finished work ran again") }) {
		t.Fatal("underLease reported finished work as run")
	}
}
