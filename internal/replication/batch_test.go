package replication

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

// countingStore counts the commits made in a store.
type countingStore struct {
	storage.Store
	commits atomic.Int64
}

type countingTxn struct {
	storage.Txn
	s *countingStore
}

func (s *countingStore) Begin() (storage.Txn, error) {
	t, err := s.Store.Begin()
	if err != nil {
		return nil, err
	}
	return &countingTxn{t, s}, nil
}

func (t *countingTxn) Commit(o storage.CommitOptions) error {
	t.s.commits.Add(1)
	return t.Txn.Commit(o)
}

// newCountingRig is a rig whose replication store and eu-west-1 engine
// store count their commits.
func newCountingRig(t *testing.T) (r *rig, repl, west *countingStore) {
	repl, west = &countingStore{Store: memory.New()}, &countingStore{Store: memory.New()}
	r = &rig{t: t, store: repl, engines: map[string]*engine.Engine{}, clocks: map[string]*clock{}}
	for name, store := range map[string]storage.Store{east: memory.New(), "eu-west-1": west} {
		c := &clock{engine.AdminClock{Base: fixedClock(t0)}}
		e, err := engine.Open(store, engine.Config{Region: name, Clock: c, TTLInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		r.engines[name], r.clocks[name] = e, c
		t.Cleanup(func() { e.Close() })
	}
	r.open()
	t.Cleanup(func() { r.g.Close() })
	return r, repl, west
}

// putMany writes pk-0 … pk-(n-1) with n = v in region, 25 to a request.
func (r *rig) putMany(region string, n, v int) {
	r.t.Helper()
	for i := 0; i < n; i += 25 {
		var reqs []wire.WriteRequest
		for j := i; j < min(i+25, n); j++ {
			reqs = append(reqs, wire.WriteRequest{PutRequest: &wire.PutRequest{Item: attr.Item{
				"pk": {T: attr.S, Str: "pk-" + strconv.Itoa(j)}, "n": {T: attr.N, Str: strconv.Itoa(v)}}}})
		}
		if _, err := r.g.Region(region).BatchWriteItem(bg, &wire.BatchWriteItemInput{RequestItems: map[string][]wire.WriteRequest{"T": reqs}}); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Replication keeps up with many writers by sharing commits: a backlog of
// 400 writes is read from the source's stream in a few store commits
// (one per page of records) and applied in the replica with one commit
// of its store per 25 writes and a few of the replication store per
// batch, not several per write.
//
// Seen failing before the batching: the reader committed once per stream
// record and the applier twice per write plus a PutItem each (about 1 600
// replication-store and 400 replica commits for these 400 writes).
func TestReplicationSharesCommits(t *testing.T) {
	r, repl, west := newCountingRig(t)
	r.globalTable()
	r.settled()
	r.g.SetPaused("eu-west-1", true)
	r.putMany(east, 400, 1)
	r.waitFor("the writes queued", func() bool { return r.backlog("eu-west-1") == 400 })
	readCommits := repl.commits.Load()
	r.g.SetPaused("eu-west-1", false)
	r.settled()
	r.waitFor("the last write in eu-west-1", func() bool { return r.get("eu-west-1", "pk-399") == "1" })
	applied := repl.commits.Load() - readCommits
	if applied > 40 {
		t.Errorf("applying 400 writes took %d replication-store commits, want at most 40", applied)
	}
	if n := west.commits.Load(); n > 40 {
		t.Errorf("the replica's store committed %d times for 400 writes, want at most 40 (25 writes a commit)", n)
	}
	for i := range 400 {
		if got := r.get("eu-west-1", "pk-"+strconv.Itoa(i)); got != "1" {
			t.Fatalf("pk-%d is %q in eu-west-1, want 1", i, got)
		}
	}
}

// An item's writes queued together are made in the replica in the order
// they were made, each one (its stream shows them all, in order), while
// other items' writes share the batches.
//
// Seen failing with applyQueue putting an item's writes in one batch (its
// versions raced in requests made side by side: pk-15 ended as 2) and
// with batches taking each item's last write only (the stream in eu-west-1
// showed 3 alone).
func TestReplicationKeepsItemOrder(t *testing.T) {
	r := newRig(t)
	r.globalTable()
	r.settled()
	r.g.SetPaused(west, true)
	for v := 1; v <= 3; v++ {
		r.putMany(east, 30, v) // pk-0…29 three times, in turn
	}
	r.waitFor("the writes queued", func() bool { return r.backlog(west) == 90 })
	r.g.SetPaused(west, false)
	r.settled()
	for i := range 30 {
		if got := r.get(west, "pk-"+strconv.Itoa(i)); got != "3" {
			t.Fatalf("pk-%d is %q in eu-west-1, want 3", i, got)
		}
	}
	if got := r.streamOf(west, "pk-7"); got != "1,2,3" {
		t.Fatalf("eu-west-1's stream shows pk-7 as %s, want 1,2,3", got)
	}
}

// streamOf is the n of every record of pk in region's stream of T, in
// order, joined by commas.
func (r *rig) streamOf(region, pk string) string {
	r.t.Helper()
	eng := r.engines[region]
	d, err := eng.DescribeTable(bg, &wire.DescribeTableInput{TableName: ptr("T")})
	if err != nil {
		r.t.Fatal(err)
	}
	shards, err := allShards(bg, r.g, region, *d.Table.LatestStreamArn)
	if err != nil {
		r.t.Fatal(err)
	}
	out := ""
	for _, s := range shards {
		it, err := eng.GetShardIterator(bg, &sw.GetShardIteratorInput{StreamArn: d.Table.LatestStreamArn, ShardId: s.ShardId, ShardIteratorType: "TRIM_HORIZON"})
		if err != nil {
			r.t.Fatal(err)
		}
		for iter := it.ShardIterator; iter != nil; {
			recs, err := eng.GetRecords(bg, &sw.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				r.t.Fatal(err)
			}
			for _, rec := range recs.Records {
				if rec.Dynamodb.Keys["pk"].Str == pk && rec.Dynamodb.NewImage != nil {
					if out != "" {
						out += ","
					}
					out += rec.Dynamodb.NewImage["n"].Str
				}
			}
			if len(recs.Records) == 0 {
				break
			}
			iter = recs.NextShardIterator
		}
	}
	return out
}
