package engine

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/wire"
)

// The table control plane's rules live in internal/engine/tables; this
// file wires them: the account they name, and the secondary- and
// vector-index rules they ask of the core (tables.Indexes).

// account is the region and account this engine answers for.
func (e *Engine) account() tables.Account {
	return tables.Account{Region: e.cfg.Region, AccountID: e.cfg.AccountID}
}

// AWSManagedKeyARN is the ARN of DynamoDB's AWS managed key in the
// engine's region and account (what a KMS SSESpecification without a key
// uses): global tables tell it from a customer managed key.
func (e *Engine) AWSManagedKeyARN() string { return e.account().KMSKeyARN("") }

// inUse is the ResourceInUseException for a table in a transitional state.
func inUse(t *Table) *ddberr.Error { return tables.InUse(t.Name, t.Status) }

// tableIndexes answers the table rules' questions about indexes with the
// index and vector-index code's own rules.
type tableIndexes struct{}

func (tableIndexes) CheckGSIKeySchema(ks []wire.KeySchemaElement, defined map[string]bool, defNames []string) *ddberr.Error {
	return indexes.CheckGSIKeySchema(ks, defined, defNames)
}

func (tableIndexes) CheckGSIKeySchemaShape(ks []wire.KeySchemaElement) *ddberr.Error {
	return indexes.CheckGSIKeySchemaShape(ks)
}

func (tableIndexes) CheckNonKeyTotal(projections ...*wire.Projection) *ddberr.Error {
	return indexes.CheckNonKeyTotal(projections...)
}

func (tableIndexes) VectorKeys(in []wire.VectorIndex, defined map[string]bool) []wire.KeySchemaElement {
	return vectors.SearchSchemaKeys(in, defined)
}

func (tableIndexes) VectorAttrDefined(name string) *ddberr.Error { return vectors.AttrDefined(name) }

// OnlineChangeRunning: a vector index being built counts as the one
// online index change too, as a GSI's does for a vector index
// (applyVectorUpdates).
func (tableIndexes) OnlineChangeRunning(d *wire.TableDescription) bool {
	return indexes.OnlineChangeRunning(d) || vectors.Building(d)
}

func (tableIndexes) DeletesBackfilling(d *wire.TableDescription, del *wire.DeleteGlobalSecondaryIndexAction) bool {
	return indexes.DeletesBackfilling(d, del)
}

func (tableIndexes) AllProjections(d *wire.TableDescription) []*wire.Projection {
	return indexes.AllProjections(d)
}

func (tableIndexes) VectorIndex(d *wire.TableDescription, name string) bool {
	return vectors.Desc(d, name) != nil
}

func (tableIndexes) VectorOfAttr(d *wire.TableDescription, name string) *wire.VectorIndexDescription {
	return vectors.OfAttr(d, name)
}

func (tableIndexes) PruneDefinitions(d *wire.TableDescription) { pruneVectorDefinitions(d) }

func (tableIndexes) VectorBuilding(d *wire.TableDescription) bool { return vectors.Building(d) }

func (tableIndexes) CheckCreateVectors(in *wire.CreateTableInput, billing string) *ddberr.Error {
	return validateCreateVectors(in, billing)
}

func (tableIndexes) VectorDeleteAllocating(d *wire.TableDescription, table string, del *wire.DeleteVectorIndexAction) *ddberr.Error {
	return vectorDeleteAllocating(d, table, del)
}
