package throttle

import (
	"context"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Target is one table as the quota sees it (the core's table versions
// implement it).
type Target interface {
	// Limit is the limit on the table (index "") or one of its GSIs,
	// reads or writes (LimitOf); ok is false when nothing limits it.
	Limit(index string, write bool) (lim Limit, ok bool)
	// ARN is the table's ARN, for the refusal's ThrottlingReasons.
	ARN() string
	// WriteIndexes are the GSIs whose write capacity a write to the table
	// needs too.
	WriteIndexes() []string
	// ReadIndex is the GSI whose read capacity a read of index pays from,
	// or "" for the table's (the table itself, an LSI).
	ReadIndex(index string) string
	// Meters count what the table consumed (nil: not counted).
	Meters() *Meters
}

// LimitOf is the limit on the table id (index "") or one of its GSIs,
// reads or writes, as its description d sets it: provisioned capacity,
// or the OnDemandThroughput maximum of a PAY_PER_REQUEST table (billing);
// ok is false when nothing limits it.
func LimitOf(id uint64, billing string, d *wire.TableDescription, index string, write bool) (Limit, bool) {
	lim := Limit{Key: Key{Table: id, Index: index, Write: write}}
	pt, od := d.ProvisionedThroughput, d.OnDemandThroughput
	if index != "" {
		pt, od = nil, nil
		for _, g := range d.GlobalSecondaryIndexes {
			if wire.Deref(g.IndexName) == index {
				pt, od = g.ProvisionedThroughput, g.OnDemandThroughput
			}
		}
	}
	var units int64
	if billing == "PAY_PER_REQUEST" {
		if od != nil {
			units = wire.Deref(od.MaxReadRequestUnits)
			if write {
				units = wire.Deref(od.MaxWriteRequestUnits)
			}
		}
		lim.OnDemand = true
	} else if pt != nil {
		units = wire.Deref(pt.ReadCapacityUnits)
		if write {
			units = wire.Deref(pt.WriteCapacityUnits)
		}
	}
	lim.Rate = float64(units)
	return lim, units > 0
}

// Quota is the admission and payment of capacity around one engine's
// requests: with enforcement on (Config.On) a request is admitted while
// the buckets it needs hold capacity and pays what it consumed after;
// with metering on, what it consumed and its refusals are counted in its
// table's Meters. The core builds one at Open and wires it around its
// write path (Applier) and its reads (Read, AdmitAll).
type Quota struct {
	enforce, meter bool
	now            func() time.Time
	buckets        *Buckets
}

// NewQuota is the quota of an engine: cfg's enforcement, metering when
// meter is set, now the engine's clock.
func NewQuota(cfg Config, meter bool, now func() time.Time) *Quota {
	return &Quota{enforce: cfg.On, meter: meter, now: now, buckets: New(cfg.Burst)}
}

// Metering reports whether requests must work out the capacity they
// consume (enforced or counted).
func (q *Quota) Metering() bool { return q.enforce || q.meter }

// Enforcing reports whether capacity is enforced.
func (q *Quota) Enforcing() bool { return q.enforce }

// Buckets are the quota's token buckets.
func (q *Quota) Buckets() *Buckets { return q.buckets }

// AdmitRead refuses a read of t (or of its index) when the capacity it
// reads from is used up.
func (q *Quota) AdmitRead(t Target, index string) error {
	if !q.enforce {
		return nil
	}
	return q.admit(t, t.ReadIndex(index), false)
}

// AdmitWrite refuses a write to t when the table's or any GSI's write
// capacity is used up.
func (q *Quota) AdmitWrite(t Target) error {
	if !q.enforce {
		return nil
	}
	if err := q.admit(t, "", true); err != nil {
		return err
	}
	for _, name := range t.WriteIndexes() {
		if err := q.admit(t, name, true); err != nil {
			return err
		}
	}
	return nil
}

func (q *Quota) admit(t Target, index string, write bool) error {
	lim, ok := t.Limit(index, write)
	if !ok || !q.buckets.Empty(lim, q.now()) {
		return nil
	}
	if q.meter {
		if m := t.Meters(); m != nil {
			m.of(index, write).throttled.Add(1)
		}
	}
	return Refused(t.ARN(), lim)
}

// ChargeRead pays units read from t (or its index), and counts them.
func (q *Quota) ChargeRead(t Target, index string, units float64) {
	if !q.Metering() {
		return
	}
	q.charge(t, t.ReadIndex(index), false, units)
}

// ChargeWrite pays a write's units: table (the table's share and its
// LSIs') from the table's write capacity, each GSI's share from that
// GSI's.
func (q *Quota) ChargeWrite(t Target, table float64, gsi map[string]float64) {
	if !q.Metering() {
		return
	}
	q.charge(t, "", true, table)
	for name, v := range gsi {
		q.charge(t, name, true, v)
	}
}

func (q *Quota) charge(t Target, index string, write bool, units float64) {
	if units == 0 {
		return
	}
	if q.meter {
		if m := t.Meters(); m != nil {
			m.of(index, write).add(units)
		}
	}
	if !q.enforce {
		return
	}
	if lim, ok := t.Limit(index, write); ok {
		q.buckets.Charge(lim, q.now(), units)
	}
}

// Read is one read of t (or of its index) under the quota: admitted,
// run, and what read reports it consumed paid. A read in an Uncharged
// context is only run.
func (q *Quota) Read(ctx context.Context, t Target, index string, read func() (units float64, err error)) error {
	free := IsUncharged(ctx)
	if !free {
		if err := q.AdmitRead(t, index); err != nil {
			return err
		}
	}
	units, err := read()
	if err == nil && !free {
		q.ChargeRead(t, index, units)
	}
	return err
}

// AdmitAll admits every action of a transaction (tables[i] is action i's
// table), reads or writes: nil when all are, else each action's refusal
// (nil for the admitted ones), which cancels the transaction (Reason).
func (q *Quota) AdmitAll(tables []Target, write bool) []*ddberr.Error {
	if !q.enforce {
		return nil
	}
	var refused []*ddberr.Error
	for i, t := range tables {
		var err error
		if write {
			err = q.AdmitWrite(t)
		} else {
			err = q.AdmitRead(t, "")
		}
		if err != nil {
			if refused == nil {
				refused = make([]*ddberr.Error, len(tables))
			}
			refused[i] = err.(*ddberr.Error)
		}
	}
	return refused
}

// Reason is a transaction's cancellation reason for an action refused for
// capacity: ProvisionedThroughputExceeded, or ThrottlingError for an
// on-demand maximum.
func Reason(err *ddberr.Error) wire.CancellationReason {
	code := "ProvisionedThroughputExceeded"
	if err.Type == "ThrottlingException" {
		code = "ThrottlingError"
	}
	msg := err.Message
	return wire.CancellationReason{Code: code, Message: &msg}
}

// unchargedKey marks a context whose reads are Kura's own (Uncharged).
type unchargedKey struct{}

// Uncharged marks ctx's reads as Kura's own, which consume no capacity,
// are not metered and are never throttled: the replication of global
// tables reading a replica's items, for which DynamoDB charges no reads
// (only the replicated writes). Writes made with it are charged as any
// write.
func Uncharged(ctx context.Context) context.Context {
	return context.WithValue(ctx, unchargedKey{}, true)
}

// IsUncharged reports whether ctx is Uncharged.
func IsUncharged(ctx context.Context) bool {
	v, _ := ctx.Value(unchargedKey{}).(bool)
	return v
}
