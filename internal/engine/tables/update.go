package tables

import (
	"slices"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// UpdateFlags records which kinds of change an UpdateTable request makes.
type UpdateFlags struct {
	Billing, PT, Stream, SSE, Class, DP, OnDemand, Warm bool
	GSICreateDelete, GSIUpdate                          bool
}

func NonEmptyOnDemand(o *wire.OnDemandThroughput) bool {
	return o != nil && (o.MaxReadRequestUnits != nil || o.MaxWriteRequestUnits != nil)
}

func NonEmptyWarm(w *wire.WarmThroughput) bool {
	return w != nil && (w.ReadUnitsPerSecond != nil || w.WriteUnitsPerSecond != nil)
}

// ValidateUpdate checks an UpdateTable request on its own, before the table is
// looked up.
func ValidateUpdate(in *wire.UpdateTableInput, ix Indexes) (UpdateFlags, *ddberr.Error) {
	f := UpdateFlags{
		Billing:  in.BillingMode != "",
		PT:       in.ProvisionedThroughput != nil,
		Stream:   in.StreamSpecification != nil,
		SSE:      in.SSESpecification != nil,
		Class:    in.TableClass != "",
		DP:       in.DeletionProtectionEnabled != nil,
		OnDemand: NonEmptyOnDemand(in.OnDemandThroughput),
		Warm:     NonEmptyWarm(in.WarmThroughput),
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil || u.Delete != nil {
			f.GSICreateDelete = true
		}
		if u.Update != nil {
			f.GSIUpdate = true
		}
	}
	if !f.Billing && !f.PT && !f.Stream && !f.SSE && !f.Class && !f.DP && !f.OnDemand && !f.Warm &&
		len(in.GlobalSecondaryIndexUpdates) == 0 && len(in.VectorIndexUpdates) == 0 && len(in.ReplicaUpdates) == 0 {
		members := []string{"ProvisionedThroughput", "BillingMode", "UpdateStreamEnabled", "GlobalSecondaryIndexUpdates",
			"SSESpecification", "ReplicaUpdates", "MultiAccountReplicaReady", "ReplicaTransitRoleArn", "MultiRegionConsistency",
			"DeletionProtectionEnabled", "OnDemandThroughput", "WarmThroughput"}
		if in.MultiRegionConsistency != "" {
			members = slices.DeleteFunc(members, func(s string) bool { return s == "MultiRegionConsistency" })
		}
		return f, ddberr.Validation("At least one of " + strings.Join(members, ", ") + " or TableClass is required")
	}
	if in.GlobalSecondaryIndexUpdates != nil && len(in.GlobalSecondaryIndexUpdates) == 0 {
		// Absent for the check above; with any other change, refused
		// (and the other change not applied).
		return f, ddberr.InvalidParam("List of GlobalSecondaryIndexUpdates is empty")
	}
	count := 0
	for _, b := range []bool{f.Billing, f.PT, f.Stream, f.SSE, f.Class, f.DP, f.OnDemand, f.Warm, len(in.GlobalSecondaryIndexUpdates) > 0} {
		if b {
			count++
		}
	}
	switch {
	case f.SSE && count > 1:
		return f, ddberr.InvalidParam("Server-Side Encryption modification must be the only operation in the request")
	case f.Class && count > 1:
		return f, ddberr.InvalidParam("TableClass modification must be the only operation in the request")
	case f.DP && count > 1:
		return f, ddberr.InvalidParam("DeletionProtection modification must be the only operation in the request")
	case f.Warm && slices.ContainsFunc(in.GlobalSecondaryIndexUpdates, func(u wire.GlobalSecondaryIndexUpdate) bool { return u.Create != nil }):
		return f, ddberr.InvalidParam("Create global secondary index cannot be specified when updating WarmThroughput")
	case f.Warm && count > 1:
		return f, ddberr.InvalidParam("WarmThroughput must be the only operation in the request")
	case f.OnDemand && count > 1 && !(count == 2 && f.Billing):
		return f, ddberr.InvalidParam("OnDemandThroughput can only be combined with BillingMode in an UpdateTable request")
	}
	if in.BillingMode == BillingPayPerRequest && f.PT {
		return f, ddberr.InvalidParam("ProvisionedThroughput cannot be specified when BillingMode is PAY_PER_REQUEST")
	}
	if in.BillingMode == BillingProvisioned && !f.PT {
		return f, ddberr.InvalidParam("ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	}
	if f.PT {
		if err := CheckCapacityBounds(in.ProvisionedThroughput, ""); err != nil {
			return f, err
		}
	}
	if s := in.StreamSpecification; s != nil {
		if wire.Deref(s.StreamEnabled) && s.StreamViewType == "" {
			return f, ddberr.InvalidParam("If stream is being enabled then UpdateViewType is required")
		}
		if !wire.Deref(s.StreamEnabled) && s.StreamViewType != "" {
			return f, ddberr.InvalidParam("If stream is being disabled, then UpdateViewType must not be specified")
		}
	}
	if f.PT && f.Stream {
		return f, ddberr.InvalidParam("You cannot modify stream status while updating table IOPS")
	}
	if f.GSICreateDelete && f.PT {
		return f, ddberr.InvalidParam("You cannot create or delete index while updating table IOPS")
	}
	if (f.GSICreateDelete || len(in.VectorIndexUpdates) > 0) && f.Stream {
		// Vector indexes too (ScyllaDB's Alternator tests, run against
		// DynamoDB: a vector index Create or Delete with a stream enabled or
		// disabled, the Delete's index missing or not).
		return f, ddberr.InvalidParam("You cannot create or delete index while changing stream status")
	}
	if err := CheckSSE(in.SSESpecification); err != nil {
		return f, err
	}
	seen := map[string]bool{}
	online := 0
	for _, u := range in.GlobalSecondaryIndexUpdates {
		n := 0
		var name string
		if u.Create != nil {
			n, name = n+1, wire.Deref(u.Create.IndexName)
		}
		if u.Delete != nil {
			n, name = n+1, wire.Deref(u.Delete.IndexName)
		}
		if u.Update != nil {
			n, name = n+1, wire.Deref(u.Update.IndexName)
		}
		if n == 0 {
			return f, ddberr.InvalidParam("One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
		}
		if n > 1 {
			return f, ddberr.InvalidParam("Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object")
		}
		if seen[name] {
			return f, ddberr.InvalidParam("Only one global secondary index update per index is allowed simultaneously. Index: %s", name)
		}
		seen[name] = true
		if u.Create != nil || u.Delete != nil {
			online++
		}
		if u.Create != nil {
			if err := CheckProjection(u.Create.Projection); err != nil {
				return f, err
			}
			if err := ix.CheckGSIKeySchemaShape(u.Create.KeySchema); err != nil {
				return f, err
			}
		}
		if u.Update != nil && u.Update.ProvisionedThroughput != nil {
			if err := CheckCapacityBounds(u.Update.ProvisionedThroughput, name); err != nil {
				return f, err
			}
		}
	}
	if online > 1 {
		return f, ddberr.LimitExceeded(MsgOnlineIndexLimit)
	}
	return f, nil
}

// Update is the table-level part of one UpdateTable request, as ApplyTable
// applies it to a table's definition.
type Update struct {
	In    *wire.UpdateTableInput
	Flags UpdateFlags // ValidateUpdate's
	// Name, ARN and Billing are the table's name, ARN and billing mode
	// before the update.
	Name, ARN, Billing string
	Now                time.Time
}

// ApplyTable applies the table-level members of an UpdateTable (billing
// mode, throughput, stream, SSE, deletion protection, table class, warm
// and on-demand throughput) to d, a copy of the table's definition whose
// class changes of the window are *classChanges, checking each against
// the table in DynamoDB's order. It returns the billing mode after the
// update and whether the change takes time (the table turns UPDATING).
// On an error d is left half-changed: the caller drops its copy.
func (a Account) ApplyTable(d *wire.TableDescription, classChanges *[]time.Time, u Update) (string, bool, *ddberr.Error) {
	in, f, now := u.In, u.Flags, u.Now
	transitional := false
	target := u.Billing
	if in.BillingMode != "" {
		target = in.BillingMode
	}
	if f.PT && target == BillingPayPerRequest {
		return "", false, ddberr.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	}
	switching := target != u.Billing
	if f.PT {
		if err := a.CheckTableCapacity(in.ProvisionedThroughput); err != nil {
			return "", false, err
		}
	}
	if err := a.CheckOnDemandCap(in.OnDemandThroughput, "table"); err != nil {
		return "", false, err
	}
	if target == BillingProvisioned && switching {
		for _, g := range d.GlobalSecondaryIndexes {
			if !slices.ContainsFunc(in.GlobalSecondaryIndexUpdates, func(u wire.GlobalSecondaryIndexUpdate) bool {
				return u.Update != nil && wire.Deref(u.Update.IndexName) == wire.Deref(g.IndexName) && u.Update.ProvisionedThroughput != nil
			}) {
				return "", false, ddberr.InvalidParam("ProvisionedThroughput must be specified for index: %s", wire.Deref(g.IndexName))
			}
		}
	}
	if target == BillingProvisioned {
		if err := OnDemandOnProvisioned(in.OnDemandThroughput, ""); err != nil {
			return "", false, err
		}
	}
	// The range after the billing mode gate (eu-west-2, 2026-07-24,
	// captured by another emulator's authors), so after the table lookup.
	if err := CheckOnDemand(in.OnDemandThroughput, "table", true); err != nil {
		return "", false, err
	}
	if f.PT && !switching {
		cur := d.ProvisionedThroughput
		r, w := wire.Deref(in.ProvisionedThroughput.ReadCapacityUnits), wire.Deref(in.ProvisionedThroughput.WriteCapacityUnits)
		if wire.Deref(cur.ReadCapacityUnits) == r && wire.Deref(cur.WriteCapacityUnits) == w {
			return "", false, ddberr.Validationf("The provisioned throughput for the table will not change. The requested value equals the current value. "+
				"Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. "+
				"Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. "+
				"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
				wire.Deref(cur.ReadCapacityUnits), r, wire.Deref(cur.WriteCapacityUnits), w)
		}
	}
	if s := in.StreamSpecification; s != nil {
		enabled := d.StreamSpecification != nil && wire.Deref(d.StreamSpecification.StreamEnabled)
		if wire.Deref(s.StreamEnabled) {
			if enabled {
				return "", false, ddberr.Validation("Table already has an enabled stream: TableName: " + u.Name)
			}
			label := StreamLabel(now)
			d.StreamSpecification = &wire.StreamSpecification{StreamEnabled: wire.Ptr(true), StreamViewType: s.StreamViewType}
			d.LatestStreamLabel = wire.Ptr(label)
			d.LatestStreamArn = wire.Ptr(u.ARN + "/stream/" + label)
		} else {
			if !enabled {
				return "", false, ddberr.Validation("Table has no stream to disable: TableName: " + u.Name)
			}
			d.StreamSpecification = nil
		}
		transitional = true
	}
	if s := in.SSESpecification; s != nil {
		if wire.Deref(s.Enabled) || s.Enabled == nil && s.SSEType == "KMS" {
			if err := a.CheckSameKMSKey(s, d.SSEDescription); err != nil {
				return "", false, err
			}
			d.SSEDescription = a.SSEDescription(s)
		} else {
			if d.SSEDescription == nil {
				return "", false, ddberr.InvalidParam("Table is already encrypted by default")
			}
			d.SSEDescription = nil
		}
	}
	if f.DP {
		d.DeletionProtectionEnabled = wire.Ptr(*in.DeletionProtectionEnabled)
	}
	if f.Class {
		changes, err := ClassChange(d, *classChanges, in.TableClass, now)
		if err != nil {
			return "", false, err
		}
		*classChanges = changes
	}
	if f.Warm {
		w := in.WarmThroughput
		cur := d.WarmThroughput
		if cur == nil {
			cur = &wire.TableWarmThroughputDescription{Status: StatusActive}
			d.WarmThroughput = cur
		}
		if err := CheckWarmDecrease(w, wire.Deref(cur.ReadUnitsPerSecond), wire.Deref(cur.WriteUnitsPerSecond), "table"); err != nil {
			return "", false, err
		}
		if w.ReadUnitsPerSecond != nil {
			cur.ReadUnitsPerSecond = wire.Ptr(*w.ReadUnitsPerSecond)
		}
		if w.WriteUnitsPerSecond != nil {
			cur.WriteUnitsPerSecond = wire.Ptr(*w.WriteUnitsPerSecond)
		}
	}
	if f.OnDemand && target == BillingPayPerRequest {
		d.OnDemandThroughput = MergeOnDemand(d.OnDemandThroughput, in.OnDemandThroughput)
	}

	if switching {
		transitional = true
		if target == BillingPayPerRequest {
			d.BillingModeSummary = &wire.BillingModeSummary{BillingMode: BillingPayPerRequest, LastUpdateToPayPerRequestDateTime: wire.NewTime(now)}
			d.ProvisionedThroughput.ReadCapacityUnits = wire.Ptr[int64](0)
			d.ProvisionedThroughput.WriteCapacityUnits = wire.Ptr[int64](0)
			for i := range d.GlobalSecondaryIndexes {
				g := &d.GlobalSecondaryIndexes[i]
				g.ProvisionedThroughput = &wire.ProvisionedThroughputDescription{NumberOfDecreasesToday: wire.Ptr[int64](0), ReadCapacityUnits: wire.Ptr[int64](0), WriteCapacityUnits: wire.Ptr[int64](0)}
			}
		} else {
			var last *wire.Time
			if d.BillingModeSummary != nil {
				last = d.BillingModeSummary.LastUpdateToPayPerRequestDateTime
			}
			d.BillingModeSummary = &wire.BillingModeSummary{BillingMode: BillingProvisioned, LastUpdateToPayPerRequestDateTime: last}
			d.OnDemandThroughput = nil
			for i := range d.GlobalSecondaryIndexes {
				d.GlobalSecondaryIndexes[i].OnDemandThroughput = nil
			}
		}
	}
	if f.PT {
		if !switching {
			if err := CheckDecreaseBudget(d.ProvisionedThroughput, in.ProvisionedThroughput, now); err != nil {
				return "", false, err
			}
		}
		SetThroughput(d.ProvisionedThroughput, in.ProvisionedThroughput, now, !switching)
		RaiseWarm(d, wire.Deref(in.ProvisionedThroughput.ReadCapacityUnits), wire.Deref(in.ProvisionedThroughput.WriteCapacityUnits))
		transitional = true
	}
	if switching && target == BillingPayPerRequest {
		RaiseWarm(d, WarmReadOnDemand, WarmWriteOnDemand)
	}
	return target, transitional, nil
}

// GSIUpdateResponse shows the GSI changes of an UpdateTable response as
// DynamoDB does (live probes, October 2026): an index whose throughput is
// being updated is UPDATING and still shows its previous
// ProvisionedThroughput (DescribeTable shows the new one); a new index is
// CREATING and not yet Backfilling (resource allocation comes first).
func GSIUpdateResponse(out, prev *wire.TableDescription, ups []wire.GlobalSecondaryIndexUpdate) {
	find := func(d *wire.TableDescription, name *string) *wire.GlobalSecondaryIndexDescription {
		for i := range d.GlobalSecondaryIndexes {
			if wire.Deref(d.GlobalSecondaryIndexes[i].IndexName) == wire.Deref(name) {
				return &d.GlobalSecondaryIndexes[i]
			}
		}
		return nil
	}
	for _, u := range ups {
		switch {
		case u.Update != nil:
			g, old := find(out, u.Update.IndexName), find(prev, u.Update.IndexName)
			if g == nil || old == nil {
				continue
			}
			g.IndexStatus = StatusUpdating
			if u.Update.ProvisionedThroughput != nil {
				g.ProvisionedThroughput = old.ProvisionedThroughput
			}
		case u.Create != nil:
			if g := find(out, u.Create.IndexName); g != nil && g.IndexStatus == StatusCreating {
				g.Backfilling = wire.Ptr(false)
			}
		}
	}
}

// SetThroughput applies new capacity to a throughput description; stamp
// is false for the capacity a switch to PROVISIONED sets, which DynamoDB
// does not date as an increase.
func SetThroughput(cur *wire.ProvisionedThroughputDescription, pt *wire.ProvisionedThroughput, now time.Time, stamp bool) {
	r, w := wire.Deref(pt.ReadCapacityUnits), wire.Deref(pt.WriteCapacityUnits)
	oldR, oldW := wire.Deref(cur.ReadCapacityUnits), wire.Deref(cur.WriteCapacityUnits)
	ts := wire.NewTime(now)
	if !stamp {
		cur.ReadCapacityUnits, cur.WriteCapacityUnits = wire.Ptr(r), wire.Ptr(w)
		return
	}
	if r > oldR || w > oldW {
		cur.LastIncreaseDateTime = ts
	}
	if r < oldR || w < oldW {
		cur.NumberOfDecreasesToday = wire.Ptr(DecreasesToday(cur, now) + 1)
		cur.LastDecreaseDateTime = ts
	}
	cur.ReadCapacityUnits, cur.WriteCapacityUnits = wire.Ptr(r), wire.Ptr(w)
}

// ReplicaUpdatesFault refuses ReplicaUpdates: Kura serves one region and
// has no global tables (version 2019.11.21) to make, so it refuses them
// rather than ignore them. Adding or removing the table's own region is
// refused in DynamoDB's words (ScyllaDB's Alternator tests, run against
// DynamoDB, quote them); the other refusal is Kura's.
func (a Account) ReplicaUpdatesFault(ups []wire.ReplicationGroupUpdate, noGlobalTables string) *ddberr.Error {
	for _, u := range ups {
		var region *string
		switch {
		case u.Create != nil:
			region = u.Create.RegionName
		case u.Delete != nil:
			region = u.Delete.RegionName
		}
		if region != nil && *region == a.Region {
			return ddberr.Validation("Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
		}
	}
	if len(ups) > 0 && noGlobalTables != "" {
		return ddberr.Validation(noGlobalTables)
	}
	if len(ups) > 0 {
		return ddberr.Validation("ReplicaUpdates are not supported: Kura serves a single region (" + a.Region + ") and has no global tables")
	}
	return nil
}

// KeyRoleIn is the role (HASH or RANGE) attribute name plays in the first
// key schema of d that uses it: the table's, then its indexes'.
func KeyRoleIn(d *wire.TableDescription, name string) string {
	schemas := [][]wire.KeySchemaElement{d.KeySchema}
	for _, g := range d.GlobalSecondaryIndexes {
		schemas = append(schemas, g.KeySchema)
	}
	for _, l := range d.LocalSecondaryIndexes {
		schemas = append(schemas, l.KeySchema)
	}
	for _, ks := range schemas {
		for _, k := range ks {
			if wire.Deref(k.AttributeName) == name {
				return k.KeyType
			}
		}
	}
	return "HASH"
}

// PruneAttributeDefinitions keeps only definitions some key still uses
// (an index being deleted keeps its own until it is gone: its key schema is
// still described) and keeps them sorted by name.
func PruneAttributeDefinitions(d *wire.TableDescription) {
	used := map[string]bool{}
	for _, k := range d.KeySchema {
		used[wire.Deref(k.AttributeName)] = true
	}
	for _, l := range d.LocalSecondaryIndexes {
		for _, k := range l.KeySchema {
			used[wire.Deref(k.AttributeName)] = true
		}
	}
	for _, g := range d.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			used[wire.Deref(k.AttributeName)] = true
		}
	}
	d.AttributeDefinitions = slices.DeleteFunc(d.AttributeDefinitions, func(a wire.AttributeDefinition) bool { return !used[wire.Deref(a.AttributeName)] })
	slices.SortStableFunc(d.AttributeDefinitions, func(a, b wire.AttributeDefinition) int {
		return strings.Compare(wire.Deref(a.AttributeName), wire.Deref(b.AttributeName))
	})
}
