package tables

import (
	"fmt"
	"slices"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// ApplyGSIUpdates applies an UpdateTable's GlobalSecondaryIndexUpdates to
// d, the definition of table name (billing is its billing mode after the
// update; sameBilling is whether it was already its mode, which dates a
// GSI's capacity change). It reports whether an index was created or
// deleted (a transitional change) and the name of the GSI created ("" for
// none), which the caller gives an index ID. On an error d is left
// half-changed: the caller drops its copy.
func (a Account) ApplyGSIUpdates(d *wire.TableDescription, name, billing string, sameBilling bool, in *wire.UpdateTableInput, now time.Time, ix Indexes) (bool, string, *ddberr.Error) {
	changed, created := false, ""
	findGSI := func(n string) int {
		return slices.IndexFunc(d.GlobalSecondaryIndexes, func(g wire.GlobalSecondaryIndexDescription) bool { return wire.Deref(g.IndexName) == n })
	}
	isLSI := func(n string) bool {
		return slices.ContainsFunc(d.LocalSecondaryIndexes, func(l wire.LocalSecondaryIndexDescription) bool { return wire.Deref(l.IndexName) == n })
	}
	indexNotFound := func(n string) *ddberr.Error {
		return ddberr.ResourceNotFound("Requested resource not found: Index " + n + " for table " + name)
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		// A vector index being built counts as the one online index change
		// too, as a GSI's does for a vector index (applyVectorUpdates).
		if (u.Create != nil || u.Delete != nil) && ix.OnlineChangeRunning(d) && !ix.DeletesBackfilling(d, u.Delete) {
			return false, "", ddberr.LimitExceeded(MsgOnlineIndexLimit)
		}
		switch {
		case u.Update != nil:
			n := wire.Deref(u.Update.IndexName)
			if isLSI(n) {
				return false, "", ddberr.Validation("Cannot update an index that is not a GlobalSecondaryIndex: " + n)
			}
			i := findGSI(n)
			if i < 0 {
				return false, "", indexNotFound(n)
			}
			g := &d.GlobalSecondaryIndexes[i]
			if pt := u.Update.ProvisionedThroughput; pt != nil {
				if billing == BillingPayPerRequest {
					return false, "", ddberr.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: %s when BillingMode is PAY_PER_REQUEST", n)
				}
				if pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
					return false, "", ddberr.InvalidParam("Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: %s", n)
				}
				cur := g.ProvisionedThroughput
				if wire.Deref(cur.ReadCapacityUnits) == *pt.ReadCapacityUnits && wire.Deref(cur.WriteCapacityUnits) == *pt.WriteCapacityUnits && sameBilling {
					return false, "", ddberr.Validationf("The provisioned throughput for the index %s will not change. The requested value equals the current value. "+
						"Current ReadCapacityUnits provisioned for index %s: %d. Requested ReadCapacityUnits: %d. "+
						"Current WriteCapacityUnits provisioned for index %s: %d. Requested WriteCapacityUnits: %d. "+
						"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
						n, n, wire.Deref(cur.ReadCapacityUnits), *pt.ReadCapacityUnits, n, wire.Deref(cur.WriteCapacityUnits), *pt.WriteCapacityUnits)
				}
				SetThroughput(cur, pt, now, sameBilling)
				g.WarmThroughput = &wire.GlobalSecondaryIndexWarmThroughputDescription{ReadUnitsPerSecond: wire.Ptr(max(*pt.ReadCapacityUnits, wire.Deref(g.WarmThroughput.ReadUnitsPerSecond))), WriteUnitsPerSecond: wire.Ptr(max(*pt.WriteCapacityUnits, wire.Deref(g.WarmThroughput.WriteUnitsPerSecond))), Status: StatusActive}
			} else if billing == BillingProvisioned && !NonEmptyWarm(u.Update.WarmThroughput) {
				return false, "", ddberr.InvalidParam("ProvisionedThroughput must be specified for index: %s", n)
			} else if billing == BillingPayPerRequest && !NonEmptyOnDemand(u.Update.OnDemandThroughput) && !NonEmptyWarm(u.Update.WarmThroughput) {
				return false, "", ddberr.InvalidParam("The only Updates for index: %s when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput", n)
			}
			if o := u.Update.OnDemandThroughput; NonEmptyOnDemand(o) {
				if billing == BillingProvisioned {
					if err := OnDemandOnProvisioned(o, " for index : "+n); err != nil {
						return false, "", err
					}
				}
				if err := CheckOnDemand(o, "index : "+n, true); err != nil {
					return false, "", err
				}
				if err := a.CheckOnDemandCap(o, "index : "+n); err != nil {
					return false, "", err
				}
				g.OnDemandThroughput = MergeOnDemand(g.OnDemandThroughput, o)
			}
			if cur := g.WarmThroughput; cur != nil {
				if err := CheckWarmDecrease(u.Update.WarmThroughput, wire.Deref(cur.ReadUnitsPerSecond), wire.Deref(cur.WriteUnitsPerSecond), "index "+n); err != nil {
					return false, "", err
				}
			}
			if w := u.Update.WarmThroughput; NonEmptyWarm(w) && g.WarmThroughput != nil {
				if w.ReadUnitsPerSecond != nil {
					g.WarmThroughput.ReadUnitsPerSecond = wire.Ptr(*w.ReadUnitsPerSecond)
				}
				if w.WriteUnitsPerSecond != nil {
					g.WarmThroughput.WriteUnitsPerSecond = wire.Ptr(*w.WriteUnitsPerSecond)
				}
			}
		case u.Delete != nil:
			n := wire.Deref(u.Delete.IndexName)
			if isLSI(n) {
				return false, "", ddberr.Validation("Cannot delete an index that is not a GlobalSecondaryIndex: " + n)
			}
			i := findGSI(n)
			if i < 0 {
				return false, "", indexNotFound(n)
			}
			d.GlobalSecondaryIndexes[i].IndexStatus = StatusDeleting
			d.GlobalSecondaryIndexes[i].Backfilling = nil // a deleted backfill stops (the core's index_online.go)
			changed = true
		case u.Create != nil:
			c := u.Create
			n := wire.Deref(c.IndexName)
			if findGSI(n) >= 0 || isLSI(n) || ix.VectorIndex(d, n) {
				return false, "", ddberr.Validation("Attempting to create an index which already exists")
			}
			if len(d.GlobalSecondaryIndexes) >= MaxGSIs {
				return false, "", ddberr.LimitExceeded(fmt.Sprintf("Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of %d", MaxGSIs))
			}
			// Every key attribute of the new index is defined in the
			// request, even one the table already knows, and with the type
			// the table knows it by (ScyllaDB's Alternator tests, which are
			// run against DynamoDB).
			for _, k := range c.KeySchema {
				kn := wire.Deref(k.AttributeName)
				j := slices.IndexFunc(in.AttributeDefinitions, func(a wire.AttributeDefinition) bool { return wire.Deref(a.AttributeName) == kn })
				if j < 0 {
					return false, "", ddberr.InvalidParam("AttributeDefinitions is not specified for index: %s", n)
				}
				typ := in.AttributeDefinitions[j].AttributeType
				if vx := ix.VectorOfAttr(d, kn); vx != nil {
					// A GSI cannot key on a vector attribute (eu-west-2 and
					// us-east-1, 2026-08-12, captured by another emulator's
					// authors; ScyllaDB's Alternator tests agree).
					return false, "", ddberr.InvalidParam("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. "+
						"Existing schema: VectorIndexSchema:[VectorAttribute: key{%s:L:%d}] New schema: Schema:[SchemaElement: key{%s:%s:%s}]",
						kn, wire.Deref(vx.Dimensions), kn, typ, k.KeyType)
				}
				if i := slices.IndexFunc(d.AttributeDefinitions, func(a wire.AttributeDefinition) bool { return wire.Deref(a.AttributeName) == kn }); i >= 0 {
					if old := d.AttributeDefinitions[i].AttributeType; old != typ {
						return false, "", ddberr.InvalidParam("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. "+
							"Existing schema: Schema:[SchemaElement: key{%s:%s:%s}] New schema: Schema:[SchemaElement: key{%s:%s:%s}]",
							kn, old, KeyRoleIn(d, kn), kn, typ, k.KeyType)
					}
					continue
				}
				d.AttributeDefinitions = append(d.AttributeDefinitions, wire.AttributeDefinition{AttributeName: wire.Ptr(kn), AttributeType: typ})
			}
			if billing == BillingProvisioned && c.ProvisionedThroughput == nil {
				return false, "", ddberr.InvalidParam("ProvisionedThroughput must be specified for index: %s", n)
			}
			if billing == BillingPayPerRequest && c.ProvisionedThroughput != nil {
				return false, "", ddberr.InvalidParam("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", n)
			}
			g := NewGSIDescription(wire.Deref(d.TableArn), billing, n, c.KeySchema, c.Projection, c.ProvisionedThroughput, c.OnDemandThroughput, c.WarmThroughput)
			g.IndexStatus = StatusCreating
			g.Backfilling = wire.Ptr(true)
			if err := ix.CheckNonKeyTotal(append(ix.AllProjections(d), c.Projection)...); err != nil {
				return false, "", err
			}
			created = n
			d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, g)
			changed = true
		}
	}
	if changed {
		ix.PruneDefinitions(d)
	}
	return changed, created, nil
}
