package engine

import (
	"slices"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/wire"
)

// The control-plane side of vector indexes: CreateTable's and
// UpdateTable's definitions checked and stored in the table's record (the
// checks themselves are package vectors').

// validateCreateVectors is CreateTable's vector index validation, run after
// the rest of the request has been validated.
func validateCreateVectors(in *wire.CreateTableInput, billing string) *ddberr.Error {
	if in.VectorIndexes == nil {
		return nil
	}
	types := map[string]attr.Type{}
	for _, d := range in.AttributeDefinitions {
		types[cpDeref(d.AttributeName)] = attrType(d.AttributeType)
	}
	h, r, _ := parseKeySchema(in.KeySchema, types)
	keys := []KeyAttr{h}
	if r != nil {
		keys = append(keys, *r)
	}
	return vectors.ValidateCreate(in, billing == BillingPayPerRequest, keys, tables.CheckProjection)
}

// addCreateVectors adds CreateTable's vector indexes to a new record.
func addCreateVectors(rec *tableRecord, in *wire.CreateTableInput, status string) {
	for _, v := range vectors.DefsOfCreate(in.VectorIndexes) {
		rec.AddIndexID(v.Name)
		rec.Desc.VectorIndexes = append(rec.Desc.VectorIndexes, vectors.NewStoredDescription(cpDeref(rec.Desc.TableArn), v, status))
	}
}

// startVectorWork creates the runtimes of vector indexes new in t (compared
// with prev) and starts their backfill. Callers hold e.ddl.
func (e *Engine) startVectorWork(t, prev *Table) {
	if prev == nil {
		e.vec.Start(t, nil) // a nil interface, not a nil *Table
		return
	}
	e.vec.Start(t, prev)
}

// applyVectorUpdates applies UpdateTable's VectorIndexUpdates to rec
// (vectors.ApplyUpdates); it reports whether an index was created.
// Callers hold e.ddl.
func (e *Engine) applyVectorUpdates(t *Table, rec *tableRecord, in *wire.UpdateTableInput, billing string) (bool, *ddberr.Error) {
	return vectors.ApplyUpdates(vectors.Change{
		Name: rec.Name, Desc: &rec.Desc, Current: t.Vectors, Keys: t.keyAttrs(), HasIndex: t.hasIndexNamed,
		IndexID: rec.IndexID, AddIndexID: func(n string) { rec.AddIndexID(n) },
		DropIndexID: func(n string) {
			rec.Indexes = slices.DeleteFunc(rec.Indexes, func(r indexRecord) bool { return r.Name == n })
		},
		Drop: func(id uint32) { e.vec.Drop(rec.ID, id) },
	}, in, billing == BillingPayPerRequest)
}

// vectorDeleteAllocating is DynamoDB's refusal of deleting a vector index
// still in resource allocation (vectors.DeleteAllocating).
func vectorDeleteAllocating(d *wire.TableDescription, table string, del *wire.DeleteVectorIndexAction) *ddberr.Error {
	return vectors.DeleteAllocating(d, table, del)
}

// hasIndexNamed reports whether any index of t (GSI, LSI, vector) has name.
func (t *Table) hasIndexNamed(name string) bool {
	if _, ok := t.Index(name); ok {
		return true
	}
	_, ok := t.VectorIndex(name)
	return ok
}

// pruneVectorDefinitions is pruneAttributeDefinitions keeping the
// SearchSchema attributes of vector indexes (vectors.PruneDefinitions).
func pruneVectorDefinitions(d *wire.TableDescription) { vectors.PruneDefinitions(d) }
