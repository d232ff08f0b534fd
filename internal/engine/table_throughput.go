package engine

import (
	"fmt"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Throughput rules of CreateTable and UpdateTable beyond the shape of the
// members: the account's per-table maximum, warm throughput floors, and
// how warm throughput follows provisioned capacity. The texts are those of
// live DynamoDB probes (October 2026).

// maxTableCapacity is the per-table maximum of ReadCapacityUnits and
// WriteCapacityUnits for an account (DescribeLimits reports it too).
const maxTableCapacity = 40000

// msgWarmOnDemandDoc ends the refusal of warm throughput below what an
// on-demand table starts with.
const msgWarmOnDemandDoc = "See: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial"

// checkTableCapacityLimit refuses table capacity above the per-table
// maximum with DynamoDB's LimitExceededException.
func (e *Engine) checkTableCapacityLimit(pt *wire.ProvisionedThroughput) *ddberr.Error {
	if pt == nil {
		return nil
	}
	for _, c := range []struct {
		name string
		v    *int64
	}{{"ReadCapacityUnits", pt.ReadCapacityUnits}, {"WriteCapacityUnits", pt.WriteCapacityUnits}} {
		if c.v != nil && *c.v > maxTableCapacity {
			return ddberr.LimitExceeded(fmt.Sprintf("The requested %s, %d, is above the per table maximum for the account in %s. "+
				"Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
				c.name, *c.v, e.cfg.Region, maxTableCapacity))
		}
	}
	return nil
}

// checkCreateWarm refuses a CreateTable WarmThroughput below what the
// table would have anyway: the on-demand initial throughput, or the
// provisioned capacity.
func checkCreateWarm(w *wire.WarmThroughput, billing string, pt *wire.ProvisionedThroughput) *ddberr.Error {
	if w == nil {
		return nil
	}
	if billing == BillingPayPerRequest {
		if r := w.ReadUnitsPerSecond; r != nil && *r < warmReadOnDemand {
			return ddberr.InvalidParam("Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. %s", msgWarmOnDemandDoc)
		}
		if wr := w.WriteUnitsPerSecond; wr != nil && *wr < warmWriteOnDemand {
			return ddberr.InvalidParam("Requested WriteUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. %s", msgWarmOnDemandDoc)
		}
		return nil
	}
	if pt == nil {
		return nil
	}
	if r := w.ReadUnitsPerSecond; r != nil && *r < cpDeref(pt.ReadCapacityUnits) {
		return ddberr.InvalidParam("Requested ReadUnitsPerSecond for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput")
	}
	if wr := w.WriteUnitsPerSecond; wr != nil && *wr < cpDeref(pt.WriteCapacityUnits) {
		return ddberr.InvalidParam("Requested WriteUnitsPerSecond for WarmThroughput for table is lower than WriteCapacityUnits of ProvisionedThroughput")
	}
	return nil
}

// createOnDemandOnProvisioned is CreateTable's refusal of an
// OnDemandThroughput on a PROVISIONED table or (index != "") on one of its
// GSIs, worded unlike UpdateTable's.
func createOnDemandOnProvisioned(o *wire.OnDemandThroughput, index string) *ddberr.Error {
	m := onDemandMember(o)
	if m == "" {
		return nil
	}
	of := ""
	if index != "" {
		of = " for index: " + index
	}
	return ddberr.InvalidParam("%s for OnDemandThroughput%s cannot be specified when table BillingMode is PROVISIONED.", m, of)
}

// checkWarmDecrease refuses lowering warm throughput below the current
// r/w; what is "table" or "index <name>".
func checkWarmDecrease(w *wire.WarmThroughput, r, wr int64, what string) *ddberr.Error {
	if w == nil {
		return nil
	}
	if v := w.ReadUnitsPerSecond; v != nil && *v < r {
		return ddberr.InvalidParam("Requested ReadUnitsPerSecond for WarmThroughput for %s is lower than current WarmThroughput, decreasing WarmThroughput is not supported", what)
	}
	if v := w.WriteUnitsPerSecond; v != nil && *v < wr {
		return ddberr.InvalidParam("Requested WriteUnitsPerSecond for WarmThroughput for %s is lower than current WarmThroughput, decreasing WarmThroughput is not supported", what)
	}
	return nil
}

// raiseWarm lifts a table's warm throughput to at least r/w: it tracks the
// highest capacity the table ever had, and never decreases.
func raiseWarm(d *wire.TableDescription, r, w int64) {
	cur := d.WarmThroughput
	if cur == nil {
		cur = &wire.TableWarmThroughputDescription{Status: StatusActive}
		d.WarmThroughput = cur
	}
	cur.ReadUnitsPerSecond = cpPtr(max(r, cpDeref(cur.ReadUnitsPerSecond)))
	cur.WriteUnitsPerSecond = cpPtr(max(w, cpDeref(cur.WriteUnitsPerSecond)))
}

// mergeOnDemand applies an OnDemandThroughput update member by member: a
// member not given keeps its value, -1 removes the limit. It returns nil
// when no limit is left.
func mergeOnDemand(cur, o *wire.OnDemandThroughput) *wire.OnDemandThroughput {
	next := &wire.OnDemandThroughput{}
	if cur != nil {
		*next = *cur
	}
	if o.MaxReadRequestUnits != nil {
		next.MaxReadRequestUnits = cpPtr(*o.MaxReadRequestUnits)
	}
	if o.MaxWriteRequestUnits != nil {
		next.MaxWriteRequestUnits = cpPtr(*o.MaxWriteRequestUnits)
	}
	if cpDeref(next.MaxReadRequestUnits) == -1 {
		next.MaxReadRequestUnits = nil
	}
	if cpDeref(next.MaxWriteRequestUnits) == -1 {
		next.MaxWriteRequestUnits = nil
	}
	if !nonEmptyOnDemand(next) {
		return nil
	}
	return next
}

// tableClassOf is a table's class; STANDARD when never set.
func tableClassOf(d *wire.TableDescription) string {
	if d.TableClassSummary == nil || d.TableClassSummary.TableClass == "" {
		return "STANDARD"
	}
	return d.TableClassSummary.TableClass
}

// tableUpdateResponse shows an UpdateTable's table-level changes in its
// response as DynamoDB does (live probes, October 2026): a billing mode or
// table class request answers UPDATING even when it changes nothing, and
// shows the class and the provisioned figures from before the change (the
// new increase or decrease time already set); a switch to PAY_PER_REQUEST
// shows no LastUpdateToPayPerRequestDateTime yet. DescribeTable shows the
// new state.
func tableUpdateResponse(out, prev *wire.TableDescription, in *wire.UpdateTableInput, f updateFlags, switching bool) {
	if f.billing || f.class {
		out.TableStatus = StatusUpdating
	}
	if f.class {
		out.TableClassSummary = prev.TableClassSummary
	}
	if f.pt && !switching && prev.ProvisionedThroughput != nil && out.ProvisionedThroughput != nil {
		old := *prev.ProvisionedThroughput
		old.LastIncreaseDateTime = out.ProvisionedThroughput.LastIncreaseDateTime
		old.LastDecreaseDateTime = out.ProvisionedThroughput.LastDecreaseDateTime
		out.ProvisionedThroughput = &old
	}
	if switching && out.BillingModeSummary != nil && out.BillingModeSummary.BillingMode == BillingPayPerRequest {
		out.BillingModeSummary = &wire.BillingModeSummary{BillingMode: BillingPayPerRequest}
	}
	if f.warm && prev.WarmThroughput != nil {
		// Raising warm throughput runs in the background: the response
		// shows the previous figures, UPDATING.
		w := *prev.WarmThroughput
		w.Status = StatusUpdating
		out.WarmThroughput = &w
	}
	if f.sse && out.SSEDescription == nil && prev.SSEDescription != nil {
		// Going back to the AWS owned key: the response still shows the
		// KMS key, UPDATING (LocalStack's snapshot of DynamoDB, validated
		// 2024-01-10); DescribeTable then shows no SSEDescription.
		d := *prev.SSEDescription
		d.Status = StatusUpdating
		out.SSEDescription = &d
	}
	if o := in.OnDemandThroughput; f.onDemand && (cpDeref(o.MaxReadRequestUnits) == -1 || cpDeref(o.MaxWriteRequestUnits) == -1) {
		// A limit removed with -1 is echoed as -1 (DescribeTable omits it).
		echo := wire.OnDemandThroughput{}
		if out.OnDemandThroughput != nil {
			echo = *out.OnDemandThroughput
		}
		if cpDeref(o.MaxReadRequestUnits) == -1 {
			echo.MaxReadRequestUnits = cpPtr[int64](-1)
		}
		if cpDeref(o.MaxWriteRequestUnits) == -1 {
			echo.MaxWriteRequestUnits = cpPtr[int64](-1)
		}
		out.OnDemandThroughput = &echo
	}
}

// Provisioned throughput decreases: DynamoDB allows 4 per table and UTC
// day, then one every 3600 seconds after the last (or from midnight UTC,
// when the count starts again); a refused decrease changes nothing.
const (
	freeDecreasesPerDay = 4
	decreaseSpacing     = time.Hour
)

// decreasesToday is NumberOfDecreasesToday as of now: it counts from 0
// again at midnight UTC.
func decreasesToday(cur *wire.ProvisionedThroughputDescription, now time.Time) int64 {
	if cur.LastDecreaseDateTime == nil || !sameUTCDay(cur.LastDecreaseDateTime.Time, now) {
		return 0
	}
	return cpDeref(cur.NumberOfDecreasesToday)
}

func sameUTCDay(a, b time.Time) bool {
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}

// checkDecreaseBudget refuses a decrease (of either dimension) beyond the
// day's budget with DynamoDB's LimitExceededException.
func checkDecreaseBudget(cur *wire.ProvisionedThroughputDescription, pt *wire.ProvisionedThroughput, now time.Time) *ddberr.Error {
	if cpDeref(pt.ReadCapacityUnits) >= cpDeref(cur.ReadCapacityUnits) && cpDeref(pt.WriteCapacityUnits) >= cpDeref(cur.WriteCapacityUnits) {
		return nil
	}
	n := decreasesToday(cur, now)
	if n < freeDecreasesPerDay {
		return nil
	}
	last := cur.LastDecreaseDateTime.UTC()
	next := last.Add(decreaseSpacing)
	if y, m, d := last.Date(); next.After(time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)) {
		next = time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
	}
	if !now.Before(next) {
		return nil
	}
	const layout = "Monday, January 2, 2006 at 3:04:05 PM Coordinated Universal Time"
	return ddberr.LimitExceeded(fmt.Sprintf("Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. "+
		"After the first %d decreases, each subsequent decrease in the same UTC day can be performed at most once every %d seconds. "+
		"Number of decreases today: %d. Last decrease at %s. Next decrease can be made at %s",
		freeDecreasesPerDay, int(decreaseSpacing/time.Second), n, last.Format(layout), next.Format(layout)))
}

// DynamoDB allows two table class changes per table in 30 days.
const (
	classChangesAllowed = 2
	classChangeWindow   = 30 * 24 * time.Hour
)

// classChange applies a TableClass request to rec: refused once the
// window's changes are spent (a request for the current class too), a
// change of class recorded, a request for the current class a no-op.
func classChange(rec *tableRecord, class string, now time.Time) *ddberr.Error {
	recent := rec.ClassChanges[:0]
	for _, at := range rec.ClassChanges {
		if now.Sub(at) < classChangeWindow {
			recent = append(recent, at)
		}
	}
	rec.ClassChanges = recent
	if len(recent) >= classChangesAllowed {
		return ddberr.LimitExceeded(fmt.Sprintf("Subscriber limit exceeded: Updates to TableClass are limited to %d times in %d day(s).",
			classChangesAllowed, int(classChangeWindow/(24*time.Hour))))
	}
	if class == tableClassOf(&rec.Desc) {
		return nil
	}
	rec.Desc.TableClassSummary = &wire.TableClassSummary{TableClass: class, LastUpdateDateTime: wire.NewTime(now)}
	rec.ClassChanges = append(rec.ClassChanges, now)
	return nil
}

// warmRaised reports whether a CreateTable asks for more warm throughput
// than the table starts with.
func warmRaised(in *wire.CreateTableInput, billing string) bool {
	r, w := int64(warmReadOnDemand), int64(warmWriteOnDemand)
	if billing == BillingProvisioned && in.ProvisionedThroughput != nil {
		r, w = cpDeref(in.ProvisionedThroughput.ReadCapacityUnits), cpDeref(in.ProvisionedThroughput.WriteCapacityUnits)
	}
	return cpDeref(in.WarmThroughput.ReadUnitsPerSecond) > r || cpDeref(in.WarmThroughput.WriteUnitsPerSecond) > w
}

// checkOnDemandCap refuses an on-demand limit above the account's
// per-table maximum; what is "table" or "index : <name>".
func (e *Engine) checkOnDemandCap(o *wire.OnDemandThroughput, what string) *ddberr.Error {
	if o == nil {
		return nil
	}
	if r := o.MaxReadRequestUnits; r != nil && *r > maxTableCapacity {
		return ddberr.LimitExceeded(fmt.Sprintf("Subscriber limit exceeded: Requested MaxReadRequestUnits for OnDemandThroughput for %s exceeds TableMaxReadCapacityUnits of the account in region %s", what, e.cfg.Region))
	}
	if w := o.MaxWriteRequestUnits; w != nil && *w > maxTableCapacity {
		return ddberr.LimitExceeded(fmt.Sprintf("Subscriber limit exceeded: Requested MaxWriteRequestUnits for OnDemandThroughput for %s exceeds TableMaxWriteCapacityUnits of the account in region %s", what, e.cfg.Region))
	}
	return nil
}

// checkCreateCaps applies the account's per-table maxima to a CreateTable.
func (e *Engine) checkCreateCaps(in *wire.CreateTableInput) *ddberr.Error {
	if err := e.checkTableCapacityLimit(in.ProvisionedThroughput); err != nil {
		return err
	}
	if err := e.checkOnDemandCap(in.OnDemandThroughput, "table"); err != nil {
		return err
	}
	for _, g := range in.GlobalSecondaryIndexes {
		if err := e.checkOnDemandCap(g.OnDemandThroughput, "index : "+cpDeref(g.IndexName)); err != nil {
			return err
		}
	}
	return nil
}
