package partiql

import (
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
)

// msgDMLFrom is DynamoDB's refusal of an index qualifier on INSERT.
const msgDMLFrom = "FROM clause may only contain a single table name in data manipulation statements"

// maxDepth bounds expression nesting so that hostile input cannot exhaust
// the stack.
const maxDepth = 64

// Parse parses one statement.
func Parse(src string) (*Statement, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, src: src}
	st, err := p.statement()
	if err != nil {
		return nil, err
	}
	if p.peek().kind == tPunct && p.peek().text == ";" {
		p.next()
	}
	if p.peek().kind != tEOF {
		return nil, malformed(msgLeftover)
	}
	st.Params, st.Src = p.params, src
	return st, nil
}

// Texts DynamoDB answers (eu-west-2, October 2026, in a public
// conformance suite): a token left after a complete statement, and a table
// alias on SELECT, UPDATE or DELETE (without the "wasn't well formed"
// envelope).
const (
	msgLeftover = "Unexpected token after expression"
	msgAliasing = "Aliasing is not supported"
)

// msgPathComponent is DynamoDB's refusal of a SELECT list item that is no
// path, followed by its position.
const msgPathComponent = "Unexpected path component"

// alias refuses a table alias ("t" or "AS t") after a statement's table.
func (p *parser) alias() error {
	if t := p.peek(); t.isKeyword("AS") || t.kind == tIdent && !t.keyword() {
		return ddberr.Validation(msgAliasing)
	}
	return nil
}

type parser struct {
	toks   []token
	src    string
	pos    int
	params int
	depth  int
}

func span(t token) Span { return Span{t.pos, t.end} }

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

// accept consumes keyword kw if it is next.
func (p *parser) accept(kw string) bool {
	if p.peek().isKeyword(kw) {
		p.pos++
		return true
	}
	return false
}

// acceptPunct consumes punctuation s if it is next.
func (p *parser) acceptPunct(s string) bool {
	if t := p.peek(); t.kind == tPunct && t.text == s {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(kw string) error {
	if !p.accept(kw) {
		return p.expected(kw)
	}
	return nil
}

func (p *parser) expectPunct(s string) error {
	if !p.acceptPunct(s) {
		return p.expected(s)
	}
	return nil
}

// unexpected describes the next token as unexpected.
func (p *parser) unexpected() error {
	t := p.peek()
	switch {
	case t.kind == tEOF:
		return malformed("Unexpected end of statement")
	case t.keyword():
		return malformed("Unexpected keyword: " + strings.ToUpper(t.text) + " at position " + strconv.Itoa(t.pos+1))
	default:
		return malformed("Unexpected token: " + t.text + " at position " + strconv.Itoa(t.pos+1))
	}
}

func (p *parser) expected(what string) error {
	t := p.peek()
	if t.kind == tEOF {
		return malformed("Expected " + what + " but found end of statement")
	}
	return malformed("Expected " + what + " at position " + strconv.Itoa(t.pos+1))
}

func (p *parser) statement() (*Statement, error) {
	switch t := p.peek(); {
	case t.isKeyword("SELECT"):
		return p.selectStmt()
	case t.isKeyword("INSERT"):
		return p.insertStmt()
	case t.isKeyword("UPDATE"):
		return p.updateStmt()
	case t.isKeyword("DELETE"):
		return p.deleteStmt()
	case t.isKeyword("FROM"):
		return p.fromFirstUpdate()
	case t.isKeyword("EXISTS"):
		p.next()
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		if !p.peek().isKeyword("SELECT") {
			return nil, p.expected("SELECT")
		}
		st, err := p.selectStmt()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		st.Kind = Exists
		return st, nil
	}
	return nil, malformed("Expected data manipulation")
}

func (p *parser) selectStmt() (*Statement, error) {
	p.next() // SELECT
	st := &Statement{Kind: Select}
	if !p.acceptPunct("*") {
		for {
			if p.callAhead() {
				// DynamoDB selects paths only: 'SELECT attribute_exists(ss)'
				// is refused, though after the table is known (a public
				// conformance suite run against DynamoDB, us-east-1 and
				// eu-west-2, 2026-10: a multi-attribute index key is
				// refused ahead of 'SELECT COUNT(*)').
				if st.ProjectionFault == nil {
					st.ProjectionFault = ddberr.Validation(msgPathComponent + at(p.src, span(p.peek())))
				}
				if err := p.skipCall(); err != nil {
					return nil, err
				}
			} else {
				path, err := p.path()
				if err != nil {
					return nil, err
				}
				st.Projection = append(st.Projection, path)
			}
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if err := p.expect("FROM"); err != nil {
		return nil, err
	}
	var err error
	if st.Table, err = p.name(); err != nil {
		return nil, err
	}
	hasIndex := p.acceptPunct(".")
	if hasIndex {
		if st.Index, err = p.name(); err != nil {
			return nil, err
		}
		if p.acceptPunct(".") {
			return nil, ddberr.Validation("A path may contain at most 2 components in the FROM clause")
		}
	}
	if st.Table == "" || (hasIndex && st.Index == "") {
		return nil, ddberr.Validation("Path component cannot be an empty string")
	}
	if err := p.alias(); err != nil {
		return nil, err
	}
	if p.accept("WHERE") {
		if st.Where, err = p.where(); err != nil {
			return nil, err
		}
	}
	if p.accept("ORDER") {
		if err := p.expect("BY"); err != nil {
			return nil, err
		}
		path, err := p.path()
		if err != nil {
			return nil, err
		}
		st.OrderBy = &path
		if p.accept("DESC") {
			st.OrderDesc = true
		} else {
			p.accept("ASC")
		}
	}
	return st, nil
}

func (p *parser) insertStmt() (*Statement, error) {
	p.next() // INSERT
	if err := p.expect("INTO"); err != nil {
		return nil, err
	}
	st := &Statement{Kind: Insert}
	var err error
	table := p.peek()
	if st.Table, err = p.name(); err != nil {
		return nil, err
	}
	if p.acceptPunct(".") {
		// DynamoDB refuses an index qualifier on INSERT at parse time (on
		// UPDATE and DELETE it is parsed, then refused), at the table name
		// (eu-west-2, 2026-08-15, captured by another emulator's authors).
		return nil, ddberr.Validation(msgDMLFrom + at(p.src, span(table)))
	}
	if t := p.peek(); t.kind == tIdent && !t.keyword() {
		// An alias here reads as a token after the table expression.
		return nil, malformed(msgLeftover)
	}
	if p.peek().isKeyword("VALUES") {
		return nil, malformed(`Unsupported operation: Inserting multiple items in a single statement is not supported, use "INSERT INTO tableName VALUE item" instead`)
	}
	if err := p.expect("VALUE"); err != nil {
		return nil, err
	}
	if st.Value, err = p.expr(); err != nil {
		return nil, err
	}
	return st, nil
}

func (p *parser) updateStmt() (*Statement, error) {
	p.next() // UPDATE
	st := &Statement{Kind: Update}
	if err := p.target(st); err != nil {
		return nil, err
	}
	var err error
	if err := p.assignments(st); err != nil {
		return nil, err
	}
	if p.accept("WHERE") {
		if st.Where, err = p.where(); err != nil {
			return nil, err
		}
	}
	return st, p.returning(st)
}

// target parses a statement's table, an optional .index, and refuses an
// alias after them.
func (p *parser) target(st *Statement) error {
	var err error
	if st.Table, err = p.name(); err != nil {
		return err
	}
	if p.acceptPunct(".") {
		if st.Index, err = p.name(); err != nil {
			return err
		}
	}
	return p.alias()
}

// fromFirstUpdate parses PartiQL's FROM-first UPDATE: FROM table WHERE
// condition, then SET and REMOVE clauses and an optional RETURNING
// (DynamoDB runs it as the UPDATE of the item the WHERE names; a suite run
// against it, four regions, October 2026).
func (p *parser) fromFirstUpdate() (*Statement, error) {
	p.next() // FROM
	st := &Statement{Kind: Update}
	if err := p.target(st); err != nil {
		return nil, err
	}
	var err error
	if err := p.expect("WHERE"); err != nil {
		return nil, err
	}
	if st.Where, err = p.where(); err != nil {
		return nil, err
	}
	if err := p.assignments(st); err != nil {
		return nil, err
	}
	return st, p.returning(st)
}

// assignments parses SET and REMOVE clauses, in any order and number, at
// least one.
func (p *parser) assignments(st *Statement) error {
	for {
		switch {
		case p.accept("SET"):
			for {
				path, err := p.path()
				if err != nil {
					return err
				}
				if err := p.expectPunct("="); err != nil {
					return err
				}
				v, err := p.additive()
				if err != nil {
					return err
				}
				st.Sets = append(st.Sets, Assign{Path: path, Value: v})
				if !p.acceptPunct(",") {
					break
				}
			}
			continue
		case p.accept("REMOVE"):
			for {
				path, err := p.path()
				if err != nil {
					return err
				}
				st.Removes = append(st.Removes, path)
				if !p.acceptPunct(",") {
					break
				}
			}
			continue
		}
		if len(st.Sets) == 0 && len(st.Removes) == 0 {
			return p.expected("SET or REMOVE")
		}
		return nil
	}
}

func (p *parser) deleteStmt() (*Statement, error) {
	p.next() // DELETE
	if err := p.expect("FROM"); err != nil {
		return nil, err
	}
	st := &Statement{Kind: Delete}
	if err := p.target(st); err != nil {
		return nil, err
	}
	var err error
	if p.accept("WHERE") {
		if st.Where, err = p.where(); err != nil {
			return nil, err
		}
	}
	return st, p.returning(st)
}

// msgUnexpectedTerm is DynamoDB's refusal of a statement that ends right
// after WHERE (a public conformance suite run against DynamoDB, us-east-1
// and eu-west-2, 2026-10); PartiQL's reference parser words so a missing
// term.
const msgUnexpectedTerm = "Unexpected term"

// where parses a WHERE clause's condition, WHERE consumed.
func (p *parser) where() (Expr, error) {
	if p.peek().kind == tEOF {
		return nil, malformed(msgUnexpectedTerm)
	}
	return p.expr()
}

// returning parses RETURNING (ALL|MODIFIED) (OLD|NEW) *.
func (p *parser) returning(st *Statement) error {
	if !p.accept("RETURNING") {
		return nil
	}
	var which, when string
	switch {
	case p.accept("ALL"):
		which = "ALL"
	case p.accept("MODIFIED"):
		which = "MODIFIED"
	default:
		return p.expected("ALL or MODIFIED")
	}
	switch {
	case p.accept("OLD"):
		when = "OLD"
	case p.accept("NEW"):
		when = "NEW"
	default:
		return p.expected("OLD or NEW")
	}
	if !p.acceptPunct("*") {
		return malformed("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause")
	}
	st.Returning = which + " " + when
	return nil
}

// name is a table or index name: a bare or quoted identifier.
func (p *parser) name() (string, error) {
	t := p.peek()
	switch {
	case t.kind == tQuoted:
		p.next()
		return t.text, nil
	case t.kind == tIdent && !t.keyword():
		p.next()
		return t.text, nil
	}
	return "", p.expected("identifier")
}

// path is name { .name | [n] | ['name'] }.
func (p *parser) path() (Path, error) {
	first, err := p.name()
	if err != nil {
		return nil, err
	}
	return p.pathRest(Path{{Name: first, Index: -1}})
}

func (p *parser) pathRest(path Path) (Path, error) {
	for {
		switch {
		case p.acceptPunct("."):
			n, err := p.dotName()
			if err != nil {
				return nil, err
			}
			path = append(path, PathElem{Name: n, Index: -1})
		case p.acceptPunct("["):
			t := p.next()
			switch t.kind {
			case tNumber:
				n, err := strconv.Atoi(t.text)
				if err != nil || n < 0 {
					return nil, malformed("Invalid list index: " + t.text)
				}
				path = append(path, PathElem{Index: n})
			case tString:
				path = append(path, PathElem{Name: t.text, Index: -1})
			default:
				p.pos--
				return nil, p.expected("list index")
			}
			if err := p.expectPunct("]"); err != nil {
				return nil, err
			}
		default:
			return path, nil
		}
	}
}

// msgDotComponent is DynamoDB's refusal of a path step after a dot that is
// no name: PartiQL's reference parser takes a bare or quoted identifier
// there, and a keyword is neither ('m.inner'; a public conformance suite run
// against DynamoDB, us-east-1 and eu-west-2, 2026-10).
const msgDotComponent = "Invalid path dot component"

// dotName is the name after a path's dot.
func (p *parser) dotName() (string, error) {
	t := p.peek()
	star := t.kind == tPunct && t.text == "*" // a wildcard step, refused as before
	if t.pathKeyword() || t.kind != tIdent && t.kind != tQuoted && !star {
		return "", malformed(msgDotComponent)
	}
	return p.name()
}

// Expressions, loosest first: OR, AND, NOT, predicates, + -, primaries.

func (p *parser) expr() (Expr, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, malformed("Expression nesting too deep")
	}
	defer func() { p.depth-- }()
	return p.or()
}

func (p *parser) or() (Expr, error) {
	l, err := p.and()
	for err == nil && p.accept("OR") {
		var r Expr
		if r, err = p.and(); err == nil {
			l = &Binary{Op: "OR", L: l, R: r}
		}
	}
	return l, err
}

func (p *parser) and() (Expr, error) {
	l, err := p.not()
	for err == nil && p.accept("AND") {
		var r Expr
		if r, err = p.not(); err == nil {
			l = &Binary{Op: "AND", L: l, R: r}
		}
	}
	return l, err
}

func (p *parser) not() (Expr, error) {
	if p.accept("NOT") {
		if p.depth++; p.depth > maxDepth {
			return nil, malformed("Expression nesting too deep")
		}
		defer func() { p.depth-- }()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &Not{X: x}, nil
	}
	return p.predicate()
}

var comparisons = map[string]string{"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

func (p *parser) predicate() (Expr, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if op, ok := comparisons[t.text]; ok && t.kind == tPunct {
		p.next()
		r, err := p.additive()
		if err != nil {
			return nil, err
		}
		return &Binary{Op: op, L: l, R: r}, nil
	}
	negated := false
	if t.isKeyword("NOT") && (p.toks[p.pos+1].isKeyword("BETWEEN") || p.toks[p.pos+1].isKeyword("IN")) {
		p.next()
		negated = true
	}
	var out Expr
	switch {
	case p.accept("BETWEEN"):
		lo, err := p.additive()
		if err != nil {
			return nil, err
		}
		if err := p.expect("AND"); err != nil {
			return nil, err
		}
		hi, err := p.additive()
		if err != nil {
			return nil, err
		}
		out = &Between{X: l, Lo: lo, Hi: hi}
	case p.accept("IN"):
		closer := ")"
		if p.acceptPunct("[") {
			closer = "]"
		} else if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		in := &In{X: l}
		for {
			v, err := p.additive()
			if err != nil {
				return nil, err
			}
			in.List = append(in.List, v)
			if !p.acceptPunct(",") {
				break
			}
		}
		if err := p.expectPunct(closer); err != nil {
			return nil, err
		}
		out = in
	case p.accept("IS"):
		is := &Is{X: l, Not: p.accept("NOT")}
		switch t := p.peek(); {
		case p.accept("MISSING"):
			is.What = "MISSING"
		case p.accept("NULL"):
			is.What = "NULL"
		case t.kind == tIdent && IsTypes[strings.ToUpper(t.text)] != "":
			// A type test ('flag IS BOOL'; DynamoDB runs it as a filter, a
			// suite run against it, four regions, October 2026).
			p.next()
			is.What = strings.ToUpper(t.text)
		default:
			return nil, p.expected("MISSING or NULL")
		}
		return is, nil
	default:
		return l, nil
	}
	if negated {
		return &Not{X: out}, nil
	}
	return out, nil
}

func (p *parser) additive() (Expr, error) {
	l, err := p.primary()
	for err == nil {
		t := p.peek()
		if t.kind != tPunct || (t.text != "+" && t.text != "-") {
			break
		}
		p.next()
		var r Expr
		if r, err = p.primary(); err == nil {
			l = &Binary{Op: t.text, L: l, R: r}
		}
	}
	return l, err
}

func (p *parser) primary() (Expr, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, malformed("Expression nesting too deep")
	}
	defer func() { p.depth-- }()
	t := p.peek()
	switch t.kind {
	case tParam:
		p.next()
		p.params++
		return &Param{Index: p.params - 1}, nil
	case tString:
		p.next()
		return &Str{S: t.text}, nil
	case tNumber:
		p.next()
		return &Num{Text: t.text}, nil
	case tQuoted:
		path, err := p.path()
		return &PathRef{Path: path}, err
	case tIdent:
		switch up := strings.ToUpper(t.text); {
		case up == "TRUE" || up == "FALSE":
			p.next()
			return &Bool{V: up == "TRUE"}, nil
		case up == "NULL":
			p.next()
			return &Null{}, nil
		case up == "MISSING":
			p.next()
			return &Missing{}, nil
		case p.callAhead():
			return p.call()
		case t.keyword():
			return nil, p.unexpected()
		}
		path, err := p.path()
		return &PathRef{Path: path}, err
	case tPunct:
		switch t.text {
		case "-":
			p.next()
			if n := p.peek(); n.kind == tNumber {
				p.next()
				return &Num{Text: "-" + n.text}, nil
			}
			return nil, p.unexpected()
		case "(":
			p.next()
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			return x, p.expectPunct(")")
		case "{":
			return p.structLit()
		case "[":
			p.next()
			elems, err := p.elems("]")
			return &List{Elems: elems}, err
		case "<<":
			p.next()
			elems, err := p.elems(">>")
			return &Bag{Elems: elems}, err
		}
	}
	return nil, p.unexpected()
}

// callAhead reports whether a function call comes next: a name and "(".
// EXISTS, a keyword, is a function name too, as in PartiQL ('EXISTS(ss)' in
// a WHERE clause is an unrecognized function to DynamoDB).
func (p *parser) callAhead() bool {
	t, next := p.peek(), p.toks[min(p.pos+1, len(p.toks)-1)]
	return t.kind == tIdent && (!t.keyword() || t.isKeyword("EXISTS")) && next.kind == tPunct && next.text == "("
}

// skipCall reads past a function call, its arguments unread: the name,
// then balanced parentheses.
func (p *parser) skipCall() error {
	p.next() // the name
	for depth := 0; ; {
		t := p.next()
		switch {
		case t.kind == tEOF:
			return malformed("Unexpected end of statement")
		case t.kind == tPunct && t.text == "(":
			depth++
		case t.kind == tPunct && t.text == ")":
			if depth--; depth == 0 {
				return nil
			}
		}
	}
}

func (p *parser) call() (Expr, error) {
	t := p.next()
	p.next() // (
	c := &Call{Name: strings.ToLower(t.text), At: span(t)}
	if p.acceptPunct(")") {
		return c, nil
	}
	for {
		c.ArgAt = append(c.ArgAt, span(p.peek()))
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, a)
		if !p.acceptPunct(",") {
			break
		}
	}
	return c, p.expectPunct(")")
}

// elems parses a comma-separated value list up to closer.
func (p *parser) elems(closer string) ([]Expr, error) {
	var out []Expr
	if p.acceptPunct(closer) {
		return out, nil
	}
	for {
		v, err := p.additive()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.acceptPunct(",") {
			break
		}
	}
	return out, p.expectPunct(closer)
}

func (p *parser) structLit() (Expr, error) {
	p.next() // {
	s := &Struct{}
	if p.acceptPunct("}") {
		return s, nil
	}
	for {
		k := p.next()
		if k.kind != tString && k.kind != tQuoted {
			p.pos--
			return nil, p.expected("string key")
		}
		if err := p.expectPunct(":"); err != nil {
			return nil, err
		}
		v, err := p.additive()
		if err != nil {
			return nil, err
		}
		s.Keys = append(s.Keys, k.text)
		s.Vals = append(s.Vals, v)
		if !p.acceptPunct(",") {
			break
		}
	}
	return s, p.expectPunct("}")
}
