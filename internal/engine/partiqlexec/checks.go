package partiqlexec

import (
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/partiql"
)

// Checks DynamoDB makes on PartiQL statements that its expression API has
// no counterpart for; texts as a public conformance suite records them
// against DynamoDB (2026).

// checkPQOperandTypes refuses an ordering comparison (<, <=, >, >=,
// BETWEEN) with a constant of a type that has no order (BOOL, NULL, maps,
// lists, sets), before the table is looked up.
func checkPQOperandTypes(where partiql.Expr, params []attr.Value) error {
	var bad error
	check := func(op string, es ...partiql.Expr) {
		for _, e := range es {
			if bad != nil {
				return
			}
			if t, ok := pqConstType(e, params); ok && !orderedType(t) {
				bad = ddberr.Validationf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, t)
			}
		}
	}
	var walk func(e partiql.Expr)
	walk = func(e partiql.Expr) {
		switch x := e.(type) {
		case *partiql.Binary:
			switch x.Op {
			case "<", "<=", ">", ">=":
				check(x.Op, x.L, x.R)
			}
			walk(x.L)
			walk(x.R)
		case *partiql.Not:
			walk(x.X)
		case *partiql.Between:
			check("BETWEEN", x.X, x.Lo, x.Hi)
		}
	}
	if where != nil {
		walk(where)
	}
	return bad
}

// checkPQWhereFunctions refuses a call in the WHERE clause to a function
// DynamoDB's conditions do not have (set_add, EXISTS, or any other name
// but the condition functions and size): "Unrecognized function: <name>",
// lower-cased, with the position of its name (a public conformance suite
// run against DynamoDB, us-east-1 and eu-west-2, 2026-10, for set_add and
// EXISTS). The first such call in written order is reported.
func checkPQWhereFunctions(st *partiql.Statement) error {
	var bad error
	pqWalk(st.Where, func(e partiql.Expr) {
		if c, ok := e.(*partiql.Call); ok && bad == nil && !pqConditionFunctions[c.Name] && c.Name != "size" {
			bad = ddberr.Validation("Unrecognized function: " + c.Name + st.At(c.At))
		}
	})
	return bad
}

// pqWalk calls f with e and every expression inside it, in written order.
func pqWalk(e partiql.Expr, f func(partiql.Expr)) {
	if e == nil {
		return
	}
	f(e)
	var kids []partiql.Expr
	switch x := e.(type) {
	case *partiql.Binary:
		kids = []partiql.Expr{x.L, x.R}
	case *partiql.Not:
		kids = []partiql.Expr{x.X}
	case *partiql.Between:
		kids = []partiql.Expr{x.X, x.Lo, x.Hi}
	case *partiql.In:
		kids = append([]partiql.Expr{x.X}, x.List...)
	case *partiql.Is:
		kids = []partiql.Expr{x.X}
	case *partiql.Call:
		kids = x.Args
	case *partiql.Struct:
		kids = x.Vals
	case *partiql.List:
		kids = x.Elems
	case *partiql.Bag:
		kids = x.Elems
	}
	for _, k := range kids {
		pqWalk(k, f)
	}
}

// pqConstType is the attribute type of a constant operand (a parameter or
// a literal); ok is false for anything else.
func pqConstType(e partiql.Expr, params []attr.Value) (attr.Type, bool) {
	switch x := e.(type) {
	case *partiql.Param:
		if x.Index < len(params) {
			return params[x.Index].T, true
		}
	case *partiql.Str:
		return attr.S, true
	case *partiql.Num:
		return attr.N, true
	case *partiql.Bool:
		return attr.BOOL, true
	case *partiql.Null:
		return attr.NULL, true
	case *partiql.Struct:
		return attr.M, true
	case *partiql.List:
		return attr.L, true
	}
	return attr.TypeNone, false
}

func orderedType(t attr.Type) bool { return t == attr.S || t == attr.N || t == attr.B }

// checkPQIndexRead applies a SELECT's rules for the index it names: the
// index must exist (another name, the table's own included, is "The table
// does not have the specified index"), a GSI must project every attribute
// the statement selects, and a read keyed on the index partition key (an
// equality or IN on it among the WHERE clause's top-level conjuncts) may
// filter only on attributes the index projects; unkeyed, the read is a
// scan of the index and such a filter simply matches nothing.
func (p *plan) checkPQIndexRead() (Index, error) {
	// A vector index answers as a Scan of it does (PartiQL reads one as a
	// scan whatever its WHERE clause).
	if err := p.table.CheckScanIndex(p.st.Index); err != nil {
		return Index{}, err
	}
	ix, ok := p.table.Index(p.st.Index)
	if !ok {
		return Index{}, ddberr.Validation("The table does not have the specified index")
	}
	if !ix.Local {
		if missing := unprojected(ix, p.st.Projection); len(missing) > 0 {
			return Index{}, ddberr.InvalidParam("Global secondary index %s does not project [%s]", ix.Name, strings.Join(missing, ", "))
		}
	}
	if !pqKeyedOn(p.st.Where, ix) {
		return ix, nil
	}
	var filtered []partiql.Path
	pqWalkPaths(p.st.Where, func(q partiql.Path) { filtered = append(filtered, q) })
	if missing := unprojected(ix, filtered); len(missing) > 0 {
		return Index{}, ddberr.InvalidParam("Secondary index %s does not project one or more filter attributes: [%s]", ix.Name, strings.Join(missing, ", "))
	}
	return ix, nil
}

// pqKeyedOn reports whether a top-level conjunct of where is an equality or
// IN on a partition key attribute of ix.
func pqKeyedOn(where partiql.Expr, ix Index) bool {
	isHash := func(e partiql.Expr) bool {
		pr, ok := e.(*partiql.PathRef)
		if !ok || len(pr.Path) != 1 {
			return false
		}
		for _, h := range ix.Hashes {
			if h.Name == pr.Path[0].Name {
				return true
			}
		}
		return false
	}
	for _, c := range conjuncts(where, nil) {
		switch x := c.(type) {
		case *partiql.Binary:
			if x.Op == "=" && (isHash(x.L) || isHash(x.R)) {
				return true
			}
		case *partiql.In:
			if isHash(x.X) {
				return true
			}
		}
	}
	return false
}

// unprojected lists, once each and in order, the top-level attributes of
// paths that index ix does not project.
func unprojected(ix Index, paths []partiql.Path) []string {
	var out []string
	for _, q := range paths {
		if len(q) == 0 {
			continue
		}
		if n := q[0].Name; !ix.Projects(n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// pqWalkPaths calls f with every attribute path an expression reads.
func pqWalkPaths(e partiql.Expr, f func(partiql.Path)) {
	switch x := e.(type) {
	case *partiql.PathRef:
		f(x.Path)
	case *partiql.Binary:
		pqWalkPaths(x.L, f)
		pqWalkPaths(x.R, f)
	case *partiql.Not:
		pqWalkPaths(x.X, f)
	case *partiql.Between:
		pqWalkPaths(x.X, f)
		pqWalkPaths(x.Lo, f)
		pqWalkPaths(x.Hi, f)
	case *partiql.In:
		pqWalkPaths(x.X, f)
		for _, v := range x.List {
			pqWalkPaths(v, f)
		}
	case *partiql.Is:
		pqWalkPaths(x.X, f)
	case *partiql.Call:
		for _, a := range x.Args {
			pqWalkPaths(a, f)
		}
	}
}

// checkPQTransactStatement applies ExecuteTransaction's own rules to the
// i-th statement, reported as "Validation failed in TransactStatements[i]".
func checkPQTransactStatement(i int, st *partiql.Statement) error {
	switch {
	case st.Kind == partiql.Select && st.Index != "":
		return ddberr.Validationf("Validation failed in TransactStatements[%d]: Reads on indices are not supported within transactions.", i)
	case st.Returning != "":
		return ddberr.Validationf("Validation failed in TransactStatements[%d]: RETURNING clause is not supported in ExecuteTransaction.", i)
	}
	return nil
}

// pqShapeItem gives a SELECT's row DynamoDB's shape: a selected map path
// (a.b.c) comes back as a top-level attribute named by its last name
// ({"c": ...}), not nested as an expression projection leaves it (a suite
// run against DynamoDB). Paths through list elements keep the nested form.
func pqShapeItem(proj []partiql.Path, it attr.Item) attr.Item {
	flatten := false
	for _, q := range proj {
		flatten = flatten || (len(q) > 1 && pqNamesOnly(q))
	}
	if !flatten || it == nil {
		return it
	}
	out := make(attr.Item, len(proj))
	for _, q := range proj {
		if len(q) == 1 || !pqNamesOnly(q) { // as projected
			if v, ok := it[q[0].Name]; ok {
				out[q[0].Name] = v
			}
			continue
		}
		v, ok := it[q[0].Name]
		for _, e := range q[1:] {
			if !ok || v.T != attr.M {
				ok = false
				break
			}
			v, ok = v.Map[e.Name]
		}
		if ok {
			out[q[len(q)-1].Name] = v
		}
	}
	return out
}

// pqNamesOnly reports whether a path has no list index.
func pqNamesOnly(q partiql.Path) bool {
	for _, e := range q {
		if e.Index >= 0 {
			return false
		}
	}
	return true
}
