package expr

import (
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/attr"
)

// PathElem is one element of a document path: an attribute or map key name,
// or a list index.
type PathElem struct {
	Name    string // attribute or map key (after Resolve, never a #placeholder)
	Index   int    // list index when IsIndex
	IsIndex bool
	// Placeholder is the #name this element was written as ("" for a bare
	// name or an index). It is kept after Resolve for messages.
	Placeholder string
}

// Path is a document path such as a.b[2].c.
type Path []PathElem

// NamePath returns the one-element path for a top-level attribute.
func NamePath(name string) Path { return Path{{Name: name}} }

// String prints the path in expression syntax (a.b[2]), showing unresolved
// placeholders as written.
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e.IsIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			if e.Name == "" && e.Placeholder != "" {
				b.WriteString(e.Placeholder)
			} else {
				b.WriteString(e.Name)
			}
		}
	}
	return b.String()
}

// listString prints the path as DynamoDB does in messages: [a, b, [2]].
func (p Path) listString() string {
	parts := make([]string, len(p))
	for i, e := range p {
		if e.IsIndex {
			parts[i] = "[" + strconv.Itoa(e.Index) + "]"
		} else {
			parts[i] = e.Name
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// equal reports whether two resolved paths are identical.
func (p Path) equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i].IsIndex != q[i].IsIndex || p[i].Index != q[i].Index || p[i].Name != q[i].Name {
			return false
		}
	}
	return true
}

// OperandKind says what an Operand is.
type OperandKind uint8

// Operand kinds.
const (
	OperandPath  OperandKind = iota // a document path
	OperandValue                    // an ExpressionAttributeValues placeholder or a literal
	OperandCall                     // a function: size, if_not_exists, list_append
	OperandPlus                     // Args[0] + Args[1] (update SET only)
	OperandMinus                    // Args[0] - Args[1] (update SET only)
)

// Operand is a value-producing node.
type Operand struct {
	Kind        OperandKind
	Path        Path       // OperandPath
	Placeholder string     // OperandValue: ":v" as written ("" for a literal)
	Value       attr.Value // OperandValue: the value (set by Resolve)
	Func        string     // OperandCall: function name as written
	Args        []*Operand // OperandCall, OperandPlus, OperandMinus
}

// PathOperand returns a path operand.
func PathOperand(p Path) *Operand { return &Operand{Kind: OperandPath, Path: p} }

// ValueOperand returns a literal (already resolved) value operand.
func ValueOperand(v attr.Value) *Operand { return &Operand{Kind: OperandValue, Value: v} }

// String prints the operand canonically.
func (o *Operand) String() string {
	switch o.Kind {
	case OperandPath:
		return o.Path.String()
	case OperandValue:
		if o.Placeholder != "" {
			return o.Placeholder
		}
		return formatValue(o.Value)
	case OperandCall:
		args := make([]string, len(o.Args))
		for i, a := range o.Args {
			args[i] = a.String()
		}
		return o.Func + "(" + strings.Join(args, ", ") + ")"
	case OperandPlus:
		return o.Args[0].String() + " + " + o.Args[1].String()
	case OperandMinus:
		return o.Args[0].String() + " - " + o.Args[1].String()
	}
	return "?"
}

// Op is a condition operator.
type Op uint8

// Condition operators. The function operators are the condition functions
// of the expression language.
const (
	OpEQ Op = iota
	OpNE
	OpLT
	OpLE
	OpGT
	OpGE
	OpBetween // Operands: value, lower, upper
	OpIn      // Operands: value, candidates...
	OpAnd     // Sub: 2 or more
	OpOr      // Sub: 2 or more
	OpNot     // Sub: 1
	OpAttributeExists
	OpAttributeNotExists
	OpAttributeType
	OpBeginsWith
	OpContains
	opCall // unknown or misused function, only before checks
)

var opNames = [...]string{
	OpEQ: "=", OpNE: "<>", OpLT: "<", OpLE: "<=", OpGT: ">", OpGE: ">=",
	OpBetween: "BETWEEN", OpIn: "IN", OpAnd: "AND", OpOr: "OR", OpNot: "NOT",
	OpAttributeExists: "attribute_exists", OpAttributeNotExists: "attribute_not_exists",
	OpAttributeType: "attribute_type", OpBeginsWith: "begins_with", OpContains: "contains",
	opCall: "call",
}

// String returns the operator as written in expressions.
func (o Op) String() string { return opNames[o] }

var condFuncs = map[string]Op{
	"attribute_exists":     OpAttributeExists,
	"attribute_not_exists": OpAttributeNotExists,
	"attribute_type":       OpAttributeType,
	"begins_with":          OpBeginsWith,
	"contains":             OpContains,
}

// arity of every known function.
var funcArity = map[string]int{
	"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2,
	"begins_with": 2, "contains": 2, "size": 1,
	"if_not_exists": 2, "list_append": 2,
}

// isFunction reports whether the comparison-operator-free node is a function.
func (o Op) isFunction() bool { return o >= OpAttributeExists && o <= opCall }

// Condition is a node of a condition expression (ConditionExpression,
// FilterExpression, KeyConditionExpression, or a converted legacy
// parameter).
type Condition struct {
	Kind     Kind // the expression kind, for messages
	Op       Op
	Func     string     // function name as written (function operators)
	Operands []*Operand // comparisons, BETWEEN, IN, functions
	Sub      []*Condition
}

// String prints the condition canonically, fully parenthesised.
func (c *Condition) String() string {
	var b strings.Builder
	c.write(&b)
	return b.String()
}

func (c *Condition) write(b *strings.Builder) {
	switch {
	case c.Op == OpAnd || c.Op == OpOr:
		b.WriteByte('(')
		for i, s := range c.Sub {
			if i > 0 {
				b.WriteString(" " + c.Op.String() + " ")
			}
			s.write(b)
		}
		b.WriteByte(')')
	case c.Op == OpNot:
		b.WriteString("(NOT ")
		c.Sub[0].write(b)
		b.WriteByte(')')
	case c.Op == OpBetween:
		b.WriteString(c.Operands[0].String() + " BETWEEN " + c.Operands[1].String() + " AND " + c.Operands[2].String())
	case c.Op == OpIn:
		b.WriteString(c.Operands[0].String() + " IN (")
		for i, o := range c.Operands[1:] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(o.String())
		}
		b.WriteByte(')')
	case c.Op.isFunction():
		b.WriteString(c.Func + "(")
		for i, o := range c.Operands {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(o.String())
		}
		b.WriteByte(')')
	default:
		b.WriteString(c.Operands[0].String() + " " + c.Op.String() + " " + c.Operands[1].String())
	}
}

// ActionKind is the clause an update action belongs to.
type ActionKind uint8

// Update clauses.
const (
	ActionSet ActionKind = iota
	ActionRemove
	ActionAdd
	ActionDelete
)

var actionNames = [...]string{"SET", "REMOVE", "ADD", "DELETE"}

// String returns the clause keyword.
func (a ActionKind) String() string { return actionNames[a] }

// Action is one comma-separated element of an update clause.
type Action struct {
	Kind  ActionKind
	Path  Path
	Value *Operand // nil for REMOVE
}

// Update is a parsed UpdateExpression (or converted AttributeUpdates).
type Update struct {
	Actions []Action
	// legacy marks a converted AttributeUpdates, whose ADD also appends
	// lists.
	legacy bool
}

// String prints the update canonically: clauses in SET, REMOVE, ADD,
// DELETE order.
func (u *Update) String() string {
	var parts []string
	for k := ActionSet; k <= ActionDelete; k++ {
		var items []string
		for _, a := range u.Actions {
			if a.Kind != k {
				continue
			}
			switch k {
			case ActionSet:
				items = append(items, a.Path.String()+" = "+a.Value.String())
			case ActionRemove:
				items = append(items, a.Path.String())
			default:
				items = append(items, a.Path.String()+" "+a.Value.String())
			}
		}
		if len(items) > 0 {
			parts = append(parts, k.String()+" "+strings.Join(items, ", "))
		}
	}
	return strings.Join(parts, " ")
}

// Projection is a parsed ProjectionExpression (or converted
// AttributesToGet).
type Projection struct {
	Paths []Path
}

// String prints the projection canonically.
func (p *Projection) String() string {
	parts := make([]string, len(p.Paths))
	for i, q := range p.Paths {
		parts[i] = q.String()
	}
	return strings.Join(parts, ", ")
}
