package indexes

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// Multi-attribute GSI keys: up to four HASH and four RANGE attributes,
// HASH attributes first. Tables and LSIs keep one of each.
const (
	MaxHashAttrs  = 4
	MaxRangeAttrs = 4
	// maxNonKeyAttributes bounds the INCLUDE attributes summed over every
	// index of a table (an attribute projected into two indexes counts twice).
	maxNonKeyAttributes = 100
)

// CheckGSIKeySchemaShape checks a GSI key schema: the classic rules for one
// or two elements, the multi-attribute rules beyond.
func CheckGSIKeySchemaShape(ks []wire.KeySchemaElement) *ddberr.Error {
	if len(ks) <= 2 && (len(ks) < 2 || ks[1].KeyType != "HASH") {
		return tables.CheckKeySchemaShape(ks)
	}
	if ks[0].KeyType != "HASH" {
		return ddberr.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	hashes, ranges := 0, 0
	seen := map[string]bool{}
	for _, k := range ks {
		n := wire.Deref(k.AttributeName)
		if seen[n] {
			return ddberr.Validation("The KeySchema contains multiple key attributes with the same name")
		}
		seen[n] = true
		if k.KeyType == "HASH" {
			if ranges > 0 {
				return ddberr.InvalidParam("All HASH key attributes must precede RANGE key attributes in the KeySchema")
			}
			hashes++
		} else {
			ranges++
		}
	}
	if hashes > MaxHashAttrs {
		return ddberr.InvalidParam("The KeySchema exceeds the maximum allowed number of HASH key attributes")
	}
	if ranges > MaxRangeAttrs {
		return ddberr.InvalidParam("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
	}
	return nil
}

// CheckGSIKeySchema checks a GSI key schema against the definitions.
func CheckGSIKeySchema(ks []wire.KeySchemaElement, defined map[string]bool, defNames []string) *ddberr.Error {
	keys := tables.KeyNames(ks)
	for _, k := range keys {
		if !defined[k] {
			return tables.MissingDefinitions(keys, defNames)
		}
	}
	return CheckGSIKeySchemaShape(ks)
}

// CheckNonKeyTotal applies the 100-attribute limit on INCLUDE projections
// summed over a table's indexes. The text is not verified against a live
// DynamoDB (no capture; the limit itself is documented).
func CheckNonKeyTotal(projections ...*wire.Projection) *ddberr.Error {
	n := 0
	for _, p := range projections {
		if p != nil && p.ProjectionType == projectInclude {
			n += len(p.NonKeyAttributes)
		}
	}
	if n > maxNonKeyAttributes {
		return ddberr.InvalidParam("Number of projected attributes in all indexes exceeds limit of %d", maxNonKeyAttributes)
	}
	return nil
}

// OnlineChangeRunning reports whether a GSI of d is being created
// (backfilled) or deleted.
func OnlineChangeRunning(d *wire.TableDescription) bool {
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus == statusCreating || g.IndexStatus == statusDeleting || wire.Deref(g.Backfilling) {
			return true
		}
	}
	return false
}

// DeletesBackfilling reports whether del deletes a GSI of d that is being
// created and still backfilling: DynamoDB allows that (IndexStatus CREATING
// with Backfilling true), though no other change while one runs.
func DeletesBackfilling(d *wire.TableDescription, del *wire.DeleteGlobalSecondaryIndexAction) bool {
	if del == nil {
		return false
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if wire.Deref(g.IndexName) == wire.Deref(del.IndexName) {
			return g.IndexStatus == statusCreating && wire.Deref(g.Backfilling)
		}
	}
	return false
}

// AllProjections lists the projections of every index in d.
func AllProjections(d *wire.TableDescription) []*wire.Projection {
	var out []*wire.Projection
	for _, l := range d.LocalSecondaryIndexes {
		out = append(out, l.Projection)
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != statusDeleting {
			out = append(out, g.Projection)
		}
	}
	return out
}
