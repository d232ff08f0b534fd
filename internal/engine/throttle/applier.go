package throttle

import (
	"context"
	"errors"

	"github.com/kura-db/kura/internal/ddberr"
)

// Write-path appliers, after etcd's: appliers wrap one another around the
// one that applies (there its quota and authorization appliers around
// the backend's). The core's write path is a Writes; Open wires the quota
// Applier around it when capacity is enforced or metered, and the
// operations call the chain without naming admission or payment.

// Writes applies single-item writes (W) and a BatchWriteItem's (B), each
// with its result (R).
type Writes[W Write, B Batched, R any] interface {
	ApplyWrite(ctx context.Context, w W) (R, error)
	// ApplyBatch applies a batch's writes: those it kept (in request
	// order) with their results, and those it refused, which go back
	// unprocessed.
	ApplyBatch(ctx context.Context, writes []B) (kept []B, results []R, refused []B, err error)
}

// Write is what the quota needs of a write: its table.
type Write interface{ QuotaTarget() Target }

// Batched is a batch's write: its table and the table write units it is
// expected to consume, paid on admission so that the next write sees it
// (the difference to what it did consume is paid after).
type Batched interface {
	Write
	Estimate() float64
}

// Applier is the quota applier: a write is refused when the capacity it
// needs is used up, and pays for what it consumed after (a failed
// condition still consumes a write unit).
type Applier[W Write, B Batched, R any] struct {
	Quota *Quota
	Next  Writes[W, B, R]
	// Units is what a write to t with result r consumed: the table's
	// share (its LSIs' included) and each GSI's.
	Units func(t Target, r R) (table float64, gsi map[string]float64)
}

// ApplyWrite admits w, applies it through Next and pays for it.
func (a Applier[W, B, R]) ApplyWrite(ctx context.Context, w W) (R, error) {
	t := w.QuotaTarget()
	if err := a.Quota.AdmitWrite(t); err != nil {
		var none R
		return none, err
	}
	res, err := a.Next.ApplyWrite(ctx, w)
	if err == nil {
		table, gsi := a.Units(t, res)
		a.Quota.ChargeWrite(t, table, gsi)
		return res, nil
	}
	var de *ddberr.Error // escapes: only on the error path
	if errors.As(err, &de) && de.Type == "ConditionalCheckFailedException" {
		a.Quota.ChargeWrite(t, 1, nil)
	}
	return res, err
}

// ApplyBatch admits the writes whose tables have capacity, in request
// order (each paying its estimate on admission; when none is admitted the
// batch fails with the first refusal), applies them through Next, and
// pays what each consumed beyond its estimate.
func (a Applier[W, B, R]) ApplyBatch(ctx context.Context, writes []B) ([]B, []R, []B, error) {
	writes, refused, err := a.admitBatch(writes)
	if err != nil {
		return nil, nil, nil, err
	}
	writes, results, _, err := a.Next.ApplyBatch(ctx, writes)
	if err != nil {
		return nil, nil, nil, err
	}
	for i, w := range writes {
		t := w.QuotaTarget()
		table, gsi := a.Units(t, results[i])
		if a.Quota.enforce {
			table -= w.Estimate() // paid on admission
		}
		a.Quota.ChargeWrite(t, table, gsi)
	}
	return writes, results, refused, nil
}

func (a Applier[W, B, R]) admitBatch(writes []B) (kept, refused []B, err error) {
	if !a.Quota.enforce {
		return writes, nil, nil
	}
	kept = writes[:0:0]
	var first error
	for _, w := range writes {
		t := w.QuotaTarget()
		if err := a.Quota.AdmitWrite(t); err != nil {
			if first == nil {
				first = err
			}
			refused = append(refused, w)
			continue
		}
		a.Quota.ChargeWrite(t, w.Estimate(), nil)
		kept = append(kept, w)
	}
	if len(kept) == 0 {
		return nil, nil, first
	}
	return kept, refused, nil
}
