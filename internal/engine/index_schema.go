package engine

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/wire"
)

// Multi-attribute GSI keys: up to four HASH and four RANGE attributes,
// HASH attributes first. Tables and LSIs keep one of each.
const (
	maxIndexHashAttrs  = 4
	maxIndexRangeAttrs = 4
	// maxNonKeyAttributes bounds the INCLUDE attributes summed over every
	// index of a table (an attribute projected into two indexes counts twice).
	maxNonKeyAttributes = 100
)

// checkGSIKeySchemaShape checks a GSI key schema: the classic rules for one
// or two elements, the multi-attribute rules beyond.
func checkGSIKeySchemaShape(ks []wire.KeySchemaElement) *ddberr.Error {
	if len(ks) <= 2 && (len(ks) < 2 || ks[1].KeyType != "HASH") {
		return tables.CheckKeySchemaShape(ks)
	}
	if ks[0].KeyType != "HASH" {
		return ddberr.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	hashes, ranges := 0, 0
	seen := map[string]bool{}
	for _, k := range ks {
		n := cpDeref(k.AttributeName)
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
	if hashes > maxIndexHashAttrs {
		return ddberr.InvalidParam("The KeySchema exceeds the maximum allowed number of HASH key attributes")
	}
	if ranges > maxIndexRangeAttrs {
		return ddberr.InvalidParam("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
	}
	return nil
}

// checkGSIKeySchema checks a GSI key schema against the definitions.
func checkGSIKeySchema(ks []wire.KeySchemaElement, defined map[string]bool, defNames []string) *ddberr.Error {
	keys := tables.KeyNames(ks)
	for _, k := range keys {
		if !defined[k] {
			return tables.MissingDefinitions(keys, defNames)
		}
	}
	return checkGSIKeySchemaShape(ks)
}

// checkNonKeyTotal applies the 100-attribute limit on INCLUDE projections
// summed over a table's indexes. The text is not verified against a live
// DynamoDB (no capture; the limit itself is documented).
func checkNonKeyTotal(projections ...*wire.Projection) *ddberr.Error {
	n := 0
	for _, p := range projections {
		if p != nil && p.ProjectionType == ProjectInclude {
			n += len(p.NonKeyAttributes)
		}
	}
	if n > maxNonKeyAttributes {
		return ddberr.InvalidParam("Number of projected attributes in all indexes exceeds limit of %d", maxNonKeyAttributes)
	}
	return nil
}

// msgOnlineIndexLimit is DynamoDB's LimitExceededException text for a
// second GSI creation or deletion while one is running (or requested).
const msgOnlineIndexLimit = tables.MsgOnlineIndexLimit

// onlineIndexChangeRunning reports whether a GSI of d is being created
// (backfilled) or deleted.
func onlineIndexChangeRunning(d *wire.TableDescription) bool {
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus == StatusCreating || g.IndexStatus == StatusDeleting || cpDeref(g.Backfilling) {
			return true
		}
	}
	return false
}

// deletesBackfilling reports whether del deletes a GSI of d that is being
// created and still backfilling: DynamoDB allows that (IndexStatus CREATING
// with Backfilling true), though no other change while one runs.
func deletesBackfilling(d *wire.TableDescription, del *wire.DeleteGlobalSecondaryIndexAction) bool {
	if del == nil {
		return false
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if cpDeref(g.IndexName) == cpDeref(del.IndexName) {
			return g.IndexStatus == StatusCreating && cpDeref(g.Backfilling)
		}
	}
	return false
}

// allProjections lists the projections of every index in d.
func allProjections(d *wire.TableDescription) []*wire.Projection {
	var out []*wire.Projection
	for _, l := range d.LocalSecondaryIndexes {
		out = append(out, l.Projection)
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != StatusDeleting {
			out = append(out, g.Projection)
		}
	}
	return out
}
