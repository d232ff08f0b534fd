package engine

import (
	"context"

	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/streams"
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

// DynamoDB Streams are internal/engine/streams': the registry is a
// subsystem of the write path (subsystems.go) and answers the Streams API.
// The engine hands it its store, clock and settings, and tells it of every
// new version of a table (observeStreams).

// streamsConfig is what the streams registry is given of the engine.
func (e *Engine) streamsConfig() streams.Config {
	return streams.Config{
		Store: e.store, Clock: e.clock, Sync: e.cfg.Sync, Region: e.cfg.Region,
		ShardPeriod: e.cfg.StreamShardPeriod, Retention: e.cfg.StreamRetention,
		Commit: e.commit, Purge: e.purgeSome, PurgeChunk: purgeChunk,
		Authorize: e.authorizeARN,
		TableExists: func(name string) bool {
			_, ok := e.lookupTable(name)
			return ok
		},
		Cluster:    e.cfg.Cluster,
		Table:      e.storedTable,
		Background: e.goBackground, // called from Open only, as goBackground asks
		Hold:       func() bool { return e.holds(leaseStreams) },
		Sleep:      e.sleep,
		Closing:    e.closing,
	}
}

// storedTable is the named table as the store has it now (cluster mode:
// the stream upkeep's check that a stream's table still names it).
func (e *Engine) storedTable(name string) (*change.Table, bool, bool, error) {
	t, ok, err := e.reloadTable(name)
	if err != nil || !ok {
		return nil, false, false, err
	}
	if t, ok = e.settle(t); !ok {
		return nil, false, false, nil
	}
	return &t.Table, t.Status == StatusDeleting, true, nil
}

// streamSpec is the stream a table's description names (catalog.go).
var streamSpec = streams.Spec

// observeStreams tells the streams of a new version of a table (install
// calls it after every catalog change).
func (e *Engine) observeStreams(t *Table) {
	e.streams.Observe(&t.Table, t.Status == StatusDeleting)
}

// observedTables lists the catalog's tables for the streams at Open.
func (e *Engine) observedTables() []streams.Observed {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]streams.Observed, 0, len(e.tables))
	for _, t := range e.tables {
		out = append(out, streams.Observed{Table: &t.Table, Deleting: t.Status == StatusDeleting})
	}
	return out
}

// ListStreams is DynamoDB Streams' ListStreams.
func (e *Engine) ListStreams(ctx context.Context, in *sw.ListStreamsInput) (*sw.ListStreamsOutput, error) {
	return e.streams.ListStreams(ctx, in)
}

// DescribeStream is DynamoDB Streams' DescribeStream.
func (e *Engine) DescribeStream(ctx context.Context, in *sw.DescribeStreamInput) (*sw.DescribeStreamOutput, error) {
	return e.streams.DescribeStream(ctx, in)
}

// GetShardIterator is DynamoDB Streams' GetShardIterator.
func (e *Engine) GetShardIterator(ctx context.Context, in *sw.GetShardIteratorInput) (*sw.GetShardIteratorOutput, error) {
	return e.streams.GetShardIterator(ctx, in)
}

// GetRecords is DynamoDB Streams' GetRecords.
func (e *Engine) GetRecords(ctx context.Context, in *sw.GetRecordsInput) (*sw.GetRecordsOutput, error) {
	return e.streams.GetRecords(ctx, in)
}
