package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kura-db/kura/internal/engine/kinesisdest"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// The Kinesis streaming destinations are internal/engine/kinesisdest's: the
// engine opens its Feed (openKinesis), which is a subsystem of the write
// path (subsystems.go), finds the table of each of the four operations
// (kinesisTable) and hands the request to the Feed.

// leaseKinesis is the lease of the forwarder's work in cluster mode:
// delivery, ENABLING's check of the stream, the timed states (leases.go).
const leaseKinesis = "kinesis"

func (e *Engine) openKinesis(store storage.Store) error {
	f, err := kinesisdest.Open(store, kinesisdest.Config{
		Client:  e.cfg.Kinesis,
		Region:  e.cfg.Region,
		Clock:   e.clock.Now,
		Sync:    e.cfg.Sync,
		Cluster: e.cfg.Cluster,
		Touch:   touchTable,
		Hold:    func() bool { return e.holds(leaseKinesis) },
	})
	e.kin = f
	return err
}

// touchTable rewrites table id's record as its next generation in txn
// (cluster mode: a destination of the table changed, so every node's
// writes reload the table and read its destinations again). A table whose
// record is gone, or replaced by another of its name, is left alone.
func touchTable(txn storage.Txn, id uint64, name string) error {
	b, err := txn.Get(catalogKey(name))
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var rec tableRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("engine: catalog record %q: %w", name, err)
	}
	if rec.ID != id {
		return nil
	}
	return putRecord(txn, &rec)
}

// kinesisTable looks up the table of a destination operation: one still
// being created, or already gone, is not found; a DELETING one is found
// (DynamoDB answers these operations until the table is gone,
// DDB-TABLE-236).
func (e *Engine) kinesisTable(name *string) (kinesisdest.TableRef, error) {
	n := cpDeref(name)
	t, ok := e.lookupTable(n)
	if !ok || t.Status == StatusCreating {
		return kinesisdest.TableRef{}, tableNotFound(n)
	}
	return kinesisdest.TableRef{ID: t.ID, Name: t.Name, UUID: cpDeref(t.Desc.TableId), Deleting: t.Status == StatusDeleting}, nil
}

// EnableKinesisStreamingDestination starts putting the table's changes to
// a Kinesis data stream.
func (e *Engine) EnableKinesisStreamingDestination(ctx context.Context, in *wire.EnableKinesisStreamingDestinationInput) (*wire.EnableKinesisStreamingDestinationOutput, error) {
	t, err := e.kinesisTable(in.TableName)
	if err != nil {
		return nil, err
	}
	return e.kin.EnableRequest(t, in)
}

// DisableKinesisStreamingDestination stops putting the table's changes to
// a Kinesis data stream.
func (e *Engine) DisableKinesisStreamingDestination(ctx context.Context, in *wire.DisableKinesisStreamingDestinationInput) (*wire.DisableKinesisStreamingDestinationOutput, error) {
	t, err := e.kinesisTable(in.TableName)
	if err != nil {
		return nil, err
	}
	return e.kin.DisableRequest(t, in)
}

// UpdateKinesisStreamingDestination changes the precision of the
// records' ApproximateCreationDateTime.
func (e *Engine) UpdateKinesisStreamingDestination(ctx context.Context, in *wire.UpdateKinesisStreamingDestinationInput) (*wire.UpdateKinesisStreamingDestinationOutput, error) {
	t, err := e.kinesisTable(in.TableName)
	if err != nil {
		return nil, err
	}
	return e.kin.UpdateRequest(t, in)
}

// DescribeKinesisStreamingDestination lists the table's destinations.
func (e *Engine) DescribeKinesisStreamingDestination(ctx context.Context, in *wire.DescribeKinesisStreamingDestinationInput) (*wire.DescribeKinesisStreamingDestinationOutput, error) {
	t, err := e.kinesisTable(in.TableName)
	if err != nil {
		return nil, err
	}
	return e.kin.Describe(t), nil
}
