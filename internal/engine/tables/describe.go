package tables

import (
	"slices"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/wire"
)

// NewDescription builds the stored TableDescription of a validated request.
func (a Account) NewDescription(in *wire.CreateTableInput, billing string, now time.Time) wire.TableDescription {
	name := wire.Deref(in.TableName)
	arn := a.TableARN(name)
	d := wire.TableDescription{
		TableName:                 wire.Ptr(name),
		TableArn:                  wire.Ptr(arn),
		TableId:                   wire.Ptr(NewUUID()),
		CreationDateTime:          wire.NewTime(now),
		KeySchema:                 slices.Clone(in.KeySchema),
		DeletionProtectionEnabled: wire.Ptr(wire.Deref(in.DeletionProtectionEnabled)),
	}
	defs := slices.Clone(in.AttributeDefinitions)
	slices.SortStableFunc(defs, func(a, b wire.AttributeDefinition) int {
		return strings.Compare(wire.Deref(a.AttributeName), wire.Deref(b.AttributeName))
	})
	d.AttributeDefinitions = defs

	var rcu, wcu int64
	if billing == BillingProvisioned {
		rcu = wire.Deref(in.ProvisionedThroughput.ReadCapacityUnits)
		wcu = wire.Deref(in.ProvisionedThroughput.WriteCapacityUnits)
		if in.BillingMode != "" {
			d.BillingModeSummary = &wire.BillingModeSummary{BillingMode: BillingProvisioned}
		}
		d.WarmThroughput = &wire.TableWarmThroughputDescription{ReadUnitsPerSecond: wire.Ptr(rcu), WriteUnitsPerSecond: wire.Ptr(wcu), Status: StatusActive}
	} else {
		d.BillingModeSummary = &wire.BillingModeSummary{BillingMode: BillingPayPerRequest, LastUpdateToPayPerRequestDateTime: wire.NewTime(now)}
		d.WarmThroughput = &wire.TableWarmThroughputDescription{ReadUnitsPerSecond: wire.Ptr[int64](WarmReadOnDemand), WriteUnitsPerSecond: wire.Ptr[int64](WarmWriteOnDemand), Status: StatusActive}
		if o := in.OnDemandThroughput; o != nil && (o.MaxReadRequestUnits != nil || o.MaxWriteRequestUnits != nil) {
			d.OnDemandThroughput = &wire.OnDemandThroughput{MaxReadRequestUnits: o.MaxReadRequestUnits, MaxWriteRequestUnits: o.MaxWriteRequestUnits}
		}
	}
	d.ProvisionedThroughput = &wire.ProvisionedThroughputDescription{NumberOfDecreasesToday: wire.Ptr[int64](0), ReadCapacityUnits: wire.Ptr(rcu), WriteCapacityUnits: wire.Ptr(wcu)}
	if w := in.WarmThroughput; w != nil && (w.ReadUnitsPerSecond != nil || w.WriteUnitsPerSecond != nil) {
		if w.ReadUnitsPerSecond != nil {
			d.WarmThroughput.ReadUnitsPerSecond = w.ReadUnitsPerSecond
		}
		if w.WriteUnitsPerSecond != nil {
			d.WarmThroughput.WriteUnitsPerSecond = w.WriteUnitsPerSecond
		}
	}

	if s := in.StreamSpecification; s != nil && wire.Deref(s.StreamEnabled) {
		label := StreamLabel(now)
		d.StreamSpecification = &wire.StreamSpecification{StreamEnabled: wire.Ptr(true), StreamViewType: s.StreamViewType}
		d.LatestStreamLabel = wire.Ptr(label)
		d.LatestStreamArn = wire.Ptr(arn + "/stream/" + label)
	}
	if s := in.SSESpecification; s != nil && (wire.Deref(s.Enabled) || s.Enabled == nil && s.SSEType == "KMS") {
		d.SSEDescription = a.SSEDescription(s)
	}
	if in.TableClass != "" {
		d.TableClassSummary = &wire.TableClassSummary{TableClass: in.TableClass}
	}

	for _, l := range in.LocalSecondaryIndexes {
		iname := wire.Deref(l.IndexName)
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, wire.LocalSecondaryIndexDescription{
			IndexName:      wire.Ptr(iname),
			IndexArn:       wire.Ptr(arn + "/index/" + iname),
			KeySchema:      slices.Clone(l.KeySchema),
			Projection:     CloneProjection(l.Projection),
			IndexSizeBytes: wire.Ptr[int64](0),
			ItemCount:      wire.Ptr[int64](0),
		})
	}
	for _, g := range in.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes,
			NewGSIDescription(arn, billing, wire.Deref(g.IndexName), g.KeySchema, g.Projection, g.ProvisionedThroughput, g.OnDemandThroughput, g.WarmThroughput))
	}
	return d
}

func NewGSIDescription(tableARN, billing, name string, ks []wire.KeySchemaElement, p *wire.Projection,
	pt *wire.ProvisionedThroughput, od *wire.OnDemandThroughput, warm *wire.WarmThroughput) wire.GlobalSecondaryIndexDescription {
	g := wire.GlobalSecondaryIndexDescription{
		IndexName:      wire.Ptr(name),
		IndexArn:       wire.Ptr(tableARN + "/index/" + name),
		KeySchema:      slices.Clone(ks),
		Projection:     CloneProjection(p),
		IndexSizeBytes: wire.Ptr[int64](0),
		ItemCount:      wire.Ptr[int64](0),
		IndexStatus:    StatusActive,
	}
	var rcu, wcu int64
	wr, ww := int64(WarmReadOnDemand), int64(WarmWriteOnDemand)
	if billing == BillingProvisioned && pt != nil {
		rcu, wcu = wire.Deref(pt.ReadCapacityUnits), wire.Deref(pt.WriteCapacityUnits)
		wr, ww = rcu, wcu
	}
	g.ProvisionedThroughput = &wire.ProvisionedThroughputDescription{NumberOfDecreasesToday: wire.Ptr[int64](0), ReadCapacityUnits: wire.Ptr(rcu), WriteCapacityUnits: wire.Ptr(wcu)}
	if billing == BillingPayPerRequest && od != nil && (od.MaxReadRequestUnits != nil || od.MaxWriteRequestUnits != nil) {
		g.OnDemandThroughput = &wire.OnDemandThroughput{MaxReadRequestUnits: od.MaxReadRequestUnits, MaxWriteRequestUnits: od.MaxWriteRequestUnits}
	}
	if warm != nil {
		if warm.ReadUnitsPerSecond != nil {
			wr = *warm.ReadUnitsPerSecond
		}
		if warm.WriteUnitsPerSecond != nil {
			ww = *warm.WriteUnitsPerSecond
		}
	}
	g.WarmThroughput = &wire.GlobalSecondaryIndexWarmThroughputDescription{ReadUnitsPerSecond: wire.Ptr(wr), WriteUnitsPerSecond: wire.Ptr(ww), Status: StatusActive}
	return g
}

func CloneProjection(p *wire.Projection) *wire.Projection {
	if p == nil {
		return nil
	}
	c := &wire.Projection{ProjectionType: p.ProjectionType}
	if len(p.NonKeyAttributes) > 0 {
		c.NonKeyAttributes = slices.Clone(p.NonKeyAttributes)
		slices.Sort(c.NonKeyAttributes) // DynamoDB describes them sorted by name
	}
	return c
}

// SetGSIStatus sets the status of every GSI of d.
func SetGSIStatus(d *wire.TableDescription, s string) {
	for i := range d.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes[i].IndexStatus = s
	}
}

// CreateResponse makes d, DescribeTable's rendering of a new table, the
// description CreateTable answers with: the table (and its indexes)
// CREATING; DynamoDB leaves the indexes' WarmThroughput out of it, the
// table's unless the request set it, and the time of the switch to
// PAY_PER_REQUEST (DescribeTable shows them).
func CreateResponse(d *wire.TableDescription, in *wire.CreateTableInput, billing string) {
	d.TableStatus = StatusCreating
	if in.WarmThroughput == nil {
		d.WarmThroughput = nil
	} else if w := *d.WarmThroughput; WarmRaised(in, billing) {
		w.Status = StatusUpdating // raising it runs in the background
		d.WarmThroughput = &w
	}
	if d.BillingModeSummary != nil {
		d.BillingModeSummary = &wire.BillingModeSummary{BillingMode: d.BillingModeSummary.BillingMode}
	}
	for i := range d.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes[i].IndexStatus = StatusCreating
		d.GlobalSecondaryIndexes[i].WarmThroughput = nil
	}
	for i := range d.VectorIndexes {
		d.VectorIndexes[i].IndexStatus = StatusCreating
	}
}

// DescribeDecreases is a provisioned throughput description as of now:
// NumberOfDecreasesToday counts from 0 again on a new UTC day. It returns
// pt itself when there is nothing to recount.
func DescribeDecreases(pt *wire.ProvisionedThroughputDescription, now time.Time) *wire.ProvisionedThroughputDescription {
	if pt == nil || pt.NumberOfDecreasesToday == nil {
		return pt
	}
	c := *pt
	c.NumberOfDecreasesToday = wire.Ptr(DecreasesToday(pt, now))
	return &c
}

// DeletedDescription is the TableDescription DeleteTable answers with: the
// table's name, status, ARN, ID, size, item count, throughput and billing
// mode, without its schema, indexes or creation time, which DescribeTable
// gives (AWS's documented example; ScyllaDB's Alternator tests, which are
// run against DynamoDB, check that KeySchema, AttributeDefinitions,
// CreationDateTime and the indexes are absent).
func DeletedDescription(d *wire.TableDescription) *wire.TableDescription {
	return &wire.TableDescription{
		TableName:             d.TableName,
		TableStatus:           d.TableStatus,
		TableArn:              d.TableArn,
		TableId:               d.TableId,
		TableSizeBytes:        d.TableSizeBytes,
		ItemCount:             d.ItemCount,
		ProvisionedThroughput: d.ProvisionedThroughput,
		BillingModeSummary:    d.BillingModeSummary,
	}
}
