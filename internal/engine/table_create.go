package engine

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/policies"
	"github.com/kura-db/kura/internal/engine/tags"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Limits on secondary indexes per table.
const (
	maxGSIs = 20
	maxLSIs = 5
	// maxCapacityUnits is the largest throughput DynamoDB accepts at all.
	maxCapacityUnits = 1000000000000
)

// CreateTable creates a table. Its response reports CREATING, as DynamoDB's
// does; the table turns ACTIVE after cfg.CreateDelay (immediately when 0).
func (e *Engine) CreateTable(ctx context.Context, in *wire.CreateTableInput) (*wire.CreateTableOutput, error) {
	name, nerr := createTableName(cpDeref(in.TableName))
	if nerr != nil {
		return nil, nerr
	}
	in.TableName = &name // from here on, the name a table ARN stood for
	billing, verr := validateCreateTable(in)
	if verr != nil {
		return nil, verr
	}
	if verr := e.checkCreateCaps(in); verr != nil {
		return nil, verr
	}
	if verr := validateCreateVectors(in, billing); verr != nil {
		return nil, verr
	}
	if in.ResourcePolicy != nil {
		if err := policies.Check(*in.ResourcePolicy, false); err != nil {
			return nil, err
		}
	}

	e.ddl.Lock()
	defer e.ddl.Unlock()
	if t, exists := e.lookupTable(name); exists {
		if t.Status == StatusCreating {
			return nil, inUse(t) // "Table is being created: X" while CREATING
		}
		return nil, ddberr.ResourceInUse("Table already exists: " + name)
	}

	now := e.clock.Now()
	rec := e.newTableRecord(in, billing, now)
	if in.ResourcePolicy != nil {
		rec.Policies = policies.Set{"": {Document: *in.ResourcePolicy, Revision: policies.NextRevision(e.clock.Now(), "")}}
	}
	if e.cfg.CreateDelay > 0 {
		rec.setStatus(StatusCreating)
		rec.ReadyAt = now.Add(e.cfg.CreateDelay)
		setGSIStatus(&rec.Desc, StatusCreating)
		addCreateVectors(rec, in, StatusCreating)
	} else {
		rec.setStatus(StatusActive)
		setGSIStatus(&rec.Desc, StatusActive)
		addCreateVectors(rec, in, StatusActive)
	}
	t, err := e.storeNewTable(rec)
	if err != nil {
		return nil, err
	}

	// The response shows the table (and its indexes) CREATING; DynamoDB
	// leaves the indexes' WarmThroughput out of it, the table's unless the
	// request set it, and the time of the switch to PAY_PER_REQUEST
	// (DescribeTable shows them).
	d := e.describe(t)
	d.TableStatus = StatusCreating
	if in.WarmThroughput == nil {
		d.WarmThroughput = nil
	} else if w := *d.WarmThroughput; warmRaised(in, billing) {
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
	return &wire.CreateTableOutput{TableDescription: d}, nil
}

// newTableRecord is the catalog record of a validated CreateTable request
// (or a restore's), before its status is set.
func (e *Engine) newTableRecord(in *wire.CreateTableInput, billing string, now time.Time) *tableRecord {
	rec := &tableRecord{Name: cpDeref(in.TableName), BillingMode: billing}
	rec.Desc = e.newDescription(in, billing, now)
	for _, l := range rec.Desc.LocalSecondaryIndexes {
		rec.addIndexID(cpDeref(l.IndexName))
	}
	for _, g := range rec.Desc.GlobalSecondaryIndexes {
		rec.addIndexID(cpDeref(g.IndexName))
	}
	rec.Tags = slices.Clone(in.Tags)
	return rec
}

// storeNewTable gives a new table record its ID, stores it and installs
// the table. Callers hold e.ddl.
func (e *Engine) storeNewTable(rec *tableRecord) (*Table, error) {
	_, err := e.commitNewID(func(txn storage.Txn, id uint64) error {
		rec.ID = id
		return putRecord(txn, rec)
	})
	if err != nil {
		return nil, err
	}
	t, err := e.installTable(rec)
	if err != nil {
		return nil, err
	}
	e.startVectorWork(t, nil)
	return t, nil
}

func setGSIStatus(d *wire.TableDescription, s string) {
	for i := range d.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes[i].IndexStatus = s
	}
}

// tableARN is the ARN of a table in this engine's region and account.
func (e *Engine) tableARN(name string) string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", e.cfg.Region, e.cfg.AccountID, name)
}

// streamLabel formats a stream label (an ISO 8601 timestamp, milliseconds,
// no zone) as DynamoDB does.
func streamLabel(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000")
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Default warm throughput DynamoDB reports for on-demand tables and GSIs.
const (
	warmReadOnDemand  = 12000
	warmWriteOnDemand = 4000
)

// newDescription builds the stored TableDescription of a validated request.
func (e *Engine) newDescription(in *wire.CreateTableInput, billing string, now time.Time) wire.TableDescription {
	name := cpDeref(in.TableName)
	arn := e.tableARN(name)
	d := wire.TableDescription{
		TableName:                 cpPtr(name),
		TableArn:                  cpPtr(arn),
		TableId:                   cpPtr(newUUID()),
		CreationDateTime:          wire.NewTime(now),
		KeySchema:                 slices.Clone(in.KeySchema),
		DeletionProtectionEnabled: cpPtr(cpDeref(in.DeletionProtectionEnabled)),
	}
	defs := slices.Clone(in.AttributeDefinitions)
	slices.SortStableFunc(defs, func(a, b wire.AttributeDefinition) int {
		return strings.Compare(cpDeref(a.AttributeName), cpDeref(b.AttributeName))
	})
	d.AttributeDefinitions = defs

	var rcu, wcu int64
	if billing == BillingProvisioned {
		rcu = cpDeref(in.ProvisionedThroughput.ReadCapacityUnits)
		wcu = cpDeref(in.ProvisionedThroughput.WriteCapacityUnits)
		if in.BillingMode != "" {
			d.BillingModeSummary = &wire.BillingModeSummary{BillingMode: BillingProvisioned}
		}
		d.WarmThroughput = &wire.TableWarmThroughputDescription{ReadUnitsPerSecond: cpPtr(rcu), WriteUnitsPerSecond: cpPtr(wcu), Status: StatusActive}
	} else {
		d.BillingModeSummary = &wire.BillingModeSummary{BillingMode: BillingPayPerRequest, LastUpdateToPayPerRequestDateTime: wire.NewTime(now)}
		d.WarmThroughput = &wire.TableWarmThroughputDescription{ReadUnitsPerSecond: cpPtr[int64](warmReadOnDemand), WriteUnitsPerSecond: cpPtr[int64](warmWriteOnDemand), Status: StatusActive}
		if o := in.OnDemandThroughput; o != nil && (o.MaxReadRequestUnits != nil || o.MaxWriteRequestUnits != nil) {
			d.OnDemandThroughput = &wire.OnDemandThroughput{MaxReadRequestUnits: o.MaxReadRequestUnits, MaxWriteRequestUnits: o.MaxWriteRequestUnits}
		}
	}
	d.ProvisionedThroughput = &wire.ProvisionedThroughputDescription{NumberOfDecreasesToday: cpPtr[int64](0), ReadCapacityUnits: cpPtr(rcu), WriteCapacityUnits: cpPtr(wcu)}
	if w := in.WarmThroughput; w != nil && (w.ReadUnitsPerSecond != nil || w.WriteUnitsPerSecond != nil) {
		if w.ReadUnitsPerSecond != nil {
			d.WarmThroughput.ReadUnitsPerSecond = w.ReadUnitsPerSecond
		}
		if w.WriteUnitsPerSecond != nil {
			d.WarmThroughput.WriteUnitsPerSecond = w.WriteUnitsPerSecond
		}
	}

	if s := in.StreamSpecification; s != nil && cpDeref(s.StreamEnabled) {
		label := streamLabel(now)
		d.StreamSpecification = &wire.StreamSpecification{StreamEnabled: cpPtr(true), StreamViewType: s.StreamViewType}
		d.LatestStreamLabel = cpPtr(label)
		d.LatestStreamArn = cpPtr(arn + "/stream/" + label)
	}
	if s := in.SSESpecification; s != nil && (cpDeref(s.Enabled) || s.Enabled == nil && s.SSEType == "KMS") {
		d.SSEDescription = e.sseDescription(s)
	}
	if in.TableClass != "" {
		d.TableClassSummary = &wire.TableClassSummary{TableClass: in.TableClass}
	}

	for _, l := range in.LocalSecondaryIndexes {
		iname := cpDeref(l.IndexName)
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, wire.LocalSecondaryIndexDescription{
			IndexName:      cpPtr(iname),
			IndexArn:       cpPtr(arn + "/index/" + iname),
			KeySchema:      slices.Clone(l.KeySchema),
			Projection:     cloneProjection(l.Projection),
			IndexSizeBytes: cpPtr[int64](0),
			ItemCount:      cpPtr[int64](0),
		})
	}
	for _, g := range in.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes,
			newGSIDescription(arn, billing, cpDeref(g.IndexName), g.KeySchema, g.Projection, g.ProvisionedThroughput, g.OnDemandThroughput, g.WarmThroughput))
	}
	return d
}

func newGSIDescription(tableARN, billing, name string, ks []wire.KeySchemaElement, p *wire.Projection,
	pt *wire.ProvisionedThroughput, od *wire.OnDemandThroughput, warm *wire.WarmThroughput) wire.GlobalSecondaryIndexDescription {
	g := wire.GlobalSecondaryIndexDescription{
		IndexName:      cpPtr(name),
		IndexArn:       cpPtr(tableARN + "/index/" + name),
		KeySchema:      slices.Clone(ks),
		Projection:     cloneProjection(p),
		IndexSizeBytes: cpPtr[int64](0),
		ItemCount:      cpPtr[int64](0),
		IndexStatus:    StatusActive,
	}
	var rcu, wcu int64
	wr, ww := int64(warmReadOnDemand), int64(warmWriteOnDemand)
	if billing == BillingProvisioned && pt != nil {
		rcu, wcu = cpDeref(pt.ReadCapacityUnits), cpDeref(pt.WriteCapacityUnits)
		wr, ww = rcu, wcu
	}
	g.ProvisionedThroughput = &wire.ProvisionedThroughputDescription{NumberOfDecreasesToday: cpPtr[int64](0), ReadCapacityUnits: cpPtr(rcu), WriteCapacityUnits: cpPtr(wcu)}
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
	g.WarmThroughput = &wire.GlobalSecondaryIndexWarmThroughputDescription{ReadUnitsPerSecond: cpPtr(wr), WriteUnitsPerSecond: cpPtr(ww), Status: StatusActive}
	return g
}

func cloneProjection(p *wire.Projection) *wire.Projection {
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

// validateCreateTable performs CreateTable's semantic validation in
// DynamoDB's order and returns the effective billing mode.
func validateCreateTable(in *wire.CreateTableInput) (string, *ddberr.Error) {
	billing := in.BillingMode
	if billing == "" {
		billing = BillingProvisioned
	}
	pt := in.ProvisionedThroughput
	if billing == BillingPayPerRequest && pt != nil {
		return "", ddberr.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	}
	if pt != nil {
		if err := checkCapacityBounds(pt, ""); err != nil {
			return "", err
		}
	}
	if billing == BillingProvisioned && (pt == nil || pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil) {
		return "", ddberr.InvalidParam("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}

	defNames := make([]string, 0, len(in.AttributeDefinitions))
	defined := map[string]bool{}
	for _, d := range in.AttributeDefinitions {
		n := cpDeref(d.AttributeName)
		if defined[n] {
			return "", ddberr.Validationf("Attribute Name is duplicated: %s", n)
		}
		defined[n] = true
		defNames = append(defNames, n)
	}

	// Table key schema.
	ks := in.KeySchema
	keys := keyNames(ks)
	var missing []string
	for _, k := range keys {
		if !defined[k] {
			missing = append(missing, k)
		}
	}
	if len(keys) == 2 && (len(missing) > 0 || keys[0] == keys[1] && len(defNames) == 1) {
		return "", ddberr.Validation("Invalid KeySchema: Some index key attribute have no definition")
	}
	if len(keys) == 1 && len(missing) > 0 {
		if len(defNames) == 0 {
			// No definitions at all (live probes, October 2026).
			return "", ddberr.Validation("Invalid KeySchema: Some index key attribute have no definition")
		}
		return "", missingDefinitions(keys, defNames)
	}
	if err := checkKeySchemaShape(ks); err != nil {
		return "", err
	}

	lsis, gsis := in.LocalSecondaryIndexes, in.GlobalSecondaryIndexes
	if lsis != nil && len(lsis) == 0 {
		return "", ddberr.InvalidParam("List of LocalSecondaryIndexes is empty")
	}
	if gsis != nil && len(gsis) == 0 {
		return "", ddberr.InvalidParam("List of GlobalSecondaryIndexes is empty")
	}
	if in.VectorIndexes != nil && len(in.VectorIndexes) == 0 {
		// eu-west-2 and us-east-1, 2026-08-12, captured by another
		// emulator's authors.
		return "", ddberr.InvalidParam("List of VectorIndexes is empty")
	}

	// Every attribute definition must be used by some key.
	used := map[string]bool{}
	var usedNames []string
	use := func(ks []wire.KeySchemaElement) {
		for _, k := range keyNames(ks) {
			if !used[k] {
				used[k] = true
				usedNames = append(usedNames, k)
			}
		}
	}
	use(ks)
	for _, l := range lsis {
		use(l.KeySchema)
	}
	for _, g := range gsis {
		use(g.KeySchema)
	}
	use(vectors.SearchSchemaKeys(in.VectorIndexes, defined))
	// A vector attribute defined for no key is refused as such, not as an
	// unused definition (eu-west-2 and us-east-1, 2026-08-12, captured by
	// another emulator's authors); one a key uses is answered after the
	// index names are checked (validateCreateVectors; ScyllaDB's Alternator
	// tests see a duplicate name reported first).
	for _, v := range in.VectorIndexes {
		if va := v.VectorAttribute; va != nil && defined[cpDeref(va.AttributeName)] && !used[cpDeref(va.AttributeName)] {
			return "", vectors.AttrDefined(cpDeref(va.AttributeName))
		}
	}
	if len(lsis) == 0 && len(gsis) == 0 {
		if len(defNames) != len(usedNames) {
			return "", ddberr.InvalidParam("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
	} else {
		for _, n := range defNames {
			if !used[n] {
				return "", ddberr.InvalidParam("Some AttributeDefinitions are not used. AttributeDefinitions: [%s], keys used: [%s]",
					strings.Join(defNames, ", "), strings.Join(usedNames, ", "))
			}
		}
	}

	indexNames := map[string]bool{}
	if len(lsis) > 0 {
		if len(ks) != 2 {
			return "", ddberr.InvalidParam("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		tableHash := keys[0]
		for _, l := range lsis {
			iname := cpDeref(l.IndexName)
			if err := checkIndexKeySchema(l.KeySchema, defined, defNames); err != nil {
				return "", err
			}
			if len(l.KeySchema) != 2 {
				return "", ddberr.InvalidParam("Index KeySchema does not have a range key for index: %s", iname)
			}
			if h := cpDeref(l.KeySchema[0].AttributeName); h != tableHash {
				return "", ddberr.InvalidParam("Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s", iname, h, tableHash)
			}
			if err := checkProjection(l.Projection); err != nil {
				return "", err
			}
			if indexNames[iname] {
				return "", ddberr.InvalidParam("Duplicate index name: %s", iname)
			}
			indexNames[iname] = true
		}
		if len(lsis) > maxLSIs {
			return "", ddberr.InvalidParam("Number of LocalSecondaryIndexes exceeds per-table limit of %d", maxLSIs)
		}
	}
	if len(gsis) > 0 {
		for _, g := range gsis {
			iname := cpDeref(g.IndexName)
			if err := checkGSIKeySchema(g.KeySchema, defined, defNames); err != nil {
				return "", err
			}
			if err := checkProjection(g.Projection); err != nil {
				return "", err
			}
			if indexNames[iname] {
				return "", ddberr.InvalidParam("Duplicate index name: %s", iname)
			}
			indexNames[iname] = true
		}
		if len(gsis) > maxGSIs {
			return "", ddberr.InvalidParam("GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
		}
		for _, g := range gsis {
			iname := cpDeref(g.IndexName)
			if billing == BillingPayPerRequest {
				if g.ProvisionedThroughput != nil {
					return "", ddberr.InvalidParam("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", iname)
				}
				if err := checkOnDemand(g.OnDemandThroughput, "index : "+iname, false); err != nil {
					return "", err
				}
				continue
			}
			if g.ProvisionedThroughput == nil {
				return "", ddberr.InvalidParam("ProvisionedThroughput is not specified for index: %s", iname)
			}
			if err := checkCapacityBounds(g.ProvisionedThroughput, iname); err != nil {
				return "", err
			}
			if err := createOnDemandOnProvisioned(g.OnDemandThroughput, iname); err != nil {
				return "", err
			}
		}
	}

	var projections []*wire.Projection
	for _, l := range lsis {
		projections = append(projections, l.Projection)
	}
	for _, g := range gsis {
		projections = append(projections, g.Projection)
	}
	if err := checkNonKeyTotal(projections...); err != nil {
		return "", err
	}
	if billing == BillingProvisioned {
		if err := createOnDemandOnProvisioned(in.OnDemandThroughput, ""); err != nil {
			return "", err
		}
	} else if err := checkOnDemand(in.OnDemandThroughput, "table", false); err != nil {
		return "", err
	}
	if err := checkCreateWarm(in.WarmThroughput, billing, pt); err != nil {
		return "", err
	}
	if err := checkCreateStream(in.StreamSpecification); err != nil {
		return "", err
	}
	if err := checkSSE(in.SSESpecification); err != nil {
		return "", err
	}
	if in.Tags != nil {
		if err := tags.Check(in.Tags); err != nil {
			return "", err
		}
		if len(in.Tags) > tags.Max {
			return "", ddberr.Validation(tags.MsgTooMany)
		}
	}
	return billing, nil
}

func keyNames(ks []wire.KeySchemaElement) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = cpDeref(k.AttributeName)
	}
	return out
}

func missingDefinitions(keys, defs []string) *ddberr.Error {
	return ddberr.InvalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
		strings.Join(keys, ", "), strings.Join(defs, ", "))
}

// checkKeySchemaShape checks HASH-then-RANGE and distinct names.
func checkKeySchemaShape(ks []wire.KeySchemaElement) *ddberr.Error {
	if len(ks) == 2 && cpDeref(ks[0].AttributeName) == cpDeref(ks[1].AttributeName) {
		return ddberr.Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	if len(ks) > 0 && ks[0].KeyType != "HASH" {
		return ddberr.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) > 1 && ks[1].KeyType != "RANGE" {
		return ddberr.Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}
	return nil
}

// checkIndexKeySchema checks an index key schema against the definitions.
func checkIndexKeySchema(ks []wire.KeySchemaElement, defined map[string]bool, defNames []string) *ddberr.Error {
	keys := keyNames(ks)
	for _, k := range keys {
		if !defined[k] {
			return missingDefinitions(keys, defNames)
		}
	}
	return checkKeySchemaShape(ks)
}

// checkProjection checks an index Projection.
func checkProjection(p *wire.Projection) *ddberr.Error {
	if p == nil || p.ProjectionType == "" {
		return ddberr.InvalidParam("Unknown ProjectionType: null")
	}
	if p.ProjectionType != ProjectInclude {
		if p.NonKeyAttributes != nil {
			return ddberr.InvalidParam("ProjectionType is %s, but NonKeyAttributes is specified", p.ProjectionType)
		}
		return nil
	}
	if len(p.NonKeyAttributes) == 0 {
		return ddberr.InvalidParam("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
	}
	seen := map[string]bool{}
	for _, a := range p.NonKeyAttributes {
		if seen[a] {
			return ddberr.InvalidParam("Duplicate element in NonKeyAttributes: %s", a)
		}
		seen[a] = true
	}
	return nil
}

// checkCapacityBounds rejects capacity above DynamoDB's absolute bound;
// index is "" for the table.
func checkCapacityBounds(pt *wire.ProvisionedThroughput, index string) *ddberr.Error {
	suffix := ""
	if index != "" {
		suffix = " for index " + index
	}
	if r := pt.ReadCapacityUnits; r != nil && *r > maxCapacityUnits {
		return ddberr.Validationf("Given value %d for ReadCapacityUnits is out of bounds%s", *r, suffix)
	}
	if w := pt.WriteCapacityUnits; w != nil && *w > maxCapacityUnits {
		return ddberr.Validationf("Given value %d for WriteCapacityUnits is out of bounds%s", *w, suffix)
	}
	return nil
}

// onDemandOnProvisioned rejects OnDemandThroughput on a PROVISIONED table.
func onDemandOnProvisioned(o *wire.OnDemandThroughput, suffix string) *ddberr.Error {
	if m := onDemandMember(o); m != "" {
		return ddberr.InvalidParam("%s for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED%s", m, suffix)
	}
	return nil
}

// onDemandMember names the first limit o sets ("" for none).
func onDemandMember(o *wire.OnDemandThroughput) string {
	switch {
	case o == nil:
		return ""
	case o.MaxReadRequestUnits != nil:
		return "MaxReadRequestUnits"
	case o.MaxWriteRequestUnits != nil:
		return "MaxWriteRequestUnits"
	}
	return ""
}

// checkOnDemand checks OnDemandThroughput values: positive, or -1 (no
// limit) where allowMinusOne (UpdateTable).
func checkOnDemand(o *wire.OnDemandThroughput, what string, allowMinusOne bool) *ddberr.Error {
	if o == nil {
		return nil
	}
	bad := func(v *int64) bool { return v != nil && *v < 1 && !(allowMinusOne && *v == -1) }
	if bad(o.MaxReadRequestUnits) {
		return ddberr.InvalidParam("Requested MaxReadRequestUnits for OnDemandThroughput for %s is outside of valid range", what)
	}
	if bad(o.MaxWriteRequestUnits) {
		return ddberr.InvalidParam("Requested MaxWriteRequestUnits for OnDemandThroughput for %s is outside of valid range", what)
	}
	return nil
}

func checkCreateStream(s *wire.StreamSpecification) *ddberr.Error {
	if s == nil {
		return nil
	}
	if cpDeref(s.StreamEnabled) && s.StreamViewType == "" {
		return ddberr.InvalidParam("Table is being created with a stream enabled, UpdateViewType is required")
	}
	if !cpDeref(s.StreamEnabled) && s.StreamViewType != "" {
		return ddberr.InvalidParam("Table is being created with a stream disabled, UpdateViewType should not be specified")
	}
	return nil
}

func checkSSE(s *wire.SSESpecification) *ddberr.Error {
	if s == nil {
		return nil
	}
	enabled := cpDeref(s.Enabled)
	if !enabled && s.Enabled != nil {
		if s.SSEType != "" {
			return ddberr.InvalidParam("SSEType can not be specified if Enabled is false")
		}
		if s.KMSMasterKeyId != nil {
			return ddberr.InvalidParam("KMSMasterKeyId can not be specified if Enabled is false")
		}
	}
	if s.SSEType == "AES256" {
		return ddberr.InvalidParam("SSEType AES256 is not supported")
	}
	if s.KMSMasterKeyId != nil && s.SSEType != "KMS" {
		return ddberr.InvalidParam("SSEType KMS is required if KMSMasterKeyId is specified")
	}
	return nil
}
