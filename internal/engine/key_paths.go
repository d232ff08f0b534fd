package engine

import (
	"iter"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
)

// Key attributes are scalars: DynamoDB refuses an expression that reaches
// into one with '.' or '[]', whether it is a table key (Key: name) or the
// key of any of the table's secondary indexes (IndexKey: name), before it
// reads anything.
const msgKeyScalar = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "

// checkScalarKeyPaths applies that rule to every document path of an
// operation's expressions (table keys are reported before index keys).
func (t *Table) checkScalarKeyPaths(paths ...iter.Seq[expr.Path]) error {
	var tableKey, indexKey string
	for _, seq := range paths {
		for p := range seq {
			if len(p) < 2 {
				continue
			}
			switch n := p[0].Name; {
			case tableKey == "" && t.isKeyAttr(n):
				tableKey = n
			case indexKey == "" && t.isIndexKeyAttr(n):
				indexKey = n
			}
		}
	}
	switch {
	case tableKey != "":
		return ddberr.Validation(msgKeyScalar + "Key: " + tableKey)
	case indexKey != "":
		return ddberr.Validation(msgKeyScalar + "IndexKey: " + indexKey)
	}
	return nil
}

// isIndexKeyAttr reports whether name is a key attribute of one of the
// table's GSIs or LSIs.
func (t *Table) isIndexKeyAttr(name string) bool {
	for _, ix := range t.GSIs {
		if ix.isKeyAttr(name) {
			return true
		}
	}
	for _, ix := range t.LSIs {
		if ix.isKeyAttr(name) {
			return true
		}
	}
	return false
}

// conditionPaths yields the document paths of a condition (none for nil).
func conditionPaths(c *expr.Condition) iter.Seq[expr.Path] {
	return func(yield func(expr.Path) bool) {
		if c == nil {
			return
		}
		stop := false
		walkConditionPaths(c, func(p expr.Path) {
			if !stop && !yield(p) {
				stop = true
			}
		})
	}
}

// projectionPaths yields a projection's paths (none for nil).
func projectionPaths(p *expr.Projection) iter.Seq[expr.Path] {
	return func(yield func(expr.Path) bool) {
		if p == nil {
			return
		}
		for _, q := range p.Paths {
			if !yield(q) {
				return
			}
		}
	}
}

// updatePaths yields the paths an update writes and the paths its values
// read (none for nil).
func updatePaths(u *expr.Update) iter.Seq[expr.Path] {
	return func(yield func(expr.Path) bool) {
		if u == nil {
			return
		}
		var operand func(o *expr.Operand) bool
		operand = func(o *expr.Operand) bool {
			if o.Kind == expr.OperandPath && !yield(o.Path) {
				return false
			}
			for _, a := range o.Args {
				if !operand(a) {
					return false
				}
			}
			return true
		}
		for _, a := range u.Actions {
			if !yield(a.Path) || (a.Value != nil && !operand(a.Value)) {
				return
			}
		}
	}
}
