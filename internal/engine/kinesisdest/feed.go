package kinesisdest

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// Client is the Kinesis Data Streams service a Feed puts records to
// (NewClient: the AWS SDK's).
type Client interface {
	// PutRecords puts entries to the named stream in one call and reports,
	// entry by entry, which Kinesis took; err is a failure of the whole
	// call (nothing taken).
	PutRecords(ctx context.Context, stream string, entries []Entry) (taken []bool, err error)
	// StreamARN is the ARN of the named stream; found is false when there
	// is no such stream.
	StreamARN(ctx context.Context, stream string) (arn string, found bool, err error)
}

// Entry is one Kinesis record to put.
type Entry struct {
	PartitionKey string
	Data         []byte
}

// Config configures a Feed.
type Config struct {
	// Client is Kinesis; nil when Kura has none (--kinesis-endpoint unset):
	// Enable is then refused.
	Client Client
	Region string           // the records' awsRegion
	Clock  func() time.Time // the engine's clock: record times and state transitions
	Sync   bool             // commit the feed's own writes durably
	// Poll is how often the forwarder looks at the outbox and the
	// destinations' states without being woken (default 100 ms).
	Poll time.Duration
	// Cluster: the store is shared by several nodes (shared.go). Touch
	// then rewrites the table's catalog record as its next generation in
	// txn, in every transaction that changes one of its destinations, and
	// Hold reports whether this node is the one that delivers (the lease
	// "kinesis"; nil: always).
	Cluster bool
	Touch   func(txn storage.Txn, tableID uint64, table string) error
	Hold    func() bool
}

// Feed is the Kinesis streaming destinations of one database.
type Feed struct {
	cfg   Config
	store storage.Store

	mu       sync.Mutex
	dests    map[uint64]*dest // by ID; values replaced, never changed in place
	nextDest uint64
	byTable  atomic.Pointer[map[uint64][]*dest] // live destinations by table ID, for Stage

	seq atomic.Uint64 // the last outbox sequence number drawn
	// dirty marks the destinations whose outbox may hold records, each with
	// the generation it was last marked in (guarded by mu): a drain that
	// found the outbox empty clears the mark only if nothing marked it
	// since the drain began.
	dirty   map[uint64]uint64
	gen     uint64
	wakeCh  chan struct{}
	closing chan struct{}
	done    chan struct{}
	retry   map[uint64]*backoff // per destination; the forwarder's own

	sharedMu sync.Mutex
	shared   map[uint64]sharedView // cluster mode: Stage's live destinations by table ID
}

// Open reads the destinations and the outbox's position from store and
// starts the forwarder.
func Open(store storage.Store, cfg Config) (*Feed, error) {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 100 * time.Millisecond
	}
	f := &Feed{
		cfg: cfg, store: store,
		dests: make(map[uint64]*dest), nextDest: 1,
		wakeCh: make(chan struct{}, 1), closing: make(chan struct{}), done: make(chan struct{}),
		retry: make(map[uint64]*backoff), dirty: make(map[uint64]uint64),
		shared: make(map[uint64]sharedView),
	}
	if !cfg.Cluster {
		if err := f.dropSeqs(); err != nil {
			return nil, err
		}
	}
	if err := f.loadDests(); err != nil {
		return nil, err
	}
	last, err := f.lastSeq()
	if err != nil {
		return nil, err
	}
	f.seq.Store(last)
	f.mu.Lock()
	f.reindex()
	f.markAll() // what the outbox holds from before
	f.mu.Unlock()
	go f.run()
	return f, nil
}

// Close stops the forwarder; what it has not delivered stays in the
// outbox for the next Open.
func (f *Feed) Close() {
	select {
	case <-f.closing:
	default:
		close(f.closing)
	}
	<-f.done
}

// Stage adds the outbox records of change c, one per live destination of
// its table, to txn: the item's own transaction, so they commit exactly
// when the item does (change.Subsystem). A write that changed nothing adds
// none. Sequence numbers of attempts that do not commit are only skipped.
func (f *Feed) Stage(txn storage.Txn, c change.Change) error {
	if c.Old == nil && c.New == nil {
		return nil
	}
	ds := (*f.byTable.Load())[c.Table.Def().ID]
	if f.cfg.Cluster {
		var err error
		if ds, err = f.liveDests(txn, &c); err != nil {
			return err
		}
	}
	if len(ds) == 0 {
		return nil
	}
	if c.Old != nil && c.New != nil && attr.ItemsEqual(c.Old, c.New) {
		return nil
	}
	pk, at := partitionKey(&c), f.cfg.Clock()
	for _, d := range ds {
		data, err := encodeRecord(f.cfg.Region, &c, at, d.precision(at))
		if err != nil {
			return err
		}
		seq, err := f.draw(txn, d.ID)
		if err != nil {
			return err
		}
		if err := txn.Set(outboxKey(d.ID, seq), encodeOutbox(pk, data)); err != nil {
			return err
		}
	}
	return nil
}

// draw is the next outbox number of destination id: the feed's counter,
// or in cluster mode the destination's stored one (shared.go).
func (f *Feed) draw(txn storage.Txn, id uint64) (uint64, error) {
	if f.cfg.Cluster {
		return drawShared(txn, id)
	}
	return f.seq.Add(1), nil
}

// Committed wakes the forwarder when the change's table has a live
// destination (change.Subsystem): its outbox records are now there to be
// read.
func (f *Feed) Committed(c change.Change) {
	ds := (*f.byTable.Load())[c.Table.Def().ID]
	if len(ds) == 0 {
		return
	}
	f.mu.Lock()
	f.gen++
	for _, d := range ds {
		f.dirty[d.ID] = f.gen
	}
	f.mu.Unlock()
	f.wake()
}

// markAll marks every destination's outbox as possibly holding records.
// The caller holds mu.
func (f *Feed) markAll() {
	f.gen++
	for id := range f.dests {
		f.dirty[id] = f.gen
	}
}

// Refused is the error of EnableKinesisStreamingDestination when Kura has
// no Kinesis to put records to.
func (f *Feed) Refused() error {
	if f.cfg.Client != nil {
		return nil
	}
	return ddberr.Validation("Kinesis streaming destinations put records to Kinesis Data Streams: start Kura with --kinesis-endpoint")
}

// reindex rebuilds byTable from dests. The caller holds mu.
func (f *Feed) reindex() {
	m := make(map[uint64][]*dest)
	for _, d := range f.dests {
		if d.live() && !d.Removed {
			m[d.TableID] = append(m[d.TableID], d)
		}
	}
	f.byTable.Store(&m)
}

func (f *Feed) wake() {
	select {
	case f.wakeCh <- struct{}{}:
	default:
	}
}

// lastSeq is the largest outbox sequence number stored (0 when none).
func (f *Feed) lastSeq() (uint64, error) {
	snap, err := f.store.NewSnapshot()
	if err != nil {
		return 0, err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte(outboxPrefix), Upper: prefixEnd(outboxPrefix)})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var last uint64
	for it.Next() {
		_, seq, err := outboxID(it.Key())
		if err != nil {
			return 0, err
		}
		last = max(last, seq)
	}
	return last, it.Err()
}

// sweepEvery is how many wake-ups or polls pass between looks at every
// destination's outbox (about 5 s at the default poll).
const sweepEvery = 50

// run is the forwarder: on every wake-up or poll it moves destinations on
// through their states and drains the outbox.
func (f *Feed) run() {
	defer close(f.done)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.closing; cancel() }()
	tick := time.NewTicker(f.cfg.Poll)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-f.closing:
			return
		case <-f.wakeCh:
		case <-tick.C:
		}
		if f.cfg.Cluster {
			if f.cfg.Hold != nil && !f.cfg.Hold() {
				continue // another node delivers
			}
			// Other nodes' commits do not wake this one: look at every
			// outbox each round.
			f.mu.Lock()
			f.markAll()
			f.mu.Unlock()
		}
		if n%sweepEvery == 0 {
			// A commit whose outcome the store could not report was not
			// told to Committed: look at every outbox now and then.
			f.mu.Lock()
			f.markAll()
			f.mu.Unlock()
		}
		f.settleAll()
		f.checkEnabling(ctx)
		f.drain(ctx)
	}
}

// settleAll ends the DISABLING and UPDATING states whose time has come.
func (f *Feed) settleAll() {
	now := f.cfg.Clock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reloadLocked(); err != nil {
		slog.Warn("kinesis destination: reading the destinations", "error", err)
		return
	}
	for _, d := range f.dests {
		if (d.Status != Disabling && d.Status != Updating) || now.Before(d.Due) {
			continue
		}
		c := *d
		if c.Status == Disabling {
			c.Status = Disabled
		} else {
			c.Status, c.Precision, c.Pending = Active, c.Pending, ""
		}
		if err := f.replace(&c); err != nil {
			slog.Warn("kinesis destination: saving its state", "table", c.Table, "stream", c.StreamARN, "error", err)
		}
	}
}

// checkEnabling looks at the stream of each ENABLING destination whose
// time has come: ACTIVE when Kinesis has the stream under that ARN,
// ENABLE_FAILED when it has not (or the ARN names no Kinesis stream);
// still ENABLING when Kinesis cannot be asked now.
func (f *Feed) checkEnabling(ctx context.Context) {
	now := f.cfg.Clock()
	f.mu.Lock()
	var due []*dest
	for _, d := range f.dests {
		if d.Status == Enabling && !now.Before(d.Due) {
			due = append(due, d)
		}
	}
	f.mu.Unlock()
	for _, d := range due {
		if b := f.retry[d.ID]; b != nil && time.Now().Before(b.until) {
			continue
		}
		status, ok := f.streamStatus(ctx, d.StreamARN)
		if !ok {
			b := f.retry[d.ID]
			if b == nil {
				b = new(backoff)
				f.retry[d.ID] = b
			}
			b.fail()
			continue
		}
		delete(f.retry, d.ID)
		f.mu.Lock()
		if cur := f.dests[d.ID]; cur == d { // not changed meanwhile
			c := *d
			c.Status = status
			if status == EnableFailed {
				c.Reason = noPermission
			}
			if err := f.replace(&c); err != nil {
				slog.Warn("kinesis destination: saving its state", "table", c.Table, "stream", c.StreamARN, "error", err)
			}
		}
		f.mu.Unlock()
	}
}

// streamStatus is ACTIVE or ENABLE_FAILED for a stream ARN; ok is false
// when Kinesis could not answer.
func (f *Feed) streamStatus(ctx context.Context, arn string) (status string, ok bool) {
	name := streamName(arn)
	if name == "" || f.cfg.Client == nil {
		return EnableFailed, true
	}
	got, found, err := f.cfg.Client.StreamARN(ctx, name)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			slog.Debug("kinesis destination: looking up its stream; retrying", "stream", arn, "error", err)
		}
		return "", false
	}
	if !found || got != arn {
		return EnableFailed, true
	}
	return Active, true
}
