package replication

import (
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/storage"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

// An MRSC table needs no stream in DynamoDB, whose replication does not
// read one, and a user may enable or disable its stream at will. Kura's
// replication reads the table's stream in every replica, so a replica
// whose user asked for none keeps one that is not shown: its ARN is in
// Group.hidden (stored under "h 0 region 0 arn"), and a table description
// whose latest stream it is has no StreamSpecification, LatestStreamArn or
// LatestStreamLabel, ListStreams leaves it out and the Streams API answers
// for it as for a stream that does not exist. Enabling the stream
// (NEW_AND_OLD_IMAGES, the one replication reads) shows it; disabling it
// hides it again. A table left in one region with a hidden stream has it
// disabled (finishDelete), and it stays hidden.

// streamKey names a stream of a region.
type streamKey struct{ region, arn string }

// msgStrongStreamView refuses another stream view type on an MRSC table:
// Kura's words (DynamoDB allows any), since its replication reads the
// table's one stream.
const msgStrongStreamView = "Kura's multi-Region strongly consistent tables replicate through the table's stream, so its StreamViewType can only be NEW_AND_OLD_IMAGES."

// readHidden reads the hidden streams.
func readHidden(snap storage.Snapshot) (map[streamKey]bool, error) {
	p := key('h')
	it, err := snap.NewIterator(storage.IterOptions{Lower: p, Upper: prefixEnd(p)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	hidden := map[streamKey]bool{}
	for it.Next() {
		parts := strings.Split(string(it.Key()), "\x00")
		if len(parts) == 3 {
			hidden[streamKey{parts[1], parts[2]}] = true
		}
	}
	return hidden, it.Err()
}

// hideStreams hides the stream ARN of each region (of one new MRSC table).
func (g *Group) hideStreams(arns map[string]string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for region, arn := range arns {
		if err := g.setHidden(streamKey{region, arn}, true); err != nil {
			return err
		}
	}
	return nil
}

// setHidden hides or shows the stream s. g.mu is held.
func (g *Group) setHidden(s streamKey, hidden bool) error {
	if s.arn == "" || g.hidden[s] == hidden {
		return nil
	}
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if hidden {
		err = txn.Set(key('h', s.region, s.arn), []byte{1})
	} else {
		err = txn.Delete(key('h', s.region, s.arn))
	}
	if err == nil {
		err = txn.Commit(storage.CommitOptions{Sync: true})
	}
	if err != nil {
		return err
	}
	if hidden {
		g.hidden[s] = true
	} else {
		delete(g.hidden, s)
	}
	return nil
}

// isHidden reports whether region's stream arn is one only replication
// reads.
func (g *Group) isHidden(region, arn string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hidden[streamKey{region, arn}]
}

// hideKept takes a hidden latest stream out of region's table
// description d.
func (g *Group) hideKept(region string, d *wire.TableDescription) {
	if d != nil && d.LatestStreamArn != nil && g.isHidden(region, *d.LatestStreamArn) {
		d.StreamSpecification, d.LatestStreamArn, d.LatestStreamLabel = nil, nil, nil
	}
}

// updateStrongStream makes the StreamSpecification of in, an UpdateTable
// of region's replica of an MRSC table, show or hide the stream
// replication keeps, and returns in without it (nil when nothing else is
// left to change).
func (r *Region) updateStrongStream(ctx context.Context, in *wire.UpdateTableInput) (*wire.UpdateTableInput, error) {
	s := in.StreamSpecification
	if s == nil || !r.g.isStrong(deref(in.TableName)) || !r.g.isReplica(deref(in.TableName), r.name) {
		return in, nil
	}
	d, err := r.Engine.DescribeTable(ctx, &wire.DescribeTableInput{TableName: in.TableName})
	if err != nil {
		return nil, err
	}
	stream := streamKey{r.name, deref(d.Table.LatestStreamArn)}
	hidden := r.g.isHidden(stream.region, stream.arn)
	enable := deref(s.StreamEnabled)
	switch {
	case enable && !hidden:
		return in, nil // the engine answers: the table has a stream
	case enable && s.StreamViewType != "NEW_AND_OLD_IMAGES":
		return nil, ddberr.Validation(msgStrongStreamView)
	case !enable && hidden:
		return nil, ddberr.Validation("Table has no stream to disable: TableName: " + deref(in.TableName))
	}
	r.g.mu.Lock()
	err = r.g.setHidden(stream, !enable)
	r.g.mu.Unlock()
	if err != nil {
		return nil, err
	}
	rest := *in
	rest.TableName, rest.StreamSpecification = nil, nil
	if reflect.ValueOf(rest).IsZero() {
		return nil, nil
	}
	rest.TableName = in.TableName
	return &rest, nil
}

// hiddenStreamARN reports whether arn is a stream of region that
// replication keeps and does not show.
func (r *Region) hiddenStreamARN(arn string) bool {
	return r.g.isHidden(r.name, arn)
}

// streamNotFound is the Streams API's answer for a stream that does not
// exist.
func streamNotFound(arn string) error {
	return ddberr.ResourceNotFound("Requested resource not found: Stream: " + arn + " not found")
}

// ListStreams leaves out the streams replication keeps and does not show.
func (r *Region) ListStreams(ctx context.Context, in *sw.ListStreamsInput) (*sw.ListStreamsOutput, error) {
	out, err := r.Engine.ListStreams(ctx, in)
	if err != nil {
		return out, err
	}
	out.Streams = slices.DeleteFunc(out.Streams, func(s sw.Stream) bool {
		return s.StreamArn != nil && r.hiddenStreamARN(*s.StreamArn)
	})
	return out, nil
}

// DescribeStream answers for a stream replication keeps and does not show
// as for one that does not exist.
func (r *Region) DescribeStream(ctx context.Context, in *sw.DescribeStreamInput) (*sw.DescribeStreamOutput, error) {
	if in.StreamArn != nil && r.hiddenStreamARN(*in.StreamArn) {
		return nil, streamNotFound(*in.StreamArn)
	}
	return r.Engine.DescribeStream(ctx, in)
}

// GetShardIterator answers for a stream replication keeps and does not
// show as for one that does not exist.
func (r *Region) GetShardIterator(ctx context.Context, in *sw.GetShardIteratorInput) (*sw.GetShardIteratorOutput, error) {
	if in.StreamArn != nil && r.hiddenStreamARN(*in.StreamArn) {
		return nil, streamNotFound(*in.StreamArn)
	}
	return r.Engine.GetShardIterator(ctx, in)
}

// dropKeptStream disables the stream of region's table, a global table's
// last replica, if it is one only replication read (it stays hidden).
func (g *Group) dropKeptStream(table, region string) error {
	eng := g.cfg.Regions[region]
	d, err := eng.DescribeTable(g.ctx, &wire.DescribeTableInput{TableName: &table})
	if err != nil || d.Table.StreamSpecification == nil || !g.isHidden(region, deref(d.Table.LatestStreamArn)) {
		return err
	}
	_, err = eng.UpdateTable(g.ctx, &wire.UpdateTableInput{TableName: &table,
		StreamSpecification: &wire.StreamSpecification{StreamEnabled: ptr(false)}})
	return err
}
