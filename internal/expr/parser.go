package expr

import (
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
)

// parser is a recursive-descent parser over a pre-lexed token slice.
type parser struct {
	kind  Kind
	src   string
	toks  []token
	pos   int
	depth int
	ops   int // comparators, BETWEEN, IN, AND, OR and NOT parsed so far
	// parens remembers, by token index, how each parenthesised operand
	// parsed: parsePrimary tries an operand reading at every "(" of a
	// nested condition before reading a condition there, and without this
	// a deeply nested expression would be re-read from each level
	// (quadratic in its length).
	parens    map[int]parenParse
	redundant bool // saw redundant parentheses
	update    bool // update-expression operand grammar (+, -)
	// indexErr is the first list index out of range; it is reported once
	// the text has parsed, so a syntax error anywhere still wins.
	indexErr *ddberr.Error
}

// maxListIndex is the largest list index a document path may hold
// (DynamoDB's limit is Java's int range: a larger index, or one of more
// than ten digits, is refused with msgIndexRange).
const maxListIndex = 1<<31 - 1

// msgIndexRange is DynamoDB's text for a list index out of that range
// ("Invalid ProjectionExpression: List index is not within the allowable
// range; index: [99999999999999]", as three emulators' tests written
// against DynamoDB word it, one for UpdateExpression too).
const msgIndexRange = "List index is not within the allowable range; index: [%s]"

// parsed returns the error a text that parsed still has (indexErr).
func (p *parser) parsed() *ddberr.Error { return p.indexErr }

// parenParse is one remembered parse of a parenthesised operand: its
// result, or err, and what it did to the parser (end position, whether it
// found redundant parentheses).
type parenParse struct {
	op        *Operand
	err       error
	end       int
	redundant bool
}

// syntaxError is returned (as a Go error) from parse functions; it is turned
// into a *ddberr.Error by finish.
type syntaxError struct{ at int }

func (e *syntaxError) Error() string { return "syntax error" }

// newParser validates length and emptiness and lexes src.
func newParser(kind Kind, src string) (*parser, *ddberr.Error) {
	if strings.TrimLeft(src, " \t\r\n") == "" {
		return nil, requestErr(kind, "The expression can not be empty;")
	}
	if len(src) > MaxExpressionBytes {
		if kind == KindUpdate {
			// DynamoDB gives an UpdateExpression's size no tail (UpdateItem
			// and TransactWriteItems, us-east-1 and eu-west-2, 2026).
			return nil, requestErr(kind, "Expression size has exceeded the maximum allowed size;")
		}
		return nil, requestErr(kind, "Expression size has exceeded the maximum allowed size; expression size: %d", len(src))
	}
	return &parser{kind: kind, src: src, toks: lex(src)}, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) peekAt(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) fail() error { return &syntaxError{at: p.pos} }

func (p *parser) expect(punct string) error {
	if !p.peek().is(punct) {
		return p.fail()
	}
	p.pos++
	return nil
}

// enter bumps the recursion depth, failing past MaxDepth.
func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.fail()
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// operator counts one operator of a condition, failing past MaxOperators
// with DynamoDB's text, which names the count at which it stopped.
func (p *parser) operator() error {
	p.ops++
	if p.ops > MaxOperators {
		return requestErr(p.kind, "The expression contains too many operators; operator count: %d", p.ops)
	}
	return nil
}

// syntaxErr formats DynamoDB's syntax error for the token at index i:
// the token, and the source text from the previous to the next token.
func (p *parser) syntaxErr(i int) *ddberr.Error {
	t := p.toks[i]
	first, last := t, t
	if i > 0 {
		first = p.toks[i-1]
	}
	if t.kind != tokEOF && i+1 < len(p.toks) && p.toks[i+1].kind != tokEOF {
		last = p.toks[i+1]
	}
	end := last.end
	if t.kind == tokEOF && i > 0 {
		end = first.end
	}
	return requestErr(p.kind, "Syntax error; token: %q, near: %q", t.text, p.src[first.start:end])
}

// finish converts a parse error into the request error.
func (p *parser) finish(err error) *ddberr.Error {
	if se, ok := err.(*syntaxError); ok {
		return p.syntaxErr(se.at)
	}
	if de, ok := err.(*ddberr.Error); ok {
		return de
	}
	return requestErr(p.kind, "%s", err.Error())
}

// condKeywords may not be used as names in the condition grammar.
var condKeywords = []string{"AND", "OR", "NOT", "BETWEEN", "IN"}

// updKeywords may not be used as names in the update grammar.
var updKeywords = []string{"SET", "REMOVE", "ADD", "DELETE"}

func (p *parser) isKeyword(t token) bool {
	if t.kind != tokIdent {
		return false
	}
	kws := condKeywords
	if p.update {
		kws = updKeywords
	}
	for _, k := range kws {
		if strings.EqualFold(t.text, k) {
			return true
		}
	}
	return false
}

// parsePath parses name ( .name | [n] )*.
func (p *parser) parsePath() (Path, error) {
	var path Path
	t := p.peek()
	switch {
	case t.kind == tokIdent && !p.isKeyword(t):
		path = append(path, PathElem{Name: t.text})
	case t.kind == tokName:
		path = append(path, PathElem{Placeholder: t.text})
	default:
		return nil, p.fail()
	}
	p.pos++
	for {
		t := p.peek()
		switch {
		case t.is("."):
			p.pos++
			n := p.peek()
			switch {
			case n.kind == tokIdent && !p.isKeyword(n):
				path = append(path, PathElem{Name: n.text})
			case n.kind == tokName:
				path = append(path, PathElem{Placeholder: n.text})
			default:
				return nil, p.fail()
			}
			p.pos++
		case t.is("["):
			p.pos++
			n := p.peek()
			if n.kind != tokNumber {
				return nil, p.fail()
			}
			idx, err := strconv.Atoi(n.text)
			if err != nil || len(n.text) > 10 || idx > maxListIndex {
				if p.indexErr == nil {
					p.indexErr = requestErr(p.kind, msgIndexRange, n.text)
				}
				idx = 0
			}
			p.pos++
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			path = append(path, PathElem{Index: idx, IsIndex: true})
		default:
			return path, nil
		}
	}
}

// parseOperand parses a path, :value, function call or parenthesised
// operand. In update mode a parenthesised operand may hold + or -.
// The bool result reports that the operand was wrapped in parentheses.
func (p *parser) parseOperand() (*Operand, bool, error) {
	if err := p.enter(); err != nil {
		return nil, false, err
	}
	defer p.leave()
	t := p.peek()
	switch {
	case t.is("("):
		start := p.pos
		if m, ok := p.parens[start]; ok {
			if m.err != nil {
				return nil, false, m.err
			}
			p.pos = m.end
			p.redundant = p.redundant || m.redundant
			return m.op, true, nil
		}
		was := p.redundant
		p.redundant = false
		p.pos++
		var inner *Operand
		var wrapped bool
		var err error
		if p.update {
			inner, wrapped, err = p.parseSetValue()
		} else {
			inner, wrapped, err = p.parseOperand()
		}
		if err == nil {
			err = p.expect(")")
		}
		if err == nil && wrapped {
			p.redundant = true
		}
		if p.parens == nil {
			p.parens = map[int]parenParse{}
		}
		p.parens[start] = parenParse{op: inner, err: err, end: p.pos, redundant: p.redundant}
		p.redundant = was || p.redundant
		if err != nil {
			return nil, false, err
		}
		return inner, true, nil
	case t.kind == tokValue:
		p.pos++
		return &Operand{Kind: OperandValue, Placeholder: t.text}, false, nil
	case t.kind == tokIdent && !p.isKeyword(t) && p.peekAt(1).is("("):
		p.pos += 2
		call := &Operand{Kind: OperandCall, Func: t.text}
		for {
			a, _, err := p.parseOperand()
			if err != nil {
				return nil, false, err
			}
			call.Args = append(call.Args, a)
			if p.peek().is(",") {
				p.pos++
				continue
			}
			if err := p.expect(")"); err != nil {
				return nil, false, err
			}
			return call, false, nil
		}
	default:
		path, err := p.parsePath()
		if err != nil {
			return nil, false, err
		}
		return &Operand{Kind: OperandPath, Path: path}, false, nil
	}
}

// parseSetValue parses operand [ (+|-) operand ].
func (p *parser) parseSetValue() (*Operand, bool, error) {
	a, wrapped, err := p.parseOperand()
	if err != nil {
		return nil, false, err
	}
	t := p.peek()
	if !t.is("+") && !t.is("-") {
		return a, wrapped, nil
	}
	p.pos++
	b, _, err := p.parseOperand()
	if err != nil {
		return nil, false, err
	}
	k := OperandPlus
	if t.text == "-" {
		k = OperandMinus
	}
	return &Operand{Kind: k, Args: []*Operand{a, b}}, false, nil
}
