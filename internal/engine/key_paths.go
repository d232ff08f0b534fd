package engine

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
)

// Key attributes are scalars: DynamoDB refuses an expression that reaches
// into one with '.' or '[]', whether it is a table key (Key: name) or the
// key of any of the table's secondary indexes (IndexKey: name), before it
// reads anything.
const msgKeyScalar = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "

// checkScalarKeyPaths applies that rule to every document path of an
// operation's expressions (any may be nil); table keys are reported before
// index keys. It walks the expressions without allocating: it runs on
// every item operation.
func (t *Table) checkScalarKeyPaths(cond *expr.Condition, proj *expr.Projection, upd *expr.Update) error {
	k := keyPathCheck{t: t}
	k.condition(cond)
	if proj != nil {
		for _, p := range proj.Paths {
			k.path(p)
		}
	}
	if upd != nil {
		for _, a := range upd.Actions {
			k.path(a.Path)
			k.operand(a.Value)
		}
	}
	switch {
	case k.tableKey != "":
		return ddberr.Validation(msgKeyScalar + "Key: " + k.tableKey)
	case k.indexKey != "":
		return ddberr.Validation(msgKeyScalar + "IndexKey: " + k.indexKey)
	}
	return nil
}

// keyPathCheck collects the first table key and the first index key
// attribute some path reaches into.
type keyPathCheck struct {
	t                  *Table
	tableKey, indexKey string
}

func (k *keyPathCheck) path(p expr.Path) {
	if len(p) < 2 {
		return
	}
	switch n := p[0].Name; {
	case k.tableKey == "" && k.t.isKeyAttr(n):
		k.tableKey = n
	case k.indexKey == "" && k.t.isIndexKeyAttr(n):
		k.indexKey = n
	}
}

func (k *keyPathCheck) operand(o *expr.Operand) {
	if o == nil {
		return
	}
	if o.Kind == expr.OperandPath {
		k.path(o.Path)
	}
	for _, a := range o.Args {
		k.operand(a)
	}
}

func (k *keyPathCheck) condition(c *expr.Condition) {
	if c == nil {
		return
	}
	for _, o := range c.Operands {
		k.operand(o)
	}
	for _, s := range c.Sub {
		k.condition(s)
	}
}

// isIndexKeyAttr reports whether name is a key attribute of one of the
// table's GSIs or LSIs.
func (t *Table) isIndexKeyAttr(name string) bool {
	for _, ix := range t.GSIs {
		if ix.IsKeyAttr(name) {
			return true
		}
	}
	for _, ix := range t.LSIs {
		if ix.IsKeyAttr(name) {
			return true
		}
	}
	return false
}
