package change

import "github.com/kura-db/kura/internal/attr"

// KeyAttrs lists the table's key attributes, partition key first.
func (t *Table) KeyAttrs() []KeyAttr {
	if t.Range == nil {
		return []KeyAttr{t.Hash}
	}
	return []KeyAttr{t.Hash, *t.Range}
}

// IsKeyAttr reports whether name is one of the table's key attributes.
func (t *Table) IsKeyAttr(name string) bool {
	return name == t.Hash.Name || (t.Range != nil && name == t.Range.Name)
}

// CheckKeyValues applies attr.ValidateKeyValue to each key attribute of it
// (type, emptiness, size), partition key first.
func (t *Table) CheckKeyValues(it attr.Item) error {
	for i, ka := range t.KeyAttrs() {
		if err := attr.ValidateKeyValue(ka.Name, it[ka.Name], ka.Type, i == 0); err != nil {
			return err
		}
	}
	return nil
}
