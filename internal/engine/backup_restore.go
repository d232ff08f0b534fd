package engine

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/restore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// RestoreTableFromBackup creates a table from a backup. The new table is
// CREATING (DescribeTable shows its RestoreSummary) while the backup's
// items are written into it with their index entries; then it turns
// ACTIVE and the RestoreSummary goes, as in DynamoDB. What a restore keeps
// and drops follows DynamoDB: keys, indexes (or the overrides' choice of
// them), billing mode, throughput and encryption are restored; streams,
// TTL, point-in-time recovery, tags, deletion protection and the table
// class are not.
func (e *Engine) RestoreTableFromBackup(ctx context.Context, in *wire.RestoreTableFromBackupInput) (*wire.RestoreTableFromBackupOutput, error) {
	if err := e.refuseInCluster("RestoreTableFromBackup"); err != nil { // cluster_refusals.go
		return nil, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	b, err := e.findBackup("RestoreTableFromBackup", cpDeref(in.BackupArn))
	if err != nil {
		return nil, err
	}
	cin, verr := restoreRequest(&b.Source, in.TargetTableName, restoreOverrides{
		billing: in.BillingModeOverride, throughput: in.ProvisionedThroughputOverride, onDemand: in.OnDemandThroughputOverride,
		gsis: in.GlobalSecondaryIndexOverride, lsis: in.LocalSecondaryIndexOverride, sse: in.SSESpecificationOverride, vectors: in.VectorIndexOverride,
	})
	if verr != nil {
		return nil, verr
	}
	if err := e.restoreTargetFree(cpDeref(in.TargetTableName)); err != nil {
		return nil, err
	}
	if e.restoresFrom(b.ARN) > 0 {
		return nil, ddberr.BackupInUse("Backup is being used to restore another table: " + b.ARN)
	}
	summary := &wire.RestoreSummary{SourceBackupArn: cpPtr(b.ARN), SourceTableArn: b.Source.Desc.TableArn, RestoreDateTime: wire.NewTime(b.Created)}
	t, d, err := e.createRestoreTarget(cin, summary, 0)
	if err != nil {
		return nil, err
	}
	e.bk.StartRestore(b.ARN)
	e.goBackground(func() { e.runRestore(t, b) })
	return &wire.RestoreTableFromBackupOutput{TableDescription: d}, nil
}

// restoreTargetFree refuses a restore into the name of an existing table:
// TableInUseException while that table is itself being restored,
// TableAlreadyExistsException otherwise (DELETING included).
func (e *Engine) restoreTargetFree(target string) error {
	t, exists := e.lookupTable(target)
	if !exists {
		return nil
	}
	if rs := t.Desc.RestoreSummary; rs != nil && t.Status == StatusCreating {
		from := cpDeref(rs.SourceBackupArn)
		if from == "" {
			from = cpDeref(rs.SourceTableArn)
		}
		return ddberr.TableInUse("Table: " + target + " is already being restored from backup: " + from)
	}
	return ddberr.TableAlreadyExists(target)
}

// createRestoreTarget creates the table a restore fills: CREATING, with
// the RestoreSummary (in progress) and, for a point-in-time restore, the
// ID of the table it reads (pitrSource). It returns the table and the
// description the restore answers with. Callers hold e.ddl.
func (e *Engine) createRestoreTarget(cin *wire.CreateTableInput, summary *wire.RestoreSummary, pitrSource uint64) (*Table, *wire.TableDescription, error) {
	billing, verr := validateCreateTable(cin)
	if verr != nil {
		return nil, nil, verr
	}
	if verr := e.checkCreateCaps(cin); verr != nil {
		return nil, nil, verr
	}
	if verr := validateCreateVectors(cin, billing); verr != nil {
		return nil, nil, verr
	}
	rec := e.newTableRecord(cin, billing, e.clock.Now())
	rec.setStatus(StatusCreating) // no ReadyAt: the restore ends it (finishRestore)
	setGSIStatus(&rec.Desc, StatusCreating)
	addCreateVectors(rec, cin, StatusCreating)
	if summary != nil { // nil: an import's table (import.go)
		summary.RestoreInProgress = cpPtr(true)
		rec.Desc.RestoreSummary = summary
	}
	rec.RestoreSource = pitrSource
	t, err := e.storeNewTable(rec)
	if err != nil {
		return nil, nil, err
	}
	d := e.describe(t)
	d.WarmThroughput = nil
	for i := range d.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes[i].WarmThroughput = nil
	}
	return t, d, nil
}

// checkBackupARN refuses what is not a backup ARN,
// arn:<partition>:dynamodb:<region>:<account>:table/<name>/backup/<id>, in
// DynamoDB's words (a probe of DynamoDB, 2026-10-09): "Invalid Backup ARN"
// for something else than an ARN of a backup (a table's ARN, a plain
// string), "BackupArn is not valid" for a backup ARN of another partition
// or service. The region is not compared: DynamoDB ignores it.
func checkBackupARN(s string) error {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return ddberr.Validation("Invalid Backup ARN")
	}
	rest, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return ddberr.Validation("Invalid Backup ARN")
	}
	name, id, ok := strings.Cut(rest, "/backup/")
	if !ok || name == "" || id == "" || strings.Contains(id, "/") {
		return ddberr.Validation("Invalid Backup ARN")
	}
	if !strings.HasPrefix(parts[1], "aws") || parts[2] != "dynamodb" {
		return ddberr.Validation("BackupArn is not valid")
	}
	return nil
}

// restoresFrom is the number of restores reading the backup.
func (e *Engine) restoresFrom(arn string) int {
	return e.bk.Restoring(arn)
}

// restoreOverrides are a restore request's overrides.
type restoreOverrides struct {
	billing    string
	throughput *wire.ProvisionedThroughput
	onDemand   *wire.OnDemandThroughput
	gsis       []wire.GlobalSecondaryIndex
	lsis       []wire.LocalSecondaryIndex
	sse        *wire.SSESpecification
	vectors    []wire.VectorIndex
}

// restoreRequest is the CreateTable request a restore amounts to: the
// source table (as a backup recorded it, or as it is now) with the
// request's overrides.
func restoreRequest(source *tableRecord, target *string, o restoreOverrides) (*wire.CreateTableInput, *ddberr.Error) {
	src := &source.Desc
	srcBilling := cmp.Or(source.BillingMode, BillingProvisioned)
	billing := cmp.Or(o.billing, srcBilling)
	if o.throughput != nil && billing != BillingProvisioned {
		return nil, ddberr.Validation("Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED")
	}
	if o.billing == BillingProvisioned && srcBilling != BillingProvisioned && o.throughput == nil {
		return nil, ddberr.Validation("Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED")
	}
	cin := &wire.CreateTableInput{
		TableName:   target,
		KeySchema:   slices.Clone(src.KeySchema),
		BillingMode: billing,
	}
	if billing == BillingProvisioned {
		cin.ProvisionedThroughput = cmp.Or(o.throughput, recordedThroughput(src.ProvisionedThroughput))
	} else {
		cin.OnDemandThroughput = cmp.Or(o.onDemand, src.OnDemandThroughput)
	}
	gsis, err := restoredGSIs(src, o.gsis, billing, cin.ProvisionedThroughput)
	if err != nil {
		return nil, err
	}
	cin.GlobalSecondaryIndexes = gsis
	lsis, err := restoredLSIs(src, o.lsis)
	if err != nil {
		return nil, err
	}
	cin.LocalSecondaryIndexes = lsis
	vecs, err := restoredVectors(src, o.vectors)
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
	switch s := o.sse; {
	case s != nil:
		cin.SSESpecification = s
	case src.SSEDescription != nil && src.SSEDescription.Status == "ENABLED":
		cin.SSESpecification = &wire.SSESpecification{Enabled: cpPtr(true), SSEType: "KMS", KMSMasterKeyId: src.SSEDescription.KMSMasterKeyArn}
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
		return cpDeref(a.AttributeName) == cpDeref(b.AttributeName) && a.KeyType == b.KeyType
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
		if g.IndexStatus == StatusDeleting {
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
				return nil, noNewIndex(cpDeref(o.IndexName))
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
		if billing != BillingProvisioned {
			out[i].ProvisionedThroughput = nil
			continue
		}
		out[i].OnDemandThroughput = nil
		if pt := out[i].ProvisionedThroughput; pt == nil || cpDeref(pt.ReadCapacityUnits) == 0 {
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
			return nil, noNewIndex(cpDeref(o.IndexName))
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
		if v.IndexStatus == StatusDeleting {
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
		i := slices.IndexFunc(out, func(v wire.VectorIndex) bool { return cpDeref(v.IndexName) == cpDeref(o.IndexName) })
		if i < 0 {
			return nil, noNewIndex(cpDeref(o.IndexName))
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
			used[cpDeref(k.AttributeName)] = true
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
			used[cpDeref(s.AttributeName)] = true
		}
		if v.VectorAttribute != nil {
			used[cpDeref(v.VectorAttribute.AttributeName)] = true
		}
	}
	var out []wire.AttributeDefinition
	for _, d := range defs {
		if used[cpDeref(d.AttributeName)] {
			out = append(out, d)
		}
	}
	return out
}

// runRestore writes a backup's items into the restored table t, then
// makes it ACTIVE. It waits for a backup still being copied. Stopped by
// Close, it starts over at the next Open (loadBackups): writing an item
// again changes nothing.
func (e *Engine) runRestore(t *Table, b *backupRecord) {
	defer e.bk.EndRestore(b.ARN)
	for {
		cur, ok := e.backup(b.ARN)
		if !ok {
			return
		}
		if cur.Status == backupAvailable {
			break
		}
		if !e.sleep(10 * time.Millisecond) {
			return
		}
	}
	if done, err := e.restoreItems(t, b); err != nil || !done {
		return
	}
	e.finishRestore(t)
}

// restoreItems writes the backup's items into t, restore.Chunk items per
// storage transaction; false when Close stopped it.
func (e *Engine) restoreItems(t *Table, b *backupRecord) (bool, error) {
	snap, err := e.openSnapshot()
	if err != nil {
		return false, err
	}
	defer snap.Close()
	lower, upper := backupItemRange(b)
	return restore.FromBackup(snap, lower, upper, restoreTarget{e, t}, e.sleep)
}

// restoreTarget is a restore's (or an import's) new table: the core's
// write path for it (restoreChunk), as packages restore and imports
// reach it.
type restoreTarget struct {
	e *Engine
	t *Table
}

func (r restoreTarget) Write(items []attr.Item) error { return r.e.restoreChunk(r.t, items) }

// restoreChunk writes items into t in one storage transaction with
// BatchWriteItem's tryBatchWrites (stageWrite per item, so index entries
// and vector marks are written with them). No item locks: nothing else
// writes a table being restored.
func (e *Engine) restoreChunk(t *Table, items []attr.Item) error {
	if len(items) == 0 {
		return nil
	}
	iws := make([]itemWrite, len(items))
	keys := make([][]byte, len(items))
	for i, item := range items {
		pk := t.primaryKeyOf(item)
		iws[i] = itemWrite{table: t, key: pk, verbatim: true, apply: func(attr.Item) (attr.Item, error) { return item, nil }}
		keys[i] = t.storageKey(pk)
	}
	results, changed := make([]writeResult, len(items)), make([]bool, len(items))
	for attempt := 0; ; attempt++ {
		err := e.tryBatchWrites(iws, keys, results, changed)
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrConflict) || attempt == maxConflictRetries {
			return err
		}
	}
	for i := range iws {
		if changed[i] {
			e.writeStats(t, results[i])
		}
	}
	return nil
}

// finishRestore makes a restored table ACTIVE (durably), without its
// RestoreSummary.
func (e *Engine) finishRestore(t *Table) {
	e.ddl.Lock()
	defer e.ddl.Unlock()
	cur, ok := e.lookupTable(t.Name)
	if !ok || cur.ID != t.ID || cur.Status != StatusCreating {
		return
	}
	now := e.clock.Now()
	rec := cur.rec.clone()
	rec.ReadyAt = now
	rec.settle(now)
	rec.Desc.RestoreSummary = nil
	rec.RestoreSource = 0
	_, _ = e.saveRecord(rec) // on failure the table stays CREATING; the next Open restores again
}
