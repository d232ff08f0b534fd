package tables

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

// MaxTableCapacity is the per-table maximum of ReadCapacityUnits and
// WriteCapacityUnits for an account (DescribeLimits reports it too).
const MaxTableCapacity = 40000

// msgWarmOnDemandDoc ends the refusal of warm throughput below what an
// on-demand table starts with.
const msgWarmOnDemandDoc = "See: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial"

// CheckTableCapacity refuses table capacity above the per-table
// maximum with DynamoDB's LimitExceededException.
func (a Account) CheckTableCapacity(pt *wire.ProvisionedThroughput) *ddberr.Error {
	if pt == nil {
		return nil
	}
	for _, c := range []struct {
		name string
		v    *int64
	}{{"ReadCapacityUnits", pt.ReadCapacityUnits}, {"WriteCapacityUnits", pt.WriteCapacityUnits}} {
		if c.v != nil && *c.v > MaxTableCapacity {
			return ddberr.LimitExceeded(fmt.Sprintf("The requested %s, %d, is above the per table maximum for the account in %s. "+
				"Per table maximum: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
				c.name, *c.v, a.Region, MaxTableCapacity))
		}
	}
	return nil
}

// CheckCreateWarm refuses a CreateTable WarmThroughput below what the
// table would have anyway: the on-demand initial throughput, or the
// provisioned capacity.
func CheckCreateWarm(w *wire.WarmThroughput, billing string, pt *wire.ProvisionedThroughput) *ddberr.Error {
	if w == nil {
		return nil
	}
	if billing == BillingPayPerRequest {
		if r := w.ReadUnitsPerSecond; r != nil && *r < WarmReadOnDemand {
			return ddberr.InvalidParam("Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. %s", msgWarmOnDemandDoc)
		}
		if wr := w.WriteUnitsPerSecond; wr != nil && *wr < WarmWriteOnDemand {
			return ddberr.InvalidParam("Requested WriteUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. %s", msgWarmOnDemandDoc)
		}
		return nil
	}
	if pt == nil {
		return nil
	}
	if r := w.ReadUnitsPerSecond; r != nil && *r < wire.Deref(pt.ReadCapacityUnits) {
		return ddberr.InvalidParam("Requested ReadUnitsPerSecond for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput")
	}
	if wr := w.WriteUnitsPerSecond; wr != nil && *wr < wire.Deref(pt.WriteCapacityUnits) {
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

// CheckWarmDecrease refuses lowering warm throughput below the current
// r/w; what is "table" or "index <name>".
func CheckWarmDecrease(w *wire.WarmThroughput, r, wr int64, what string) *ddberr.Error {
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

// RaiseWarm lifts a table's warm throughput to at least r/w: it tracks the
// highest capacity the table ever had, and never decreases.
func RaiseWarm(d *wire.TableDescription, r, w int64) {
	cur := d.WarmThroughput
	if cur == nil {
		cur = &wire.TableWarmThroughputDescription{Status: StatusActive}
		d.WarmThroughput = cur
	}
	cur.ReadUnitsPerSecond = wire.Ptr(max(r, wire.Deref(cur.ReadUnitsPerSecond)))
	cur.WriteUnitsPerSecond = wire.Ptr(max(w, wire.Deref(cur.WriteUnitsPerSecond)))
}

// MergeOnDemand applies an OnDemandThroughput update member by member: a
// member not given keeps its value, -1 removes the limit. It returns nil
// when no limit is left.
func MergeOnDemand(cur, o *wire.OnDemandThroughput) *wire.OnDemandThroughput {
	next := &wire.OnDemandThroughput{}
	if cur != nil {
		*next = *cur
	}
	if o.MaxReadRequestUnits != nil {
		next.MaxReadRequestUnits = wire.Ptr(*o.MaxReadRequestUnits)
	}
	if o.MaxWriteRequestUnits != nil {
		next.MaxWriteRequestUnits = wire.Ptr(*o.MaxWriteRequestUnits)
	}
	if wire.Deref(next.MaxReadRequestUnits) == -1 {
		next.MaxReadRequestUnits = nil
	}
	if wire.Deref(next.MaxWriteRequestUnits) == -1 {
		next.MaxWriteRequestUnits = nil
	}
	if !NonEmptyOnDemand(next) {
		return nil
	}
	return next
}

// ClassOf is a table's class; STANDARD when never set.
func ClassOf(d *wire.TableDescription) string {
	if d.TableClassSummary == nil || d.TableClassSummary.TableClass == "" {
		return "STANDARD"
	}
	return d.TableClassSummary.TableClass
}

// UpdateResponse shows an UpdateTable's table-level changes in its
// response as DynamoDB does (live probes, October 2026): a billing mode or
// table class request answers UPDATING even when it changes nothing, and
// shows the class and the provisioned figures from before the change (the
// new increase or decrease time already set); a switch to PAY_PER_REQUEST
// shows no LastUpdateToPayPerRequestDateTime yet. DescribeTable shows the
// new state.
func UpdateResponse(out, prev *wire.TableDescription, in *wire.UpdateTableInput, f UpdateFlags, switching bool) {
	if f.Billing || f.Class {
		out.TableStatus = StatusUpdating
	}
	if f.Class {
		out.TableClassSummary = prev.TableClassSummary
	}
	if f.PT && !switching && prev.ProvisionedThroughput != nil && out.ProvisionedThroughput != nil {
		old := *prev.ProvisionedThroughput
		old.LastIncreaseDateTime = out.ProvisionedThroughput.LastIncreaseDateTime
		old.LastDecreaseDateTime = out.ProvisionedThroughput.LastDecreaseDateTime
		out.ProvisionedThroughput = &old
	}
	if switching && out.BillingModeSummary != nil && out.BillingModeSummary.BillingMode == BillingPayPerRequest {
		out.BillingModeSummary = &wire.BillingModeSummary{BillingMode: BillingPayPerRequest}
	}
	if f.Warm && prev.WarmThroughput != nil {
		// Raising warm throughput runs in the background: the response
		// shows the previous figures, UPDATING.
		w := *prev.WarmThroughput
		w.Status = StatusUpdating
		out.WarmThroughput = &w
	}
	if f.SSE && out.SSEDescription == nil && prev.SSEDescription != nil {
		// Going back to the AWS owned key: the response still shows the
		// KMS key, UPDATING (LocalStack's snapshot of DynamoDB, validated
		// 2024-01-10); DescribeTable then shows no SSEDescription.
		d := *prev.SSEDescription
		d.Status = StatusUpdating
		out.SSEDescription = &d
	}
	if o := in.OnDemandThroughput; f.OnDemand && (wire.Deref(o.MaxReadRequestUnits) == -1 || wire.Deref(o.MaxWriteRequestUnits) == -1) {
		// A limit removed with -1 is echoed as -1 (DescribeTable omits it).
		echo := wire.OnDemandThroughput{}
		if out.OnDemandThroughput != nil {
			echo = *out.OnDemandThroughput
		}
		if wire.Deref(o.MaxReadRequestUnits) == -1 {
			echo.MaxReadRequestUnits = wire.Ptr[int64](-1)
		}
		if wire.Deref(o.MaxWriteRequestUnits) == -1 {
			echo.MaxWriteRequestUnits = wire.Ptr[int64](-1)
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

// DecreasesToday is NumberOfDecreasesToday as of now: it counts from 0
// again at midnight UTC.
func DecreasesToday(cur *wire.ProvisionedThroughputDescription, now time.Time) int64 {
	if cur.LastDecreaseDateTime == nil || !sameUTCDay(cur.LastDecreaseDateTime.Time, now) {
		return 0
	}
	return wire.Deref(cur.NumberOfDecreasesToday)
}

func sameUTCDay(a, b time.Time) bool {
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}

// CheckDecreaseBudget refuses a decrease (of either dimension) beyond the
// day's budget with DynamoDB's LimitExceededException.
func CheckDecreaseBudget(cur *wire.ProvisionedThroughputDescription, pt *wire.ProvisionedThroughput, now time.Time) *ddberr.Error {
	if wire.Deref(pt.ReadCapacityUnits) >= wire.Deref(cur.ReadCapacityUnits) && wire.Deref(pt.WriteCapacityUnits) >= wire.Deref(cur.WriteCapacityUnits) {
		return nil
	}
	n := DecreasesToday(cur, now)
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

// ClassChange applies a TableClass request to d, whose class changes of
// the window are changes: refused once the window's changes are spent (a
// request for the current class too), a change of class recorded, a
// request for the current class a no-op. It returns the changes to keep.
func ClassChange(d *wire.TableDescription, changes []time.Time, class string, now time.Time) ([]time.Time, *ddberr.Error) {
	recent := changes[:0]
	for _, at := range changes {
		if now.Sub(at) < classChangeWindow {
			recent = append(recent, at)
		}
	}
	if len(recent) >= classChangesAllowed {
		return recent, ddberr.LimitExceeded(fmt.Sprintf("Subscriber limit exceeded: Updates to TableClass are limited to %d times in %d day(s).",
			classChangesAllowed, int(classChangeWindow/(24*time.Hour))))
	}
	if class == ClassOf(d) {
		return recent, nil
	}
	d.TableClassSummary = &wire.TableClassSummary{TableClass: class, LastUpdateDateTime: wire.NewTime(now)}
	return append(recent, now), nil
}

// WarmRaised reports whether a CreateTable asks for more warm throughput
// than the table starts with.
func WarmRaised(in *wire.CreateTableInput, billing string) bool {
	r, w := int64(WarmReadOnDemand), int64(WarmWriteOnDemand)
	if billing == BillingProvisioned && in.ProvisionedThroughput != nil {
		r, w = wire.Deref(in.ProvisionedThroughput.ReadCapacityUnits), wire.Deref(in.ProvisionedThroughput.WriteCapacityUnits)
	}
	return wire.Deref(in.WarmThroughput.ReadUnitsPerSecond) > r || wire.Deref(in.WarmThroughput.WriteUnitsPerSecond) > w
}

// CheckOnDemandCap refuses an on-demand limit above the account's
// per-table maximum; what is "table" or "index : <name>".
func (a Account) CheckOnDemandCap(o *wire.OnDemandThroughput, what string) *ddberr.Error {
	if o == nil {
		return nil
	}
	if r := o.MaxReadRequestUnits; r != nil && *r > MaxTableCapacity {
		return ddberr.LimitExceeded(fmt.Sprintf("Subscriber limit exceeded: Requested MaxReadRequestUnits for OnDemandThroughput for %s exceeds TableMaxReadCapacityUnits of the account in region %s", what, a.Region))
	}
	if w := o.MaxWriteRequestUnits; w != nil && *w > MaxTableCapacity {
		return ddberr.LimitExceeded(fmt.Sprintf("Subscriber limit exceeded: Requested MaxWriteRequestUnits for OnDemandThroughput for %s exceeds TableMaxWriteCapacityUnits of the account in region %s", what, a.Region))
	}
	return nil
}

// CheckCreateCaps applies the account's per-table maxima to a CreateTable.
func (a Account) CheckCreateCaps(in *wire.CreateTableInput) *ddberr.Error {
	if err := a.CheckTableCapacity(in.ProvisionedThroughput); err != nil {
		return err
	}
	if err := a.CheckOnDemandCap(in.OnDemandThroughput, "table"); err != nil {
		return err
	}
	for _, g := range in.GlobalSecondaryIndexes {
		if err := a.CheckOnDemandCap(g.OnDemandThroughput, "index : "+wire.Deref(g.IndexName)); err != nil {
			return err
		}
	}
	return nil
}
