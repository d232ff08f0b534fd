package kinesisdest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Destination states, as DynamoDB names them.
const (
	Enabling     = "ENABLING"
	Active       = "ACTIVE"
	Disabling    = "DISABLING"
	Disabled     = "DISABLED"
	EnableFailed = "ENABLE_FAILED"
	Updating     = "UPDATING"
)

// How long the transitional states last. DynamoDB's: ENABLING 2-7 s,
// DISABLING 1-2 s, a precision update holds UPDATING 124-152 s (measured
// against DynamoDB, ack-api-quirks findings DDB-TABLE-299/268/300).
const (
	enablingFor  = 2 * time.Second
	disablingFor = 2 * time.Second
	updatingFor  = 2 * time.Minute
)

// noPermission is the DestinationStatusDescription of an ENABLE_FAILED
// destination: DynamoDB gives it for a stream that does not exist, is in
// another account or region, or is not a Kinesis stream ARN at all
// (DDB-TABLE-268, measured against DynamoDB).
const noPermission = "User does not have a permission to use kinesis stream"

// notValid prefixes every refusal of the four operations by state
// (DynamoDB's wording, DDB-TABLE-268/302, also localstack's).
const notValid = "Table is not in a valid state to enable Kinesis Streaming Destination: "

// dest is one destination of a table, as stored under "mkdest/".
type dest struct {
	ID        uint64    `json:"id"`
	TableID   uint64    `json:"table_id"`
	Table     string    `json:"table"`
	StreamARN string    `json:"stream_arn"`
	Status    string    `json:"status"`
	Precision string    `json:"precision,omitempty"` // "" until set: MILLISECOND
	Pending   string    `json:"pending,omitempty"`   // the precision an UPDATING destination moves to
	Reason    string    `json:"reason,omitempty"`    // DestinationStatusDescription
	Due       time.Time `json:"due"`                 // when a transitional state ends
	Removed   bool      `json:"removed,omitempty"`   // its table was deleted: nothing more is captured
}

// live reports whether changes of the table are captured for d.
func (d *dest) live() bool {
	switch d.Status {
	case Enabling, Active, Updating:
		return true
	}
	return false
}

// precision is the precision the records of d carry for a change made at
// now. While UPDATING they keep the old one: DynamoDB documents none for
// that window (the API reference and developer guide say only that the
// precision can be changed; ack-api-quirks DDB-TABLE-300 measured the
// states, not the records), and each record names its precision in
// ApproximateCreationDateTimePrecision, so a consumer reads either right.
// The new one applies from the instant UPDATING ends by the clock, not
// from when the forwarder next looks.
func (d *dest) precision(now time.Time) string {
	p := d.Precision
	if d.Status == Updating && !now.Before(d.Due) {
		p = d.Pending
	}
	if p == "" {
		return "MILLISECOND"
	}
	return p
}

func destKey(id uint64) []byte { return binary.BigEndian.AppendUint64([]byte(destPrefix), id) }

const (
	destPrefix   = "mkdest/"
	outboxPrefix = "mkout/"
)

// saveDest writes d in its own transaction (in cluster mode over the
// destination as this node read it: saveShared).
func (f *Feed) saveDest(d *dest) error {
	if f.cfg.Cluster {
		return f.saveShared(f.dests[d.ID], d)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	txn, err := f.store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := txn.Set(destKey(d.ID), b); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Sync: f.cfg.Sync})
}

// replace stores d as its destination's new state, on disk and in
// memory, and wakes the forwarder. The caller holds mu.
func (f *Feed) replace(d *dest) error {
	if err := f.saveDest(d); err != nil {
		return err
	}
	f.dests[d.ID] = d
	f.reindex()
	f.wake()
	return nil
}

// loadDests reads every destination at Open.
func (f *Feed) loadDests() error {
	it, err := f.store.NewSnapshot()
	if err != nil {
		return err
	}
	defer it.Close()
	iter, err := it.NewIterator(storage.IterOptions{Lower: []byte(destPrefix), Upper: prefixEnd(destPrefix)})
	if err != nil {
		return err
	}
	defer iter.Close()
	for iter.Next() {
		d := new(dest)
		if err := json.Unmarshal(iter.Value(), d); err != nil {
			return fmt.Errorf("kinesisdest: destination %x: %w", iter.Key(), err)
		}
		f.dests[d.ID] = d
		f.nextDest = max(f.nextDest, d.ID+1)
	}
	return iter.Err()
}

// TableRef names the table an operation is on.
type TableRef struct {
	ID   uint64
	Name string
	UUID string // the TableId DynamoDB reports
	// Deleting: the table is DELETING (DeleteTable was answered, the table
	// is not gone yet).
	Deleting bool
}

// Enable is EnableKinesisStreamingDestination once the table is known:
// a new ENABLING destination, or an old DISABLED or ENABLE_FAILED one of
// the same stream flipped back to ENABLING. The stream is looked at later,
// by the forwarder, as DynamoDB does: a stream that does not exist is
// accepted here and the destination becomes ENABLE_FAILED.
func (f *Feed) Enable(t TableRef, streamARN, precision string) (*wire.EnableKinesisStreamingDestinationOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reloadLocked(); err != nil {
		return nil, err
	}
	refused := ddberr.Validation(notValid + "EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform ENABLE operation.")
	if t.Deleting {
		// DynamoDB refuses it with this text while the table is DELETING,
		// for its destination's stream and for another (DDB-TABLE-236);
		// that table had an ACTIVE destination, one without was not
		// recorded: refused alike rather than a destination of a table
		// about to go.
		return nil, refused
	}
	var same *dest
	for _, d := range f.tableDests(t.ID) {
		if d.Status != Disabled && d.Status != EnableFailed {
			return nil, refused
		}
		if d.StreamARN == streamARN {
			same = d
		}
	}
	d := &dest{ID: f.nextDest, TableID: t.ID, Table: t.Name, StreamARN: streamARN}
	if same != nil {
		c := *same
		d = &c
	}
	d.Status, d.Precision, d.Pending, d.Reason = Enabling, precision, "", ""
	d.Due = f.cfg.Clock().Add(enablingFor)
	if err := f.replace(d); err != nil {
		return nil, err
	}
	if same == nil {
		f.nextDest++
	}
	out := &wire.EnableKinesisStreamingDestinationOutput{
		TableName:                           &t.Name,
		StreamArn:                           &streamARN,
		DestinationStatus:                   Enabling,
		EnableKinesisStreamingConfiguration: &wire.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: precision},
	}
	return out, nil
}

// Disable is DisableKinesisStreamingDestination: an ACTIVE destination
// becomes DISABLING (and DISABLED shortly after); a DISABLING one is
// answered DISABLING again, unchanged (DDB-TABLE-301: DynamoDB answered a
// second Disable during DISABLING with 200 DISABLING); in any other state,
// or for a stream the table never had, DynamoDB answers the same
// ValidationException (DDB-TABLE-302).
func (f *Feed) Disable(t TableRef, streamARN string) (*wire.DisableKinesisStreamingDestinationOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reloadLocked(); err != nil {
		return nil, err
	}
	d := f.find(t.ID, streamARN)
	switch {
	case d != nil && d.Status == Active:
		c := *d
		c.Status, c.Due = Disabling, f.cfg.Clock().Add(disablingFor)
		if err := f.replace(&c); err != nil {
			return nil, err
		}
	case d != nil && d.Status == Disabling && f.cfg.Clock().Before(d.Due):
	default:
		return nil, ddberr.Validation(notValid + "KinesisStreamingDestination must be ACTIVE to perform DISABLE operation.")
	}
	return &wire.DisableKinesisStreamingDestinationOutput{
		TableName:         &t.Name,
		StreamArn:         &streamARN,
		DestinationStatus: Disabling,
	}, nil
}

// Update is UpdateKinesisStreamingDestination: the precision of an
// ACTIVE destination changes, through UPDATING. precision is "" when the
// request carried no configuration or none with a precision.
func (f *Feed) Update(t TableRef, streamARN, precision string) (*wire.UpdateKinesisStreamingDestinationOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reloadLocked(); err != nil {
		return nil, err
	}
	d := f.find(t.ID, streamARN)
	switch {
	case d == nil:
		return nil, ddberr.Validation(notValid + "No streaming destination with streamArn: " + streamARN + " found for table with tableName: " + t.Name)
	case d.Status != Active:
		return nil, ddberr.Validation(notValid + "Kinesis streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. TableName: " + t.Name)
	case precision == "":
		return nil, ddberr.Validation("Streaming destination cannot be updated with given parameters: UpdateKinesisStreamingConfiguration cannot be null or contain only null values")
	case precision == d.precision(f.cfg.Clock()):
		return nil, ddberr.Validation("Invalid Request: Precision is already set to the desired value of " + precision + " for tableId: " + t.UUID + ", kdsArn: " + streamARN)
	}
	c := *d
	c.Status, c.Pending, c.Due = Updating, precision, f.cfg.Clock().Add(updatingFor)
	if err := f.replace(&c); err != nil {
		return nil, err
	}
	return &wire.UpdateKinesisStreamingDestinationOutput{
		TableName:                           &t.Name,
		StreamArn:                           &streamARN,
		DestinationStatus:                   Updating,
		UpdateKinesisStreamingConfiguration: &wire.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: precision},
	}, nil
}

// Describe is DescribeKinesisStreamingDestination: the table's
// destinations, newest first (as DynamoDB lists them, DDB-TABLE-268), with
// the precision only where it was set, as DynamoDB leaves it out for the
// default.
func (f *Feed) Describe(t TableRef) *wire.DescribeKinesisStreamingDestinationOutput {
	f.settleAll()
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &wire.DescribeKinesisStreamingDestinationOutput{TableName: &t.Name, KinesisDataStreamDestinations: []wire.KinesisDataStreamDestination{}}
	ds := f.tableDests(t.ID)
	sort.Slice(ds, func(i, j int) bool { return ds[i].ID > ds[j].ID })
	for _, d := range ds {
		arn := d.StreamARN
		v := wire.KinesisDataStreamDestination{StreamArn: &arn, DestinationStatus: d.Status}
		switch d.Status {
		case Updating: // the new precision shows while UPDATING (DDB-TABLE-300)
			v.ApproximateCreationDateTimePrecision = d.Pending
		case Disabled, EnableFailed:
		default:
			v.ApproximateCreationDateTimePrecision = d.Precision
		}
		if d.Reason != "" {
			r := d.Reason
			v.DestinationStatusDescription = &r
		}
		out.KinesisDataStreamDestinations = append(out.KinesisDataStreamDestinations, v)
	}
	return out
}

// DropTable stops capturing the changes of a deleted table. Its
// destinations keep their states: while the table is DELETING DynamoDB
// still describes them, the ACTIVE one as ACTIVE, and takes an Update of
// it (DDB-TABLE-236, measured against DynamoDB: Describe answered 200 with
// the entry ACTIVE, UpdateKinesisStreamingDestination 200, and the entry
// UPDATING after that Update; nothing recorded shows the deletion itself
// moving it). Once the table is gone it is not found, and a table created
// again under its name has another ID, so no destination of its own. What
// the outbox holds is still delivered: those changes were acknowledged.
func (f *Feed) DropTable(tableID uint64) error {
	_, err := retryShared(f, func() (struct{}, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if err := f.reloadLocked(); err != nil {
			return struct{}{}, err
		}
		for _, d := range f.tableDests(tableID) {
			if d.Removed {
				continue
			}
			c := *d
			c.Removed = true
			if err := f.replace(&c); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	return err
}

// tableDests is the table's destinations. The caller holds mu.
func (f *Feed) tableDests(tableID uint64) []*dest {
	var out []*dest
	for _, d := range f.dests {
		if d.TableID == tableID {
			out = append(out, d)
		}
	}
	return out
}

// find is the table's destination of streamARN (nil when none). The
// caller holds mu.
func (f *Feed) find(tableID uint64, streamARN string) *dest {
	for _, d := range f.tableDests(tableID) {
		if d.StreamARN == streamARN {
			return d
		}
	}
	return nil
}

// streamName is the stream's name in a Kinesis stream ARN
// (arn:PARTITION:kinesis:REGION:ACCOUNT:stream/NAME); "" when arn is not
// one.
func streamName(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "kinesis" {
		return ""
	}
	name, ok := strings.CutPrefix(parts[5], "stream/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return ""
	}
	return name
}

// prefixEnd is the first key after every key with prefix p.
func prefixEnd(p string) []byte {
	b := []byte(p)
	b[len(b)-1]++
	return b
}
