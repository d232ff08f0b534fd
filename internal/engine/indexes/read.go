package indexes

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/expr"
)

// Read is one Query or Scan of a secondary index, as OpenRead admitted it.
// The core reads the entries (its pages) and charges the capacity the read
// records here.
type Read struct {
	Index      *Index
	Consistent bool
	// Fetch: an LSI read that needs attributes its entries lack reads the
	// item from the table (and pays for it).
	Fetch bool
	// EntryBytes is the size of the entries read; TableUnits the capacity
	// of the table reads (LSI fetches).
	EntryBytes int
	TableUnits float64
}

// ReadRequest is what OpenRead checks of a read: IndexName, Select,
// ConsistentRead, and the top-level attributes the read needs of each
// entry (Needs calls its argument with each: those of the filter and the
// projection; nil when there are none).
type ReadRequest struct {
	Name       string
	Select     string
	Consistent bool
	Needs      func(need func(name string))
}

// selectAll is Select=ALL_ATTRIBUTES.
const selectAll = "ALL_ATTRIBUTES"

// OpenRead applies DynamoDB's checks to a read of ix, the index of table t
// the request names (nil when t has none by that name), in its order: the
// index exists, no consistent reads on a GSI, the GSI is not being
// backfilled, and Select=ALL_ATTRIBUTES only where the whole item is
// available.
func OpenRead(t *change.Table, ix *Index, req ReadRequest) (*Read, error) {
	if ix == nil || ix.Status == statusDeleting {
		return nil, ddberr.Validation("The table does not have the specified index: " + req.Name)
	}
	r := &Read{Index: ix, Consistent: req.Consistent}
	if !ix.Local {
		if r.Consistent {
			return nil, ddberr.Validation("Consistent reads are not supported on global secondary indexes")
		}
		if ix.Status != statusActive || ix.Backfilling {
			return nil, ddberr.Validation("Cannot read from backfilling global secondary index: " + req.Name)
		}
	}
	if req.Select == selectAll && !ix.ProjectAll() {
		// Every form of Query and Scan, with or without a filter (dynalite's
		// tests, run against DynamoDB; TestSelectAllAttributesOnPartialGSI).
		if !ix.Local {
			return nil, ddberr.InvalidParam("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", req.Name)
		}
		r.Fetch = true
	}
	if ix.Local && !ix.ProjectAll() && !r.Fetch && req.Needs != nil {
		req.Needs(func(name string) {
			if !Projects(t, ix, name) {
				r.Fetch = true
			}
		})
	}
	return r, nil
}

// AnalyzeKeyCondition matches a Query's key condition against an index's
// key schema and checks the operand types.
func AnalyzeKeyCondition(ix *Index, c *expr.Condition) (*expr.KeyCondition, error) {
	names := func(ks []KeyAttr) []string {
		out := make([]string, len(ks))
		for i, k := range ks {
			out[i] = k.Name
		}
		return out
	}
	kc, err := expr.AnalyzeKeyCondition(c, names(ix.Hashes), names(ix.Ranges))
	if err != nil {
		return nil, err
	}
	check := func(parts []expr.KeyPart, ks []KeyAttr) error {
		for i, p := range parts {
			for _, v := range p.Values {
				if v.T != ks[i].Type {
					return ddberr.InvalidParam("Condition parameter type does not match schema type")
				}
			}
		}
		return nil
	}
	if err := check(kc.Hash, ix.Hashes); err != nil {
		return nil, err
	}
	if err := check(kc.Range, ix.Ranges); err != nil {
		return nil, err
	}
	for i, h := range kc.Hash {
		if err := attr.ValidateKeyValue(ix.Hashes[i].Name, h.Values[0], ix.Hashes[i].Type, true); err != nil {
			return nil, err
		}
	}
	return kc, nil
}
