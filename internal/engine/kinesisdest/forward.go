package kinesisdest

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// PutRecords' limits: 500 records and 5 MiB a call.
const (
	maxBatchRecords = 500
	maxBatchBytes   = 5 << 20
)

// Backoff between failed deliveries to one destination: doubling from
// minBackoff to maxBackoff, with jitter.
const (
	minBackoff = 50 * time.Millisecond
	maxBackoff = 5 * time.Second
)

type backoff struct {
	wait  time.Duration
	until time.Time // real time: no delivery to the destination before it
}

func (b *backoff) fail() {
	b.wait = min(max(2*b.wait, minBackoff), maxBackoff)
	b.until = time.Now().Add(b.wait/2 + rand.N(b.wait/2+1))
}

// drain delivers the outbox of every destination that is not backing off:
// ENABLING destinations keep theirs until they are ACTIVE, ENABLE_FAILED
// ones never deliver and theirs is dropped; the others (ACTIVE, UPDATING,
// and DISABLING or DISABLED ones with changes captured while they were
// live) deliver.
func (f *Feed) drain(ctx context.Context) {
	f.mu.Lock()
	ds := make([]*dest, 0, len(f.dirty))
	gens := make([]uint64, 0, len(f.dirty))
	for id, g := range f.dirty {
		if d := f.dests[id]; d != nil && d.Status != Enabling { // ENABLING: kept until ACTIVE
			ds, gens = append(ds, d), append(gens, g)
		}
	}
	f.mu.Unlock()
	for i, d := range ds {
		b := f.retry[d.ID]
		if b != nil && time.Now().Before(b.until) {
			continue
		}
		err := f.drainDest(ctx, d)
		switch {
		case err == nil:
			delete(f.retry, d.ID)
			f.mu.Lock()
			if f.dirty[d.ID] == gens[i] {
				delete(f.dirty, d.ID)
			}
			f.mu.Unlock()
		case ctx.Err() != nil:
			return
		default:
			if b == nil {
				b = new(backoff)
				f.retry[d.ID] = b
			}
			b.fail()
			slog.Debug("kinesis destination: delivery failed; retrying", "table", d.Table, "stream", d.StreamARN, "in", b.wait, "error", err)
		}
	}
}

var errNotTaken = errors.New("kinesisdest: Kinesis did not take every record")

// drainDest delivers d's outbox batch by batch until it is empty or a
// delivery fails.
func (f *Feed) drainDest(ctx context.Context, d *dest) error {
	for {
		keys, entries, err := f.readBatch(d.ID)
		if err != nil || len(keys) == 0 {
			return err
		}
		if d.Status == EnableFailed {
			// Captured while ENABLING, for a stream that never became a
			// destination: nothing to deliver them to.
			if err := f.deleteKeys(keys); err != nil {
				return err
			}
			continue
		}
		taken, err := f.cfg.Client.PutRecords(ctx, streamName(d.StreamARN), entries)
		if err != nil {
			return err
		}
		// Delete the records up to the first one Kinesis did not take;
		// that one and those after it are put again (so those after it
		// that were taken arrive twice: at least once, and an item's last
		// record is its latest change).
		n := 0
		for n < len(taken) && taken[n] {
			n++
		}
		if err := f.deleteKeys(keys[:n]); err != nil {
			return err
		}
		if n < len(keys) {
			return errNotTaken
		}
	}
}

// readBatch reads the first records of a destination's outbox, as many as
// one PutRecords may carry.
func (f *Feed) readBatch(destID uint64) (keys [][]byte, entries []Entry, err error) {
	lower := outboxKey(destID, 0)
	upper := outboxKey(destID+1, 0)
	snap, err := f.store.NewSnapshot()
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: lower, Upper: upper})
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	total := 0
	for it.Next() && len(keys) < maxBatchRecords {
		pk, data, err := decodeOutbox(it.Value())
		if err != nil {
			return nil, nil, err
		}
		if total += len(pk) + len(data); total > maxBatchBytes && len(keys) > 0 {
			break
		}
		keys = append(keys, bytes.Clone(it.Key()))
		entries = append(entries, Entry{PartitionKey: pk, Data: bytes.Clone(data)})
	}
	return keys, entries, it.Err()
}

// deleteKeys removes delivered outbox records in one commit. A conflict is
// retried: the delete is blind, and the local stores may report a
// conservative conflict when the batch's snapshot held a commit newer than
// this transaction's start (internal/storage/internal/occ); taken as a
// failed delivery, it would put the batch to Kinesis again.
func (f *Feed) deleteKeys(keys [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	for attempt := 1; ; attempt++ {
		err := f.deleteOnce(keys)
		if !errors.Is(err, storage.ErrConflict) || attempt == maxDeleteAttempts {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Millisecond)
	}
}

// maxDeleteAttempts bounds deleteKeys' retries of a conflict.
const maxDeleteAttempts = 20

func (f *Feed) deleteOnce(keys [][]byte) error {
	txn, err := f.store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	for _, k := range keys {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return txn.Commit(storage.CommitOptions{Sync: f.cfg.Sync})
}
