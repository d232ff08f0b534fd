package replication

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

// maxReadRound bounds the records one round of a reader takes, so that
// applying is not starved under a heavy write load.
const maxReadRound = 1000

// readStream reads the new records of the region's stream of the table
// from the stored position and processes each (process), shards in
// lineage order, parents before children. It returns how many it read.
// With skip it only moves the position past them (a new global table's
// first replica: what it holds now is copied by the backfill).
func (g *Group) readStream(ctx context.Context, w *worker, skip bool) (int, error) {
	eng := g.cfg.Regions[w.region]
	desc, err := eng.DescribeTable(ctx, &wire.DescribeTableInput{TableName: &w.table})
	if err != nil || desc.Table.LatestStreamArn == nil {
		return 0, err
	}
	arn := *desc.Table.LatestStreamArn
	pos, err := g.position(w)
	if err != nil {
		return 0, err
	}
	if pos.StreamArn != arn {
		// A new stream (or the first read): from its beginning.
		pos = position{StreamArn: arn, Last: map[string]string{}, Done: map[string]bool{}}
	}
	shards, err := allShards(ctx, g, w.region, arn)
	if err != nil {
		return 0, err
	}
	listed := map[string]bool{}
	for _, s := range shards {
		listed[*s.ShardId] = true
	}
	n := 0
	for _, s := range shards {
		id := *s.ShardId
		if pos.Done[id] || s.ParentShardId != nil && listed[*s.ParentShardId] && !pos.Done[*s.ParentShardId] {
			continue
		}
		read, err := g.readShard(ctx, w, &pos, id, skip)
		n += read
		if err != nil || !skip && n >= maxReadRound {
			return n, err
		}
	}
	if skip {
		return n, g.savePosition(w, &pos)
	}
	return n, nil
}

// readShard reads one shard from the position to its end (or to what is
// there now, if it is open).
func (g *Group) readShard(ctx context.Context, w *worker, pos *position, shard string, skip bool) (int, error) {
	eng := g.cfg.Regions[w.region]
	in := &sw.GetShardIteratorInput{StreamArn: &pos.StreamArn, ShardId: &shard, ShardIteratorType: "TRIM_HORIZON"}
	if last := pos.Last[shard]; last != "" {
		in.ShardIteratorType, in.SequenceNumber = "AFTER_SEQUENCE_NUMBER", &last
	}
	it, err := eng.GetShardIterator(ctx, in)
	if isType(err, "TrimmedDataAccessException") {
		// Older than the stream keeps: what is left, from its start.
		in.ShardIteratorType, in.SequenceNumber = "TRIM_HORIZON", nil
		it, err = eng.GetShardIterator(ctx, in)
	}
	if err != nil {
		return 0, err
	}
	iter, n := it.ShardIterator, 0
	for iter != nil && (skip || n < maxReadRound) {
		out, err := eng.GetRecords(ctx, &sw.GetRecordsInput{ShardIterator: iter, Limit: aws32(1000)})
		if err != nil {
			return n, err
		}
		if skip {
			for i := range out.Records {
				pos.Last[shard] = *out.Records[i].Dynamodb.SequenceNumber
			}
		} else if len(out.Records) > 0 {
			if err := g.processPage(w, pos, shard, out.Records); err != nil {
				return n, err
			}
		}
		n += len(out.Records)
		if out.NextShardIterator == nil {
			// A closed shard read to its end.
			pos.Done[shard] = true
			delete(pos.Last, shard)
			if skip {
				return n, nil
			}
			return n, g.savePosition(w, pos)
		}
		if len(out.Records) == 0 {
			break
		}
		iter = out.NextShardIterator
	}
	return n, nil
}

// processPage handles a page of stream records of region w.region in one
// transaction with the new position (one commit for the page).
func (g *Group) processPage(w *worker, pos *position, shard string, recs []sw.Record) error {
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	g.mu.Lock()
	targets := g.targets(w.table, w.region)
	g.mu.Unlock()
	for i := range recs {
		if err := g.process(txn, w, targets, &recs[i]); err != nil {
			return err
		}
		if seq := recs[i].Dynamodb.SequenceNumber; seq != nil {
			pos.Last[shard] = *seq
		}
	}
	if err := setJSON(txn, key('c', w.table, w.region), pos); err != nil {
		return err
	}
	if err := w.fence(txn); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Sync: true})
}

// process handles one stream record of region w.region in txn (whose
// reads see the page's records before it): a write this worker applied
// there is recognised by its marker and not sent on; any other write is
// the region's own, stamped and queued for targets, every other replica.
func (g *Group) process(txn storage.Txn, w *worker, targets []string, rec *sw.Record) error {
	r := rec.Dynamodb
	img := r.NewImage
	if rec.EventName == "REMOVE" {
		img = nil
	}
	ks := itemKey(r.Keys)
	var marks []marker
	if _, err := getJSON(txn, key('e', w.table, w.region, ks), &marks); err != nil {
		return err
	}
	var cur stamp
	hasCur, err := getJSON(txn, key('m', w.table, w.region, ks), &cur)
	if err != nil {
		return err
	}
	d := digest(img)
	i := slices.IndexFunc(marks, func(m marker) bool { return m.Digest == d })
	if i < 0 {
		return g.local(txn, w, targets, r.Keys, img, g.writeTime(w.region, r), cur, hasCur, len(marks) > 0)
	}
	mine := marks[i]
	marks = slices.Delete(marks, i, i+1)
	if err := setMarkers(txn, w, ks, marks); err != nil {
		return err
	}
	if hasCur && cur.Origin == w.region && cur.after(mine.Stamp) {
		// A later write of the region's own came between reading the
		// item and writing it, and was overwritten: put it back (the
		// record's old image is that write). A later stamp of another
		// region is a write queued after this one, applied next.
		_, err := g.enqueue(txn, w.table, w.region, entry{Key: r.Keys, Image: r.OldImage, Stamp: cur, Enqueued: g.cfg.Now(w.region).UnixNano()})
		return err
	}
	return nil
}

// local stamps a write made in w.region and queues it for targets. A write after the item's last one in this region is stamped
// later than it even if the clock says otherwise; one that a replicated
// write still to appear (pending) will overwrite keeps its own stamp and
// loses to it wherever that one is later.
func (g *Group) local(txn storage.Txn, w *worker, targets []string, keys, img attr.Item, at time.Time, cur stamp, hasCur, pending bool) error {
	st := stamp{TS: at.UnixNano(), Origin: w.region}
	if hasCur && !st.after(cur) && !pending {
		st.TS = cur.TS + 1
	}
	if !hasCur || st.after(cur) {
		if err := setJSON(txn, key('m', w.table, w.region, itemKey(keys)), st); err != nil {
			return err
		}
	}
	now := g.cfg.Now(w.region).UnixNano()
	for _, t := range targets {
		if _, err := g.enqueue(txn, w.table, t, entry{Key: keys, Image: img, Stamp: st, Enqueued: now}); err != nil {
			return err
		}
	}
	return nil
}

// writeTime bounds when a record's write in region happened from above: its
// ApproximateCreationDateTime is the write's second, and the write came
// before this read.
func (g *Group) writeTime(region string, r *sw.StreamRecord) time.Time {
	now := g.cfg.Now(region)
	if r.ApproximateCreationDateTime == nil {
		return now
	}
	if end := r.ApproximateCreationDateTime.Add(time.Second - time.Nanosecond); end.Before(now) {
		return end
	}
	return now
}

func setMarkers(txn storage.Txn, w *worker, ks string, marks []marker) error {
	k := key('e', w.table, w.region, ks)
	if len(marks) == 0 {
		return txn.Delete(k)
	}
	return setJSON(txn, k, marks)
}

// position is the stored stream position of w's replica.
func (g *Group) position(w *worker) (position, error) {
	snap, err := g.cfg.Store.NewSnapshot()
	if err != nil {
		return position{}, err
	}
	defer snap.Close()
	var p position
	if _, err := getJSON(snap, key('c', w.table, w.region), &p); err != nil {
		return position{}, err
	}
	if p.Last == nil {
		p.Last = map[string]string{}
	}
	if p.Done == nil {
		p.Done = map[string]bool{}
	}
	return p, nil
}

func (g *Group) savePosition(w *worker, p *position) error {
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := setJSON(txn, key('c', w.table, w.region), p); err != nil {
		return err
	}
	if err := w.fence(txn); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Sync: true})
}

// allShards lists every shard of the stream, in the order DescribeStream
// gives them.
func allShards(ctx context.Context, g *Group, region, arn string) ([]sw.Shard, error) {
	var out []sw.Shard
	in := &sw.DescribeStreamInput{StreamArn: &arn}
	for {
		d, err := g.cfg.Regions[region].DescribeStream(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, d.StreamDescription.Shards...)
		if d.StreamDescription.LastEvaluatedShardId == nil {
			return out, nil
		}
		in.ExclusiveStartShardId = d.StreamDescription.LastEvaluatedShardId
	}
}

// isType reports whether err is a DynamoDB error of type typ.
func isType(err error, typ string) bool {
	var e *ddberr.Error
	return errors.As(err, &e) && e.Type == typ
}

func aws32(n int32) *int32 { return &n }
