package streams

import (
	"context"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

const arn = "arn:aws:dynamodb:us-east-1:000000000000:table/T/stream/2026-12-02T00:00:00.000"

// harness is a registry over a memory store, with the table T (stream
// NEW_AND_OLD_IMAGES) and no background loop.
type harness struct {
	t     *testing.T
	reg   *Registry
	store Store
	table *change.Table
}

func newHarness(t *testing.T) *harness {
	return newHarnessOn(t, WrapStore(memory.New()), fixedClock{time.Date(2026, 12, 2, 0, 0, 1, 0, time.UTC)}, false)
}

// newHarnessOn is newHarness on store with clock, in cluster mode when
// cluster is set (several harnesses on one store are nodes).
func newHarnessOn(t *testing.T, store Store, clock Clock, cluster bool) *harness {
	h := &harness{t: t, store: store}
	h.table = &change.Table{Name: "T", ID: 1, Hash: change.KeyAttr{Name: "pk", Type: attr.S},
		Stream: change.StreamSpec{Enabled: true, ViewType: "NEW_AND_OLD_IMAGES", ARN: arn,
			Label:     "2026-12-02T00:00:00.000",
			KeySchema: []wire.KeySchemaElement{{AttributeName: wire.Ptr("pk"), KeyType: "HASH"}}}}
	closing := make(chan struct{})
	t.Cleanup(func() { close(closing) })
	h.reg = New(Config{
		Store: h.store, Clock: clock, Region: "us-east-1", Cluster: cluster,
		Commit: func(_ bool, f func(storage.Txn) error) error {
			txn, err := h.store.Begin()
			if err != nil {
				return err
			}
			defer txn.Rollback()
			if err := f(txn); err != nil {
				return err
			}
			return txn.Commit(storage.CommitOptions{})
		},
		Purge:       func(lower, upper []byte) (int, error) { return 0, nil },
		PurgeChunk:  512,
		Authorize:   func(string, string) *ddberr.Error { return nil },
		TableExists: func(name string) bool { return name == "T" },
		Background:  func(func()) {},
		Sleep:       func(time.Duration) bool { return false },
		Closing:     closing,
	})
	if err := h.reg.Open([]Observed{{Table: h.table}}); err != nil {
		t.Fatal(err)
	}
	return h
}

// write stages one change in its own transaction, committed or not.
func (h *harness) write(c change.Change, commit bool) {
	h.t.Helper()
	c.Table = h.table
	txn, err := h.store.Begin()
	if err != nil {
		h.t.Fatal(err)
	}
	defer txn.Rollback()
	if err := h.reg.Stage(txn, c); err != nil {
		h.t.Fatal(err)
	}
	if !commit {
		return
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		h.t.Fatal(err)
	}
	h.reg.Committed(c)
}

// records reads the open shard from its start.
func (h *harness) records() []sw.Record {
	h.t.Helper()
	ctx := context.Background()
	d, err := h.reg.DescribeStream(ctx, &sw.DescribeStreamInput{StreamArn: wire.Ptr(arn)})
	if err != nil {
		h.t.Fatal(err)
	}
	if n := len(d.StreamDescription.Shards); n != 1 {
		h.t.Fatalf("%d shards", n)
	}
	it, err := h.reg.GetShardIterator(ctx, &sw.GetShardIteratorInput{StreamArn: wire.Ptr(arn),
		ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: "TRIM_HORIZON"})
	if err != nil {
		h.t.Fatal(err)
	}
	out, err := h.reg.GetRecords(ctx, &sw.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil {
		h.t.Fatal(err)
	}
	return out.Records
}

func item(v string) attr.Item {
	return attr.Item{"pk": {T: attr.S, Str: "a"}, "v": {T: attr.S, Str: v}}
}

func TestStageRecordsCommittedChanges(t *testing.T) {
	h := newHarness(t)
	h.write(change.Change{New: item("1")}, true)                  // INSERT
	h.write(change.Change{Old: item("1"), New: item("1")}, true)  // no change: no record
	h.write(change.Change{Old: item("1"), New: item("2")}, false) // rolled back
	h.write(change.Change{Old: item("1"), New: item("2")}, true)  // MODIFY
	h.write(change.Change{Old: item("2"), TTL: true}, true)       // REMOVE by the TTL expirer

	recs := h.records()
	var events []string
	for _, r := range recs {
		events = append(events, r.EventName)
	}
	if len(recs) != 3 || events[0] != "INSERT" || events[1] != "MODIFY" || events[2] != "REMOVE" {
		t.Fatalf("events %v, want INSERT MODIFY REMOVE", events)
	}
	mod := recs[1].Dynamodb
	if !attr.ItemsEqual(mod.OldImage, item("1")) || !attr.ItemsEqual(mod.NewImage, item("2")) ||
		!attr.ItemsEqual(mod.Keys, attr.Item{"pk": {T: attr.S, Str: "a"}}) {
		t.Fatalf("MODIFY record %+v", mod)
	}
	if recs[0].UserIdentity != nil || recs[1].UserIdentity != nil {
		t.Fatal("a user's write labelled as the service's")
	}
	if id := recs[2].UserIdentity; id == nil || wire.Deref(id.PrincipalId) != "dynamodb.amazonaws.com" {
		t.Fatalf("TTL deletion's userIdentity %+v", id)
	}
}

func TestNoRecordsWithoutAnEnabledStream(t *testing.T) {
	h := newHarness(t)
	h.write(change.Change{New: item("1")}, true)
	disabled := *h.table
	disabled.Stream.Enabled = false
	h.reg.Observe(&disabled, false) // the table disabled its stream
	h.table = &disabled
	h.write(change.Change{Old: item("1"), New: item("2")}, true)
	if recs := h.records(); len(recs) != 1 {
		t.Fatalf("%d records, want the 1 written while the stream was on", len(recs))
	}
	d, err := h.reg.DescribeStream(context.Background(), &sw.DescribeStreamInput{StreamArn: wire.Ptr(arn)})
	if err != nil || d.StreamDescription.StreamStatus != streamDisabled {
		t.Fatalf("status after disabling: %+v %v", d, err)
	}
}

func TestStageRefusesAForeignTransaction(t *testing.T) {
	h := newHarness(t)
	txn, err := memory.New().Begin() // not begun through Store
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Rollback()
	if err := h.reg.Stage(txn, change.Change{Table: h.table, New: item("1")}); err != errStreamTxn {
		t.Fatalf("Stage in a foreign transaction: %v", err)
	}
}
