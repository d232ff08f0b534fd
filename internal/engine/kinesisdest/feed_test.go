package kinesisdest

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// streams is an in-process stand-in for Kinesis that keeps what it took,
// in order, and refuses calls while down (the black-box tests run the feed
// against kinesalite; this one exercises the Feed's interface and its
// concurrency under the race detector).
type streams struct {
	mu   sync.Mutex
	arns map[string]string
	got  map[string][][]byte
	down atomic.Bool
}

func (s *streams) PutRecords(_ context.Context, stream string, es []Entry) ([]bool, error) {
	if s.down.Load() {
		return nil, errors.New("connection refused")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	taken := make([]bool, len(es))
	for i, e := range es {
		s.got[stream] = append(s.got[stream], e.Data)
		taken[i] = true
	}
	return taken, nil
}

func (s *streams) StreamARN(_ context.Context, stream string) (string, bool, error) {
	if s.down.Load() {
		return "", false, errors.New("connection refused")
	}
	arn, ok := s.arns[stream]
	return arn, ok, nil
}

func (s *streams) records(stream string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.got[stream]...)
}

const testARN = "arn:aws:kinesis:us-east-1:000000000000:stream/s1"

func TestFeedDeliversInOrderAcrossAnOutageAndAReopen(t *testing.T) {
	store := memory.New()
	k := &streams{arns: map[string]string{"s1": testARN}, got: map[string][][]byte{}}
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	cfg := Config{Client: k, Region: "us-east-1", Clock: clock, Poll: 5 * time.Millisecond}
	f, err := Open(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tbl := &change.Table{Name: "T", ID: 1, Hash: change.KeyAttr{Name: "pk", Type: attr.S}}
	ref := TableRef{ID: 1, Name: "T", UUID: "u"}
	if _, err := f.Enable(ref, testARN, ""); err != nil {
		t.Fatal(err)
	}
	now.Add(int64(enablingFor))
	waitState(t, f, ref, Active)

	write := func(f *Feed, i int) {
		t.Helper()
		txn, err := store.Begin()
		if err != nil {
			t.Fatal(err)
		}
		c := change.Change{Table: tbl, New: attr.Item{"pk": sv("k" + strconv.Itoa(i%4)), "i": attr.Value{T: attr.N, Str: strconv.Itoa(i)}}}
		if err := f.Stage(txn, c); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(storage.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		f.Committed(c)
	}
	var wg sync.WaitGroup
	for w := range 4 { // writers of different items at once (the engine serialises writers of one item)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 40; i += 4 {
				write(f, i)
			}
		}()
	}
	wg.Wait()
	k.down.Store(true)
	for i := 40; i < 60; i++ {
		write(f, i)
	}
	f.Close() // with Kinesis down: the last 20 stay in the outbox
	k.down.Store(false)
	if f, err = Open(store, cfg); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := 60; i < 70; i++ {
		write(f, i)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(k.records("s1")) < 70 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	recs := k.records("s1")
	if len(recs) != 70 {
		t.Fatalf("%d records, want 70 (each change once: nothing failed after Kinesis took it)", len(recs))
	}
	last := map[string]int{}
	for _, b := range recs {
		var r struct {
			Dynamodb struct {
				NewImage map[string]map[string]string
			} `json:"dynamodb"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		pk, i := r.Dynamodb.NewImage["pk"]["S"], r.Dynamodb.NewImage["i"]["N"]
		n, _ := strconv.Atoi(i)
		if p, ok := last[pk]; ok && n < p {
			t.Fatalf("item %s: change %d after %d", pk, n, p)
		}
		last[pk] = n
	}
}

func TestFeedEnableFailedAndDisable(t *testing.T) {
	k := &streams{arns: map[string]string{"s1": testARN}, got: map[string][][]byte{}}
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	f, err := Open(memory.New(), Config{Client: k, Clock: func() time.Time { return time.Unix(0, now.Load()) }, Poll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref := TableRef{ID: 1, Name: "T"}
	missing := "arn:aws:kinesis:us-east-1:000000000000:stream/nope"
	if _, err := f.Enable(ref, missing, ""); err != nil {
		t.Fatal(err)
	}
	now.Add(int64(enablingFor))
	if d := waitState(t, f, ref, EnableFailed); d.DestinationStatusDescription == nil || *d.DestinationStatusDescription != noPermission {
		t.Fatalf("ENABLE_FAILED without its reason: %+v", d)
	}
	if _, err := f.Enable(ref, testARN, "MICROSECOND"); err != nil {
		t.Fatal(err)
	}
	now.Add(int64(enablingFor))
	waitState(t, f, ref, Active)
	if _, err := f.Disable(ref, testARN); err != nil {
		t.Fatal(err)
	}
	if (*f.byTable.Load())[1] != nil {
		t.Fatal("a DISABLING destination still captures changes")
	}
	// A second Disable while DISABLING is answered DISABLING, as DynamoDB's
	// (ack-api-quirks DDB-TABLE-301); once DISABLED it is refused.
	if out, err := f.Disable(ref, testARN); err != nil || out.DestinationStatus != Disabling {
		t.Fatalf("Disable while DISABLING: %v %+v", err, out)
	}
	now.Add(int64(disablingFor))
	waitState(t, f, ref, Disabled)
	if _, err := f.Disable(ref, testARN); err == nil {
		t.Fatal("Disable of a DISABLED destination accepted")
	}
}

// waitState waits until the table's newest destination is in state.
func waitState(t *testing.T, f *Feed, ref TableRef, state string) wire.KinesisDataStreamDestination {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ds := f.Describe(ref).KinesisDataStreamDestinations
		if len(ds) > 0 && ds[0].DestinationStatus == state {
			return ds[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("destinations %+v, want the newest %s", ds, state)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFeedDeletingTable: while its table is DELETING a destination is
// described as it was and answers the operations as DynamoDB's does
// (ack-api-quirks DDB-TABLE-236): Enable is refused, Update is accepted;
// nothing more is captured, and what was captured is still delivered.
func TestFeedDeletingTable(t *testing.T) {
	store := memory.New()
	k := &streams{arns: map[string]string{"s1": testARN}, got: map[string][][]byte{}}
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	f, ref := openActive(t, store, k, &now, 5*time.Millisecond)
	k.down.Store(true) // the change waits in the outbox across the deletion
	stageInsert(t, store, f, "a")

	if err := f.DropTable(ref.ID); err != nil {
		t.Fatal(err)
	}
	ref.Deleting = true
	if ds := f.Describe(ref).KinesisDataStreamDestinations; len(ds) != 1 || ds[0].DestinationStatus != Active {
		t.Fatalf("DELETING table's destinations %+v, want its ACTIVE one", ds)
	}
	if (*f.byTable.Load())[1] != nil {
		t.Fatal("a deleted table's destination still captures changes")
	}
	other := "arn:aws:kinesis:us-east-1:000000000000:stream/s2"
	for _, arn := range []string{testARN, other} {
		if _, err := f.Enable(ref, arn, ""); err == nil || err.Error() != "ValidationException: "+notValid+"EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform ENABLE operation." {
			t.Fatalf("Enable %s on a DELETING table: %v", arn, err)
		}
	}
	if out, err := f.Update(ref, testARN, "MICROSECOND"); err != nil || out.DestinationStatus != Updating {
		t.Fatalf("Update on a DELETING table: %v %+v", err, out)
	}
	waitState(t, f, ref, Updating)

	k.down.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for len(k.records("s1")) < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(k.records("s1")); n != 1 {
		t.Fatalf("%d records delivered after the deletion, want the one captured before", n)
	}
}

// TestFeedPrecisionWhileUpdating: DynamoDB documents no precision for the
// records of changes made while a precision update is UPDATING; Kura's keep
// the old one until UPDATING ends, by the table's clock, and every record
// names the precision its ApproximateCreationDateTime is in.
func TestFeedPrecisionWhileUpdating(t *testing.T) {
	store := memory.New()
	k := &streams{arns: map[string]string{"s1": testARN}, got: map[string][][]byte{}}
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	f, ref := openActive(t, store, k, &now, time.Hour) // states move on when Described or woken
	if _, err := f.Update(ref, testARN, "MICROSECOND"); err != nil {
		t.Fatal(err)
	}
	stageInsert(t, store, f, "during")
	now.Add(int64(updatingFor))
	stageInsert(t, store, f, "after") // UPDATING has ended by the clock, whether or not the forwarder has looked yet
	deadline := time.Now().Add(5 * time.Second)
	for len(k.records("s1")) < 2 && time.Now().Before(deadline) {
		f.wake()
		time.Sleep(5 * time.Millisecond)
	}
	want := map[string]struct {
		precision string
		at        int64
	}{
		"during": {"MILLISECOND", clock().Add(-updatingFor).UnixMilli()},
		"after":  {"MICROSECOND", clock().UnixMicro()},
	}
	recs := k.records("s1")
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, b := range recs {
		var r struct {
			Dynamodb struct {
				Keys                                 map[string]map[string]string
				ApproximateCreationDateTime          int64
				ApproximateCreationDateTimePrecision string
			} `json:"dynamodb"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		pk := r.Dynamodb.Keys["pk"]["S"]
		if w := want[pk]; r.Dynamodb.ApproximateCreationDateTimePrecision != w.precision || r.Dynamodb.ApproximateCreationDateTime != w.at {
			t.Errorf("record of %q: %d in %s, want %d in %s", pk, r.Dynamodb.ApproximateCreationDateTime, r.Dynamodb.ApproximateCreationDateTimePrecision, w.at, w.precision)
		}
	}
}

// openActive opens a Feed on store whose clock is now, with table T (ID 1)
// given an ACTIVE destination of testARN.
func openActive(t *testing.T, store storage.Store, k *streams, now *atomic.Int64, poll time.Duration) (*Feed, TableRef) {
	t.Helper()
	f, err := Open(store, Config{Client: k, Clock: func() time.Time { return time.Unix(0, now.Load()) }, Poll: poll})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	ref := TableRef{ID: 1, Name: "T", UUID: "u"}
	if _, err := f.Enable(ref, testARN, ""); err != nil {
		t.Fatal(err)
	}
	now.Add(int64(enablingFor))
	waitState(t, f, ref, Active)
	return f, ref
}

// stageInsert commits the insert of item pk into table T (ID 1) as the
// engine does: staged in the item's transaction, then Committed.
func stageInsert(t *testing.T, store storage.Store, f *Feed, pk string) {
	t.Helper()
	txn, err := store.Begin()
	if err != nil {
		t.Fatal(err)
	}
	tbl := &change.Table{Name: "T", ID: 1, Hash: change.KeyAttr{Name: "pk", Type: attr.S}}
	c := change.Change{Table: tbl, New: attr.Item{"pk": sv(pk)}}
	if err := f.Stage(txn, c); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Committed(c)
}
