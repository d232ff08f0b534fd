package expr

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/kura-db/kura/internal/attr"
)

// Eval reports whether item satisfies the (resolved) condition. A nil item
// is an absent item: every attribute is missing. Missing attributes and
// type mismatches make comparisons false, as in DynamoDB.
func (c *Condition) Eval(item attr.Item) (bool, error) {
	return c.eval(item), nil
}

// Matches is Eval for callers that know evaluation cannot fail.
func (c *Condition) Matches(item attr.Item) bool { return c.eval(item) }

func (c *Condition) eval(item attr.Item) bool {
	switch c.Op {
	case OpAnd:
		for _, s := range c.Sub {
			if !s.eval(item) {
				return false
			}
		}
		return true
	case OpOr:
		for _, s := range c.Sub {
			if s.eval(item) {
				return true
			}
		}
		return false
	case OpNot:
		return !c.Sub[0].eval(item)
	case OpAttributeExists:
		_, ok := getPath(item, c.Operands[0].Path)
		return ok
	case OpAttributeNotExists:
		_, ok := getPath(item, c.Operands[0].Path)
		return !ok
	}
	a, aok := operandValue(item, c.Operands[0])
	switch c.Op {
	case OpNE:
		b, bok := operandValue(item, c.Operands[1])
		if !aok || !bok {
			// A missing attribute is not equal to anything, another
			// missing one included (ScyllaDB's Alternator tests, which
			// are run against DynamoDB: 'q <> z' holds with both absent).
			return true
		}
		return !attr.Equal(a, b)
	case OpIn:
		if !aok {
			return false
		}
		for _, o := range c.Operands[1:] {
			if b, ok := operandValue(item, o); ok && attr.Equal(a, b) {
				return true
			}
		}
		return false
	}
	if !aok {
		return false
	}
	b, bok := operandValue(item, c.Operands[1])
	if !bok {
		return false
	}
	switch c.Op {
	case OpEQ:
		return attr.Equal(a, b)
	case OpLT, OpLE, OpGT, OpGE:
		cmp, ok := attr.Compare(a, b)
		if !ok {
			return false
		}
		switch c.Op {
		case OpLT:
			return cmp < 0
		case OpLE:
			return cmp <= 0
		case OpGT:
			return cmp > 0
		}
		return cmp >= 0
	case OpBetween:
		hi, ok := operandValue(item, c.Operands[2])
		if !ok {
			return false
		}
		c1, ok1 := attr.Compare(a, b)
		c2, ok2 := attr.Compare(a, hi)
		return ok1 && ok2 && c1 >= 0 && c2 <= 0
	case OpAttributeType:
		return b.T == attr.S && a.T == attrTypeNames[b.Str]
	case OpBeginsWith:
		switch {
		case a.T == attr.S && b.T == attr.S:
			return strings.HasPrefix(a.Str, b.Str)
		case a.T == attr.B && b.T == attr.B:
			return bytes.HasPrefix(a.Bin, b.Bin)
		}
		return false
	case OpContains:
		return contains(a, b)
	}
	return false
}

// contains implements contains(a, b): substring for S (and B), membership
// for sets and lists.
func contains(a, b attr.Value) bool {
	switch a.T {
	case attr.S:
		return b.T == attr.S && strings.Contains(a.Str, b.Str)
	case attr.B:
		return b.T == attr.B && bytes.Contains(a.Bin, b.Bin)
	case attr.SS, attr.NS, attr.BS:
		return setContains(a, b)
	case attr.L:
		for _, e := range a.List {
			if attr.Equal(e, b) {
				return true
			}
		}
	}
	return false
}

// operandValue evaluates a condition operand against item.
func operandValue(item attr.Item, o *Operand) (attr.Value, bool) {
	switch o.Kind {
	case OperandPath:
		return getPath(item, o.Path)
	case OperandValue:
		return o.Value, true
	case OperandCall:
		if o.Func != "size" {
			return attr.Value{}, false
		}
		v, ok := operandValue(item, o.Args[0])
		if !ok {
			return attr.Value{}, false
		}
		n, ok := sizeOf(v)
		if !ok {
			return attr.Value{}, false
		}
		return attr.Value{T: attr.N, Str: strconv.Itoa(n)}, true
	}
	return attr.Value{}, false
}

// sizeOf implements size(): the length of an S in UTF-16 code units (as
// DynamoDB, a Java service, counts it: a conformance suite run against it
// finds size("é𝄞") = 3, not its 6 UTF-8 bytes), bytes of B, elements of
// sets, lists and maps. N, BOOL and NULL have no size.
func sizeOf(v attr.Value) (int, bool) {
	switch v.T {
	case attr.S:
		n := 0
		for _, r := range v.Str {
			n += utf16.RuneLen(r)
		}
		return n, true
	case attr.B:
		return len(v.Bin), true
	case attr.SS, attr.NS:
		return len(v.Strs), true
	case attr.BS:
		return len(v.Bins), true
	case attr.L:
		return len(v.List), true
	case attr.M:
		return len(v.Map), true
	}
	return 0, false
}
