package partiql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is a statement's kind.
type Kind uint8

// Statement kinds.
const (
	Select Kind = iota + 1
	Insert
	Update
	Delete
	Exists // EXISTS(SELECT ...), a condition check inside ExecuteTransaction
)

// Statement is one parsed PartiQL statement.
type Statement struct {
	Kind  Kind
	Table string
	Index string // "table"."index" in SELECT (or UPDATE/DELETE, which the engine refuses); "" otherwise
	// Projection is the SELECT list; nil means *.
	Projection []Path
	// ProjectionFault is the refusal of a SELECT list item that is not a
	// path (a function call), which DynamoDB reports once the table is
	// known; nil when every item is a path.
	ProjectionFault error
	Where           Expr // nil when absent
	// OrderDesc is set by ORDER BY <key> DESC; OrderBy names the key.
	OrderBy   *Path
	OrderDesc bool
	Value     Expr     // INSERT: the item (a *Struct or a *Param)
	Sets      []Assign // UPDATE SET, in order
	Removes   []Path   // UPDATE REMOVE, in order
	// Returning is the RETURNING clause: "ALL OLD", "MODIFIED OLD",
	// "ALL NEW", "MODIFIED NEW", or "".
	Returning string
	// Params is the number of ? parameters, numbered left to right.
	Params int
	// Src is the statement's text, which the Spans of its nodes index.
	Src string
}

// Span is where a token stands in a statement's text: bytes [Off, End).
type Span struct{ Off, End int }

// At renders where span stands in the statement as DynamoDB appends it to
// some refusals: " at <line>:<column>:<length>", line and column counted in
// characters from 1 and the length the token's as written ("set_add" is 7;
// a public conformance suite run against DynamoDB, us-east-1 and
// eu-west-2, 2026-10).
func (st *Statement) At(span Span) string { return at(st.Src, span) }

func at(src string, span Span) string {
	off, end := min(max(span.Off, 0), len(src)), min(max(span.End, 0), len(src))
	end = max(end, off)
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	col := utf8.RuneCountInString(src[start:off]) + 1
	return " at " + strconv.Itoa(line) + ":" + strconv.Itoa(col) + ":" + strconv.Itoa(utf8.RuneCountInString(src[off:end]))
}

// Assign is one SET path = value of an UPDATE.
type Assign struct {
	Path  Path
	Value Expr
}

// PathElem is a path step: a name (Index < 0) or a list index.
type PathElem struct {
	Name  string
	Index int
}

// Path is an attribute path: a name followed by names and list indexes.
type Path []PathElem

// String renders the path in PartiQL form.
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e.Index >= 0:
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
		case i == 0:
			b.WriteString(e.Name)
		default:
			b.WriteString("." + e.Name)
		}
	}
	return b.String()
}

// Expr is an expression node: one of the types below.
type Expr interface{ expr() }

// Binary is L Op R for Op in =, <>, <, <=, >, >=, AND, OR, +, -.
type Binary struct {
	Op   string
	L, R Expr
}

// Not is NOT X.
type Not struct{ X Expr }

// Between is X BETWEEN Lo AND Hi.
type Between struct{ X, Lo, Hi Expr }

// In is X IN (List...) or X IN [List...].
type In struct {
	X    Expr
	List []Expr
}

// Is is X IS [NOT] MISSING|NULL|<type>.
type Is struct {
	X    Expr
	Not  bool
	What string // "MISSING", "NULL" or a key of IsTypes
}

// IsTypes maps the PartiQL type names IS tests to DynamoDB's attribute
// types.
var IsTypes = map[string]string{
	"BOOL": "BOOL", "BOOLEAN": "BOOL", "STRING": "S", "NUMBER": "N",
	"DECIMAL": "N", "INT": "N", "INTEGER": "N", "FLOAT": "N",
	"BLOB": "B", "BINARY": "B", "LIST": "L", "STRUCT": "M", "TUPLE": "M",
}

// Call is a function call, Name lower-cased. At is where its name stands,
// ArgAt where each argument's first token does.
type Call struct {
	Name  string
	Args  []Expr
	At    Span
	ArgAt []Span
}

// PathRef is a reference to an attribute.
type PathRef struct{ Path Path }

// Param is the Index-th ? parameter (0-based).
type Param struct{ Index int }

// Str is a string literal.
type Str struct{ S string }

// Num is a number literal as written.
type Num struct{ Text string }

// Bool is TRUE or FALSE.
type Bool struct{ V bool }

// Null is the NULL literal.
type Null struct{}

// Missing is the MISSING literal.
type Missing struct{}

// Struct is a {'k': v, ...} literal.
type Struct struct {
	Keys []string
	Vals []Expr
}

// List is a [v, ...] literal.
type List struct{ Elems []Expr }

// Bag is a <<v, ...>> literal (a DynamoDB set).
type Bag struct{ Elems []Expr }

func (*Binary) expr()  {}
func (*Not) expr()     {}
func (*Between) expr() {}
func (*In) expr()      {}
func (*Is) expr()      {}
func (*Call) expr()    {}
func (*PathRef) expr() {}
func (*Param) expr()   {}
func (*Str) expr()     {}
func (*Num) expr()     {}
func (*Bool) expr()    {}
func (*Null) expr()    {}
func (*Missing) expr() {}
func (*Struct) expr()  {}
func (*List) expr()    {}
func (*Bag) expr()     {}
