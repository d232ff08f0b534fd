package partiqlexec

import (
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/partiql"
)

// PartiQL statements are lowered onto the JSON API: each becomes the
// wire input of the operation DynamoDB itself maps it to (GetItem-like
// reads, Query, Scan, PutItem, UpdateItem, DeleteItem, or a transaction
// action), with its conditions and updates rendered as DynamoDB
// expressions over #name/:value placeholders. The engine's one
// implementation of item semantics then does the rest.

// PartiQL messages (DynamoDB's texts).
const (
	msgPQIncompleteKey = "Where clause does not contain a mandatory equality on all key attributes"
	msgPQParamCount    = "Number of parameters in request and statement don't match."
	msgPQMissing       = "MISSING must be compared using IS operator"
	msgPQISOperand     = "The left hand side argument to IS must be a Variable Reference, Literal, or Path"
	msgPQEmptyBag      = "Empty bags are not supported"
	msgPQBagType       = "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"
	msgPQInsertItem    = "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."
	msgPQOrderBy       = "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
)

// exprBuilder renders PartiQL expressions as DynamoDB expression text,
// collecting the placeholder maps.
type exprBuilder struct {
	st     *partiql.Statement // the statement, whose text positions index
	params []attr.Value
	names  map[string]string // placeholder → name
	byName map[string]string // name → placeholder
	values attr.Item
}

func newExprBuilder(st *partiql.Statement, params []attr.Value) *exprBuilder {
	return &exprBuilder{st: st, params: params}
}

// namesOrNil and valuesOrNil are the maps as request members.
func (b *exprBuilder) namesOrNil() map[string]string {
	if len(b.names) == 0 {
		return nil
	}
	return b.names
}

func (b *exprBuilder) valuesOrNil() attr.Item {
	if len(b.values) == 0 {
		return nil
	}
	return b.values
}

// name is the placeholder of an attribute name.
func (b *exprBuilder) name(n string) string {
	if ph, ok := b.byName[n]; ok {
		return ph
	}
	if b.names == nil {
		b.names, b.byName = map[string]string{}, map[string]string{}
	}
	ph := "#n" + strconv.Itoa(len(b.names))
	b.names[ph], b.byName[n] = n, ph
	return ph
}

// value is the placeholder of a value.
func (b *exprBuilder) value(v attr.Value) string {
	if b.values == nil {
		b.values = attr.Item{}
	}
	ph := ":v" + strconv.Itoa(len(b.values))
	b.values[ph] = v
	return ph
}

func (b *exprBuilder) path(p partiql.Path) string {
	var s strings.Builder
	for i, e := range p {
		if e.Index >= 0 {
			s.WriteString("[" + strconv.Itoa(e.Index) + "]")
			continue
		}
		if i > 0 {
			s.WriteByte('.')
		}
		s.WriteString(b.name(e.Name))
	}
	return s.String()
}

// literal evaluates a constant expression (literals, parameters).
func (b *exprBuilder) literal(e partiql.Expr) (attr.Value, error) {
	return b.literalAt(e, "root")
}

// literalAt is literal for a value at path at inside an attribute's value
// ("root", "root.x", "root[1]"), which DynamoDB names when a number breaks
// its rules; at is "" for an INSERT's item, whose members are attributes.
func (b *exprBuilder) literalAt(e partiql.Expr, at string) (attr.Value, error) {
	switch x := e.(type) {
	case *partiql.Param:
		if x.Index >= len(b.params) {
			return attr.Value{}, ddberr.Validation(msgPQParamCount)
		}
		return b.params[x.Index], nil
	case *partiql.Str:
		return attr.Value{T: attr.S, Str: x.S}, nil
	case *partiql.Num:
		n, err := attr.CanonicalNumber(x.Text)
		if err != nil {
			return attr.Value{}, ddberr.Validation(err.Error() + " under " + at)
		}
		return attr.Value{T: attr.N, Str: n}, nil
	case *partiql.Bool:
		return attr.Value{T: attr.BOOL, Bool: x.V}, nil
	case *partiql.Null:
		return attr.Value{T: attr.NULL, Bool: true}, nil
	case *partiql.Missing:
		return attr.Value{}, ddberr.Validation(msgPQMissing)
	case *partiql.Struct:
		m := make(map[string]attr.Value, len(x.Keys))
		for i, k := range x.Keys {
			in := at + "." + k
			if at == "" {
				in = "root"
			}
			v, err := b.literalAt(x.Vals[i], in)
			if err != nil {
				return attr.Value{}, err
			}
			m[k] = v
		}
		return attr.Value{T: attr.M, Map: m}, nil
	case *partiql.List:
		l := make([]attr.Value, 0, len(x.Elems))
		for i, el := range x.Elems {
			v, err := b.literalAt(el, at+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return attr.Value{}, err
			}
			l = append(l, v)
		}
		return attr.Value{T: attr.L, List: l}, nil
	case *partiql.Bag:
		return b.bag(x, at)
	case *partiql.Call:
		// A function where a value must stand ('set_add' in an INSERT's
		// item; a public conformance suite run against DynamoDB, us-east-1
		// and eu-west-2, 2026-10).
		return attr.Value{}, ddberr.Validation("Unsupported data type: " + x.Name + " under key " + at + b.st.At(x.At))
	}
	return attr.Value{}, ddberr.Validation("Unsupported operation: expected a value")
}

// bag turns <<...>> into a string or number set.
func (b *exprBuilder) bag(x *partiql.Bag, at string) (attr.Value, error) {
	if len(x.Elems) == 0 {
		return attr.Value{}, ddberr.Validation(msgPQEmptyBag)
	}
	var out attr.Value
	for i, el := range x.Elems {
		v, err := b.literalAt(el, at)
		if err != nil {
			return attr.Value{}, err
		}
		if v.T != attr.S && v.T != attr.N || i > 0 && (v.T == attr.S) != (out.T == attr.SS) {
			return attr.Value{}, ddberr.Validation(msgPQBagType)
		}
		if v.T == attr.S {
			out.T = attr.SS
		} else {
			out.T = attr.NS
		}
		out.Strs = append(out.Strs, v.Str)
	}
	if err := attr.Validate(out); err != nil {
		return attr.Value{}, err
	}
	attr.SortSet(&out)
	return out, nil
}

// operand renders a value-producing expression: a path, a constant, a
// function call (size, list_append, if_not_exists) or a + b / a - b.
func (b *exprBuilder) operand(e partiql.Expr) (string, error) {
	switch x := e.(type) {
	case *partiql.PathRef:
		return b.path(x.Path), nil
	case *partiql.Call:
		return b.call(x)
	case *partiql.Binary:
		if x.Op == "+" || x.Op == "-" {
			l, err := b.operand(x.L)
			if err != nil {
				return "", err
			}
			r, err := b.operand(x.R)
			if err != nil {
				return "", err
			}
			return l + " " + x.Op + " " + r, nil
		}
		return "", ddberr.Validationf("Unsupported operator in Update Expression. Operator: %s", x.Op)
	}
	v, err := b.literal(e)
	if err != nil {
		return "", err
	}
	return b.value(v), nil
}

// call renders a function call with its arguments.
func (b *exprBuilder) call(c *partiql.Call) (string, error) {
	if name := strings.ToLower(c.Name); len(c.Args) == 0 && (pqConditionFunctions[name] || name == "size") {
		// The expression grammar reads f() as a syntax error; DynamoDB's
		// PartiQL counts the operands (a suite run against it, October 2026).
		return "", ddberr.Validationf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: 0", c.Name)
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		s, err := b.operand(a)
		if err != nil {
			return "", err
		}
		args[i] = s
	}
	return c.Name + "(" + strings.Join(args, ", ") + ")", nil
}

// Condition precedence levels, loosest first: parentheses are written
// only where the context binds tighter (DynamoDB rejects redundant ones).
const (
	precOr = iota + 1
	precAnd
	precNot
)

// condP renders a condition in a context of precedence prec.
func (b *exprBuilder) condP(e partiql.Expr, prec int) (string, error) {
	switch x := e.(type) {
	case *partiql.Binary:
		switch x.Op {
		case "AND", "OR":
			own := precOr
			if x.Op == "AND" {
				own = precAnd
			}
			l, err := b.condP(x.L, own)
			if err != nil {
				return "", err
			}
			r, err := b.condP(x.R, own)
			if err != nil {
				return "", err
			}
			s := l + " " + x.Op + " " + r
			if own < prec {
				s = "(" + s + ")"
			}
			return s, nil
		case "+", "-":
			return "", ddberr.Validation("WHERE clause must contain an expression that resolves to a boolean")
		case "=", "<>":
			if c, ok := boolComparedCondition(x); ok {
				return b.condP(c, prec)
			}
		}
		l, err := b.operand(x.L)
		if err != nil {
			return "", err
		}
		r, err := b.operand(x.R)
		if err != nil {
			return "", err
		}
		return l + " " + x.Op + " " + r, nil
	case *partiql.Not:
		s, err := b.condP(x.X, precNot)
		return "NOT " + s, err
	case *partiql.Between:
		ops, err := b.operands(x.X, x.Lo, x.Hi)
		if err != nil {
			return "", err
		}
		return ops[0] + " BETWEEN " + ops[1] + " AND " + ops[2], nil
	case *partiql.In:
		ops, err := b.operands(append([]partiql.Expr{x.X}, x.List...)...)
		if err != nil {
			return "", err
		}
		return ops[0] + " IN (" + strings.Join(ops[1:], ", ") + ")", nil
	case *partiql.Is:
		pr, ok := x.X.(*partiql.PathRef)
		if !ok {
			return "", ddberr.Validation(msgPQISOperand)
		}
		p := b.path(pr.Path)
		var s string
		switch {
		case x.What == "MISSING" && !x.Not:
			s = "attribute_not_exists(" + p + ")"
		case x.What == "MISSING":
			s = "attribute_exists(" + p + ")"
		default:
			typ := "NULL"
			if t, ok := partiql.IsTypes[x.What]; ok {
				typ = t
			}
			s = "attribute_type(" + p + ", " + b.value(attr.Value{T: attr.S, Str: typ}) + ")"
			if x.Not {
				s = "NOT " + s
			}
		}
		return s, nil
	case *partiql.Call:
		return b.call(x)
	}
	return "", ddberr.Validation("WHERE clause must contain an expression that resolves to a boolean")
}

// boolComparedCondition reads a condition function compared with a
// boolean literal ('attribute_exists(ss) = true', which DynamoDB runs as
// the function itself; a suite run against it, four regions, October
// 2026) as the function, negated for '= false' and '<> true'.
func boolComparedCondition(x *partiql.Binary) (partiql.Expr, bool) {
	call, lit := x.L, x.R
	if _, isBool := call.(*partiql.Bool); isBool {
		call, lit = x.R, x.L
	}
	c, ok := call.(*partiql.Call)
	v, isBool := lit.(*partiql.Bool)
	if !ok || !isBool || !pqConditionFunctions[strings.ToLower(c.Name)] {
		return nil, false
	}
	if v.V == (x.Op == "=") {
		return c, true
	}
	return &partiql.Not{X: c}, true
}

// pqConditionFunctions are the functions that are conditions themselves
// (size, the other function a PartiQL condition may call, is an operand).
var pqConditionFunctions = map[string]bool{"attribute_exists": true, "attribute_not_exists": true,
	"attribute_type": true, "begins_with": true, "contains": true}

func (b *exprBuilder) operands(es ...partiql.Expr) ([]string, error) {
	out := make([]string, len(es))
	for i, e := range es {
		s, err := b.operand(e)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// andAll renders conjuncts joined by AND ("" when there are none).
func (b *exprBuilder) andAll(conds []partiql.Expr) (string, error) {
	parts := make([]string, 0, len(conds))
	for _, c := range conds {
		s, err := b.condP(c, precAnd)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " AND "), nil
}

// conjuncts flattens a WHERE clause's top-level ANDs.
func conjuncts(e partiql.Expr, out []partiql.Expr) []partiql.Expr {
	if x, ok := e.(*partiql.Binary); ok && x.Op == "AND" {
		return conjuncts(x.R, conjuncts(x.L, out))
	}
	if e == nil {
		return out
	}
	return append(out, e)
}

// keyEquality reports whether c is `attr = constant` (either way round)
// on a top-level attribute, returning the name and the constant.
func keyEquality(c partiql.Expr) (string, partiql.Expr, bool) {
	x, ok := c.(*partiql.Binary)
	if !ok || x.Op != "=" {
		return "", nil, false
	}
	l, r := x.L, x.R
	if _, ok := l.(*partiql.PathRef); !ok {
		l, r = r, l
	}
	pr, ok := l.(*partiql.PathRef)
	if !ok || len(pr.Path) != 1 || pr.Path[0].Index >= 0 || !isConstant(r) {
		return "", nil, false
	}
	return pr.Path[0].Name, r, true
}

// isConstant reports whether e is a literal or a parameter.
func isConstant(e partiql.Expr) bool {
	switch e.(type) {
	case *partiql.PathRef, *partiql.Call, *partiql.Binary, *partiql.Not, *partiql.Between, *partiql.In, *partiql.Is:
		return false
	}
	return true
}

// fullKey extracts the table's whole primary key from a WHERE clause's
// equalities; the other conjuncts come back as the rest. It fails with
// DynamoDB's "mandatory equality" text when a key attribute is missing.
func (b *exprBuilder) fullKey(t *change.Table, where partiql.Expr) (attr.Item, []partiql.Expr, error) {
	key := attr.Item{}
	var rest []partiql.Expr
	for _, c := range conjuncts(where, nil) {
		if name, v, ok := keyEquality(c); ok && isKeyAttr(t, name) {
			if _, dup := key[name]; !dup {
				val, err := b.literal(v)
				if err != nil {
					return nil, nil, err
				}
				key[name] = val
				continue
			}
			return nil, nil, ddberr.Validationf("Multiple conditions on same key %s. Only single item Update/Insert/Delete are supported", name)
		}
		rest = append(rest, c)
	}
	for _, ka := range keyAttrs(t) {
		if _, ok := key[ka.Name]; !ok {
			return nil, nil, ddberr.Validation(msgPQIncompleteKey)
		}
	}
	return key, rest, nil
}

// checkParams rejects a parameter count that differs from the statement's.
func checkParams(st *partiql.Statement, params []attr.Value) error {
	if st.Params != len(params) {
		return ddberr.Validation(msgPQParamCount)
	}
	return nil
}
