package indexes

import (
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
)

// Live is the set of indexes the writes of one table version maintain:
// every LSI and every GSI that is not being deleted (a GSI being
// backfilled is maintained from the moment it is created). ByName is the
// same set sorted by index name, the order DynamoDB reports index-key
// errors in; Local is the table's LSIs (whose entries count towards item
// collections, collection.go).
type Live struct {
	List, ByName, Local []*Index
}

// NewLive is the live set of a table version with these LSIs and GSIs.
func NewLive(lsis, gsis []*Index) *Live {
	l := &Live{List: slices.Clone(lsis), Local: lsis}
	for _, ix := range gsis {
		if ix.Status != statusDeleting {
			l.List = append(l.List, ix)
		}
	}
	l.ByName = slices.Clone(l.List)
	slices.SortFunc(l.ByName, func(a, b *Index) int { return strings.Compare(a.Name, b.Name) })
	return l
}

// CheckKeys applies DynamoDB's rules to the index key attributes of an item
// about to be written: an attribute present with another type than
// declared is a type mismatch (naming the first index by name that uses
// it), S/B key attributes may not be empty nor over their size limit.
// fromUpdate selects the UpdateItem wording of the empty-value error.
func (l *Live) CheckKeys(it attr.Item, fromUpdate bool) error {
	if it == nil {
		return nil
	}
	if err := l.CheckKeyTypes(it); err != nil {
		return err
	}
	return l.CheckKeyValues(it, fromUpdate)
}

// CheckKeyValues is the value part of CheckKeys (sizes, empty strings and
// binaries), for index key attributes of the right type.
func (l *Live) CheckKeyValues(it attr.Item, fromUpdate bool) error {
	for _, ix := range l.ByName {
		for _, k := range ix.KeyAttrs() {
			v, ok := it[k.Name]
			if !ok {
				continue
			}
			if err := ix.CheckKeySize(k.Name, v); err != nil {
				return err
			}
			kind := emptyKind(v)
			if kind == "" {
				continue
			}
			if fromUpdate {
				return ddberr.Validation(msgUpdateEmpty + kind + " value.")
			}
			return ddberr.Validation("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty " + kind + " value. IndexName: " + ix.Name + ", IndexKey: " + k.Name)
		}
	}
	return nil
}

// emptyKind is "string" or "binary" for an empty S or B value, else "".
func emptyKind(v attr.Value) string {
	switch {
	case v.T == attr.S && v.Str == "":
		return "string"
	case v.T == attr.B && len(v.Bin) == 0:
		return "binary"
	}
	return ""
}

// CheckKeyTypes is the type part of CheckKeys: an index key attribute
// present in it with another type than the index declares (indexes by
// name, so the first index naming the attribute is reported).
func (l *Live) CheckKeyTypes(it attr.Item) error {
	for _, ix := range l.ByName {
		for _, k := range ix.KeyAttrs() {
			if v, ok := it[k.Name]; ok && v.T != k.Type {
				return ddberr.InvalidParam("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k.Name, k.Type, v.T, ix.Name)
			}
		}
	}
	return nil
}

// CheckUpdateValues refuses, before anything is read, an update that SETs
// an index key attribute (isKey: of a secondary or vector index) to an
// empty string or binary given as a value (DynamoDB answers this up front,
// also inside a transaction; for a vector index's HASH attribute too,
// eu-west-2 and us-east-1, 2026-08-13, captured by another emulator's
// authors).
func CheckUpdateValues(u *expr.Update, isKey func(name string) bool) error {
	if u == nil {
		return nil
	}
	for _, a := range u.Actions {
		if a.Kind != expr.ActionSet || len(a.Path) != 1 || a.Value == nil || a.Value.Kind != expr.OperandValue {
			continue
		}
		if !isKey(a.Path[0].Name) {
			continue
		}
		if kind := emptyKind(a.Value.Value); kind != "" {
			return ddberr.Validation(msgUpdateEmpty + kind + " value.")
		}
	}
	return nil
}

const msgUpdateEmpty = "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty "
