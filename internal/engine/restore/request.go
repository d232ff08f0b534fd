package restore

import (
	"cmp"
	"slices"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// Overrides are a restore request's overrides.
type Overrides struct {
	Billing    string
	Throughput *wire.ProvisionedThroughput
	OnDemand   *wire.OnDemandThroughput
	GSIs       []wire.GlobalSecondaryIndex
	LSIs       []wire.LocalSecondaryIndex
	SSE        *wire.SSESpecification
	Vectors    []wire.VectorIndex
}

// FromBackupOverrides are a RestoreTableFromBackup's overrides.
func FromBackupOverrides(in *wire.RestoreTableFromBackupInput) Overrides {
	return Overrides{Billing: in.BillingModeOverride, Throughput: in.ProvisionedThroughputOverride, OnDemand: in.OnDemandThroughputOverride,
		GSIs: in.GlobalSecondaryIndexOverride, LSIs: in.LocalSecondaryIndexOverride, SSE: in.SSESpecificationOverride, Vectors: in.VectorIndexOverride}
}

// AtTimeOverrides are a RestoreTableToPointInTime's overrides.
func AtTimeOverrides(in *wire.RestoreTableToPointInTimeInput) Overrides {
	return Overrides{Billing: in.BillingModeOverride, Throughput: in.ProvisionedThroughputOverride, OnDemand: in.OnDemandThroughputOverride,
		GSIs: in.GlobalSecondaryIndexOverride, LSIs: in.LocalSecondaryIndexOverride, SSE: in.SSESpecificationOverride, Vectors: in.VectorIndexOverride}
}

// Request is the CreateTable request a restore amounts to: the source
// table's definition src and billing mode (as a backup recorded them, or
// as they are now) with the request's overrides, for the table target.
func Request(src *wire.TableDescription, billingMode string, target *string, o Overrides) (*wire.CreateTableInput, *ddberr.Error) {
	srcBilling := cmp.Or(billingMode, tables.BillingProvisioned)
	billing := cmp.Or(o.Billing, srcBilling)
	if o.Throughput != nil && billing != tables.BillingProvisioned {
		return nil, ddberr.Validation("Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED")
	}
	if o.Billing == tables.BillingProvisioned && srcBilling != tables.BillingProvisioned && o.Throughput == nil {
		return nil, ddberr.Validation("Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED")
	}
	cin := &wire.CreateTableInput{
		TableName:   target,
		KeySchema:   slices.Clone(src.KeySchema),
		BillingMode: billing,
	}
	if billing == tables.BillingProvisioned {
		cin.ProvisionedThroughput = cmp.Or(o.Throughput, recordedThroughput(src.ProvisionedThroughput))
	} else {
		cin.OnDemandThroughput = cmp.Or(o.OnDemand, src.OnDemandThroughput)
	}
	gsis, err := restoredGSIs(src, o.GSIs, billing, cin.ProvisionedThroughput)
	if err != nil {
		return nil, err
	}
	cin.GlobalSecondaryIndexes = gsis
	lsis, err := restoredLSIs(src, o.LSIs)
	if err != nil {
		return nil, err
	}
	cin.LocalSecondaryIndexes = lsis
	vecs, err := restoredVectors(src, o.Vectors)
	if err != nil {
		return nil, err
	}
	cin.VectorIndexes = vecs
	// An empty list is no index (CreateTable refuses empty lists).
	if len(cin.GlobalSecondaryIndexes) == 0 {
		cin.GlobalSecondaryIndexes = nil
	}
	if len(cin.LocalSecondaryIndexes) == 0 {
		cin.LocalSecondaryIndexes = nil
	}
	if len(cin.VectorIndexes) == 0 {
		cin.VectorIndexes = nil
	}
	cin.AttributeDefinitions = usedDefinitions(src.AttributeDefinitions, cin)
	switch s := o.SSE; {
	case s != nil:
		cin.SSESpecification = s
	case src.SSEDescription != nil && src.SSEDescription.Status == "ENABLED":
		cin.SSESpecification = &wire.SSESpecification{Enabled: wire.Ptr(true), SSEType: "KMS", KMSMasterKeyId: src.SSEDescription.KMSMasterKeyArn}
	}
	return cin, nil
}

// recordedThroughput is the provisioned throughput a backup recorded.
func recordedThroughput(pt *wire.ProvisionedThroughputDescription) *wire.ProvisionedThroughput {
	if pt == nil {
		return nil
	}
	return &wire.ProvisionedThroughput{ReadCapacityUnits: pt.ReadCapacityUnits, WriteCapacityUnits: pt.WriteCapacityUnits}
}

// noNewIndex is the error for an index override that matches no index of
// the backup.
func noNewIndex(name string) *ddberr.Error {
	return ddberr.Validation("Index " + name + " does not match a secondary index that existed in the source table and cannot be created during the restore operation")
}

// sameIndexShape reports whether two indexes have the same key schema and
// projection: an override may rename an index of the backup, not change it.
func sameIndexShape(ka, kb []wire.KeySchemaElement, pa, pb *wire.Projection) bool {
	if !slices.EqualFunc(ka, kb, func(a, b wire.KeySchemaElement) bool {
		return wire.Deref(a.AttributeName) == wire.Deref(b.AttributeName) && a.KeyType == b.KeyType
	}) {
		return false
	}
	var x, y wire.Projection
	if pa != nil {
		x = *pa
	}
	if pb != nil {
		y = *pb
	}
	if cmp.Or(x.ProjectionType, "ALL") != cmp.Or(y.ProjectionType, "ALL") {
		return false
	}
	nx, ny := slices.Sorted(slices.Values(x.NonKeyAttributes)), slices.Sorted(slices.Values(y.NonKeyAttributes))
	return slices.Equal(nx, ny)
}

// restoredGSIs are the GSIs of the restored table: the backup's (all of
// them when the override is absent, none when it is empty), with the
// throughput the backup recorded unless an override gives one (the
// table's when it recorded none); on-demand tables have none.
func restoredGSIs(src *wire.TableDescription, override []wire.GlobalSecondaryIndex, billing string, tableThroughput *wire.ProvisionedThroughput) ([]wire.GlobalSecondaryIndex, *ddberr.Error) {
	var out []wire.GlobalSecondaryIndex
	for _, g := range src.GlobalSecondaryIndexes {
		if g.IndexStatus == tables.StatusDeleting {
			continue
		}
		out = append(out, wire.GlobalSecondaryIndex{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection,
			ProvisionedThroughput: recordedThroughput(g.ProvisionedThroughput), OnDemandThroughput: g.OnDemandThroughput})
	}
	if override != nil {
		chosen := make([]wire.GlobalSecondaryIndex, 0, len(override))
		for _, o := range override {
			i := slices.IndexFunc(out, func(g wire.GlobalSecondaryIndex) bool {
				return sameIndexShape(g.KeySchema, o.KeySchema, g.Projection, o.Projection)
			})
			if i < 0 {
				return nil, noNewIndex(wire.Deref(o.IndexName))
			}
			g := out[i]
			g.IndexName = o.IndexName
			if o.ProvisionedThroughput != nil {
				g.ProvisionedThroughput = o.ProvisionedThroughput
			}
			if o.OnDemandThroughput != nil {
				g.OnDemandThroughput = o.OnDemandThroughput
			}
			chosen = append(chosen, g)
		}
		out = chosen
	}
	for i := range out {
		if billing != tables.BillingProvisioned {
			out[i].ProvisionedThroughput = nil
			continue
		}
		out[i].OnDemandThroughput = nil
		if pt := out[i].ProvisionedThroughput; pt == nil || wire.Deref(pt.ReadCapacityUnits) == 0 {
			// An on-demand backup restored as provisioned: its GSIs
			// recorded no throughput; they take the table's.
			out[i].ProvisionedThroughput = tableThroughput
		}
	}
	return out, nil
}

// restoredLSIs are the LSIs of the restored table, chosen as restoredGSIs
// chooses GSIs.
func restoredLSIs(src *wire.TableDescription, override []wire.LocalSecondaryIndex) ([]wire.LocalSecondaryIndex, *ddberr.Error) {
	var out []wire.LocalSecondaryIndex
	for _, l := range src.LocalSecondaryIndexes {
		out = append(out, wire.LocalSecondaryIndex{IndexName: l.IndexName, KeySchema: l.KeySchema, Projection: l.Projection})
	}
	if override == nil {
		return out, nil
	}
	chosen := make([]wire.LocalSecondaryIndex, 0, len(override))
	for _, o := range override {
		i := slices.IndexFunc(out, func(l wire.LocalSecondaryIndex) bool {
			return sameIndexShape(l.KeySchema, o.KeySchema, l.Projection, o.Projection)
		})
		if i < 0 {
			return nil, noNewIndex(wire.Deref(o.IndexName))
		}
		l := out[i]
		l.IndexName = o.IndexName
		chosen = append(chosen, l)
	}
	return chosen, nil
}

// restoredVectors are the vector indexes of the restored table: the
// backup's, or those of them the override names (SDK: "the indexes
// provided must match existing vector indexes from the backup").
func restoredVectors(src *wire.TableDescription, override []wire.VectorIndex) ([]wire.VectorIndex, *ddberr.Error) {
	var out []wire.VectorIndex
	for _, v := range src.VectorIndexes {
		if v.IndexStatus == tables.StatusDeleting {
			continue
		}
		out = append(out, wire.VectorIndex{IndexName: v.IndexName, Dimensions: v.Dimensions, DistanceFunction: v.DistanceFunction,
			Projection: v.Projection, VectorAttribute: v.VectorAttribute, SearchSchema: v.SearchSchema})
	}
	if override == nil {
		return out, nil
	}
	chosen := make([]wire.VectorIndex, 0, len(override))
	for _, o := range override {
		i := slices.IndexFunc(out, func(v wire.VectorIndex) bool { return wire.Deref(v.IndexName) == wire.Deref(o.IndexName) })
		if i < 0 {
			return nil, noNewIndex(wire.Deref(o.IndexName))
		}
		chosen = append(chosen, out[i])
	}
	return chosen, nil
}

// usedDefinitions keeps the attribute definitions the restored table's
// keys, index keys and vector indexes use (a dropped index's key
// attributes would otherwise be unused definitions, which CreateTable
// refuses).
func usedDefinitions(defs []wire.AttributeDefinition, in *wire.CreateTableInput) []wire.AttributeDefinition {
	used := map[string]bool{}
	keys := func(ks []wire.KeySchemaElement) {
		for _, k := range ks {
			used[wire.Deref(k.AttributeName)] = true
		}
	}
	keys(in.KeySchema)
	for _, g := range in.GlobalSecondaryIndexes {
		keys(g.KeySchema)
	}
	for _, l := range in.LocalSecondaryIndexes {
		keys(l.KeySchema)
	}
	for _, v := range in.VectorIndexes {
		for _, s := range v.SearchSchema {
			used[wire.Deref(s.AttributeName)] = true
		}
		if v.VectorAttribute != nil {
			used[wire.Deref(v.VectorAttribute.AttributeName)] = true
		}
	}
	var out []wire.AttributeDefinition
	for _, d := range defs {
		if used[wire.Deref(d.AttributeName)] {
			out = append(out, d)
		}
	}
	return out
}
