package expr

import (
	"sort"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
)

// Params holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues. It is shared by every expression of the
// request and records which placeholders the expressions used.
type Params struct {
	names      map[string]string
	values     attr.Item
	usedNames  map[string]bool
	usedValues map[string]bool
}

// NewParams returns the parameters of one request (either map may be nil).
func NewParams(names map[string]string, values attr.Item) *Params {
	return &Params{names: names, values: values, usedNames: map[string]bool{}, usedValues: map[string]bool{}}
}

// ValidateParams checks the placeholder maps before any expression is
// parsed. names and values are the request's maps (nil when absent);
// anyExpr says whether the request has any expression parameter and
// valueExpr whether it has one that can use values (any but
// ProjectionExpression).
func ValidateParams(names map[string]string, values attr.Item, anyExpr, valueExpr bool) error {
	if SubstitutionSize(names, values) > MaxSubstitutionSize {
		return SubstitutionTooLarge()
	}
	if names != nil && !anyExpr {
		return ddberr.RequestInvalid("ExpressionAttributeNames can only be specified when using expressions")
	}
	if values != nil && !valueExpr {
		return ddberr.RequestInvalid("ExpressionAttributeValues can only be specified when using expressions")
	}
	if names != nil {
		if len(names) == 0 {
			return ddberr.RequestInvalid("ExpressionAttributeNames must not be empty")
		}
		if k, long := firstLongKey(names); long {
			return ddberr.RequestInvalidf("ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: %d", len(k))
		}
		if k, bad := firstInvalidKey(names, '#'); bad {
			return ddberr.RequestInvalidf("ExpressionAttributeNames contains invalid key: Syntax error; key: %q", k)
		}
		if err := checkNameValues(names); err != nil {
			return err
		}
	}
	if values != nil {
		if len(values) == 0 {
			return ddberr.RequestInvalid("ExpressionAttributeValues must not be empty")
		}
		if _, long := firstLongKey(values); long {
			// Without the size, unlike the names' text.
			return ddberr.RequestInvalid("ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
		}
		if k, bad := firstInvalidKey(values, ':'); bad {
			return ddberr.RequestInvalidf("ExpressionAttributeValues contains invalid key: Syntax error; key: %q", k)
		}
	}
	return nil
}

// MaxSubstitutionSize bounds the placeholders of one request: "The
// maximum length of all substitution variables in an expression is 2 MB.
// This is the sum of the lengths of all ExpressionAttributeNames and
// ExpressionAttributeValues" (Developer Guide, Constraints, "Expression
// parameters"). A name counts its placeholder's and its value's bytes, a
// value its placeholder's bytes and its size as an attribute value
// (attr.ValueSize), as an item's attributes are counted.
const MaxSubstitutionSize = 2 << 20

// SubstitutionSize is the length of a request's placeholders as
// MaxSubstitutionSize counts it.
func SubstitutionSize(names map[string]string, values attr.Item) int {
	n := attr.ItemSize(values)
	for k, v := range names {
		n += len(k) + len(v)
	}
	return n
}

// SubstitutionTooLarge is the error for placeholders over
// MaxSubstitutionSize. No answer of DynamoDB to such a request has been
// captured; source: the text is its "Item size has exceeded the maximum
// allowed size" (the nearest limit of the same kind) with the subject
// changed, and, like that text, it gives no size (the request decoder
// refuses before it has read the whole map, see internal/api).
func SubstitutionTooLarge() error {
	return ddberr.RequestInvalid(substitutionTooLarge)
}

const substitutionTooLarge = "ExpressionAttributeNames and ExpressionAttributeValues size has exceeded the maximum allowed size"

// IsSubstitutionTooLarge reports whether err is SubstitutionTooLarge's.
func IsSubstitutionTooLarge(err error) bool {
	de, ok := err.(*ddberr.Error)
	return ok && de.Message == ddberr.Detected1+substitutionTooLarge
}

// checkNameValues refuses an ExpressionAttributeNames value that is empty
// ('Empty attribute name for key #a', as DynamoDB words it; quoted from its
// answers by an emulator's pull request, 2026-06) or longer than an
// attribute name may be; the first bad key in sorted order is reported,
// and the map is sorted only when there is one.
func checkNameValues(names map[string]string) error {
	for _, name := range names {
		if name == "" || len(name) > attr.MaxNameSize {
			for _, k := range sortedKeys(names) {
				switch name := names[k]; {
				case name == "":
					return ddberr.RequestInvalidf("ExpressionAttributeNames contains invalid value: Empty attribute name for key %s", k)
				case len(name) > attr.MaxNameSize:
					return attr.NameTooLarge()
				}
			}
		}
	}
	return nil
}

// maxParamKey is the longest placeholder, in bytes with its '#' or ':'.
// DynamoDB checks the length before the syntax (us-east-1, captured by an
// emulator's dual-target tests, 2026-06).
const maxParamKey = 255

// firstLongKey reports the first key of m, in sorted order, longer than
// maxParamKey; m is sorted only when there is one.
func firstLongKey[V any](m map[string]V) (string, bool) {
	for k := range m {
		if len(k) > maxParamKey {
			for _, k := range sortedKeys(m) {
				if len(k) > maxParamKey {
					return k, true
				}
			}
		}
	}
	return "", false
}

// firstInvalidKey reports the first key of m, in sorted order, that is not
// sigil followed by one or more of [0-9A-Za-z_]. Maps are sorted only
// when some key is invalid.
func firstInvalidKey[V any](m map[string]V, sigil byte) (string, bool) {
	for k := range m {
		if !validParamKey(k, sigil) {
			for _, k := range sortedKeys(m) {
				if !validParamKey(k, sigil) {
					return k, true
				}
			}
		}
	}
	return "", false
}

func validParamKey(k string, sigil byte) bool {
	if len(k) < 2 || k[0] != sigil {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

// CheckMixed returns DynamoDB's error for a request that uses both legacy
// and expression parameters. Both lists name the parameters present, in the
// order DynamoDB lists them; it returns nil if either list is empty.
func CheckMixed(nonExpression, expression []string) error {
	if len(nonExpression) == 0 || len(expression) == 0 {
		return nil
	}
	return ddberr.RequestInvalidf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
		strings.Join(nonExpression, ", "), strings.Join(expression, ", "))
}

// CheckConditionalOperator refuses a ConditionalOperator (op, "" when
// absent) that joins fewer than two legacy conditions (n: the entries of
// Expected, QueryFilter or ScanFilter), in DynamoDB's words (a dual-target
// test suite run against Amazon DynamoDB, 2026).
func CheckConditionalOperator(op string, n int) error {
	switch {
	case op == "" || n >= 2:
		return nil
	case n == 0:
		return ddberr.RequestInvalid("ConditionalOperator cannot be used without Filter or Expected")
	}
	return ddberr.RequestInvalid("ConditionalOperator can only be used when Filter or Expected has two or more elements")
}

// CheckUnused reports placeholders that no resolved expression used. Call
// it after every expression of the request has been resolved.
func (p *Params) CheckUnused() error {
	var unused []string
	for _, k := range sortedKeys(p.names) {
		if !p.usedNames[k] {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		return ddberr.RequestInvalidf("Value provided in ExpressionAttributeNames unused in expressions: keys: {%s}", listKeys(unused))
	}
	for _, k := range sortedKeys(p.values) {
		if !p.usedValues[k] {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		return ddberr.RequestInvalidf("Value provided in ExpressionAttributeValues unused in expressions: keys: {%s}", listKeys(unused))
	}
	return nil
}

// maxListedKeys is how many placeholders an "unused in expressions" error
// names. DynamoDB's own bound is not known: no capture or public report
// shows it answering with more than a few keys. Kura names the first
// maxListedKeys in sorted order and then "..." (docs/compatibility.md), so
// that 2 MB of one-byte placeholders cannot make a multi-megabyte message.
const maxListedKeys = 100

// listKeys joins keys as the unused-placeholder errors list them.
func listKeys(keys []string) string {
	if len(keys) <= maxListedKeys {
		return strings.Join(keys, ", ")
	}
	return strings.Join(keys[:maxListedKeys], ", ") + ", ..."
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (p *Params) resolvePath(kind Kind, path Path) *ddberr.Error {
	for i := range path {
		e := &path[i]
		if e.Placeholder == "" || e.Name != "" {
			continue
		}
		name, ok := p.names[e.Placeholder]
		if !ok {
			return requestErr(kind, "An expression attribute name used in the document path is not defined; attribute name: %s", e.Placeholder)
		}
		p.usedNames[e.Placeholder] = true
		e.Name = name
	}
	return nil
}

func (p *Params) resolveOperand(kind Kind, o *Operand) *ddberr.Error {
	switch o.Kind {
	case OperandPath:
		return p.resolvePath(kind, o.Path)
	case OperandValue:
		if o.Placeholder == "" || o.Value.T != attr.TypeNone {
			return nil
		}
		v, ok := p.values[o.Placeholder]
		if !ok {
			return requestErr(kind, "An expression attribute value used in expression is not defined; attribute value: %s", o.Placeholder)
		}
		p.usedValues[o.Placeholder] = true
		o.Value = v
	}
	for _, a := range o.Args {
		if err := p.resolveOperand(kind, a); err != nil {
			return err
		}
	}
	return nil
}

// ResolveCondition substitutes placeholders in c (in place) and runs the
// checks that need the values. Conditions are taken in the order they are
// written, each resolved and checked before the next, so the first fault
// written is the one reported: a bad operand ahead of a later undefined
// value (Query key conditions, us-east-1 and eu-west-2, 2026-10-09, in a
// public conformance suite).
func (p *Params) ResolveCondition(c *Condition) error {
	var err *ddberr.Error
	walkCondition(c, func(n *Condition) {
		for _, o := range n.Operands {
			walkOperand(o, func(o *Operand) {
				if err == nil && o.Kind != OperandCall {
					err = p.resolveOperand(n.Kind, o)
				}
			})
		}
		if err == nil {
			err = checkDistinct(n)
		}
		if err == nil {
			err = checkTypes(n)
		}
	}, func(*Operand) {})
	if err != nil {
		return err
	}
	return nil
}

// checkDistinct rejects comparisons and functions whose first operand is
// repeated among the others.
func checkDistinct(c *Condition) *ddberr.Error {
	var name string
	switch {
	case c.Op <= OpGE || c.Op == OpBetween || c.Op == OpIn:
		name = c.Op.String()
	case c.Op == OpBeginsWith || c.Op == OpContains:
		name = c.Func
	default:
		return nil
	}
	if len(c.Operands) < 2 || c.Operands[0].Kind != OperandPath {
		return nil
	}
	first := c.Operands[0].Path
	for _, o := range c.Operands[1:] {
		if o.Kind == OperandPath && o.Path.equal(first) {
			return requestErr(c.Kind, "The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s", name, first.listString())
		}
	}
	return nil
}

// staticType is the type an operand is known to have before evaluation
// (TypeNone when it depends on the item).
func staticType(o *Operand) attr.Type {
	switch {
	case o.Kind == OperandValue:
		return o.Value.T
	case o.Kind == OperandCall && o.Func == "size":
		return attr.N
	}
	return attr.TypeNone
}

var attrTypeNames = map[string]attr.Type{
	"S": attr.S, "N": attr.N, "B": attr.B, "BOOL": attr.BOOL, "NULL": attr.NULL,
	"M": attr.M, "L": attr.L, "SS": attr.SS, "NS": attr.NS, "BS": attr.BS,
}

func checkTypes(c *Condition) *ddberr.Error {
	wrongType := func(fn string, t attr.Type) *ddberr.Error {
		return requestErr(c.Kind, "Incorrect operand type for operator or function; operator or function: %s, operand type: %s", fn, typeName(t))
	}
	for _, o := range c.Operands {
		var bad *ddberr.Error
		walkOperand(o, func(o *Operand) {
			if bad == nil && o.Kind == OperandCall && o.Func == "size" {
				switch t := staticType(o.Args[0]); t {
				case attr.N, attr.BOOL, attr.NULL:
					bad = wrongType("size", t)
				}
			}
		})
		if bad != nil {
			return bad
		}
	}
	switch c.Op {
	case OpLT, OpLE, OpGT, OpGE, OpBetween:
		// Only strings, numbers and binaries are ordered: a value of any
		// other type is refused before evaluation, whatever the item (an
		// emulator's pull request measured against DynamoDB, 2026-07; the
		// text is DynamoDB's for the same fault in a key condition).
		for _, o := range c.Operands {
			switch t := staticType(o); t {
			case attr.TypeNone, attr.S, attr.N, attr.B:
			default:
				return wrongType(c.Op.String(), t)
			}
		}
	}
	switch c.Op {
	case OpBeginsWith:
		for _, o := range c.Operands {
			if t := staticType(o); t != attr.TypeNone && t != attr.S && t != attr.B {
				return wrongType(c.Func, t)
			}
		}
	case OpAttributeType:
		t := staticType(c.Operands[1])
		if t != attr.S {
			if t == attr.TypeNone {
				return requestErr(c.Kind, "Incorrect operand type for operator or function; operator or function: %s, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}", c.Func)
			}
			return wrongType(c.Func, t)
		}
		if _, ok := attrTypeNames[c.Operands[1].Value.Str]; !ok {
			return requestErr(c.Kind, "Invalid attribute type name found; type: %s, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}", c.Operands[1].Value.Str)
		}
	case OpBetween:
		lo, hi := c.Operands[1], c.Operands[2]
		if lo.Kind == OperandValue && hi.Kind == OperandValue {
			if lo.Value.T != hi.Value.T {
				return requestErr(c.Kind, "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s", formatValue(lo.Value), formatValue(hi.Value))
			}
			if cmp, ok := compareValues(lo.Value, hi.Value); ok && cmp > 0 {
				return requestErr(c.Kind, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s", formatValue(lo.Value), formatValue(hi.Value))
			}
		}
	}
	return nil
}

// ResolveUpdate substitutes placeholders in u (in place) and runs the checks
// that need resolved names and values: overlapping or conflicting paths and
// operand types.
func (p *Params) ResolveUpdate(u *Update) error {
	for i := range u.Actions {
		a := &u.Actions[i]
		if err := p.resolvePath(KindUpdate, a.Path); err != nil {
			return err
		}
		if a.Value != nil {
			if err := p.resolveOperand(KindUpdate, a.Value); err != nil {
				return err
			}
		}
	}
	// if_not_exists needs a document path first; an undefined placeholder
	// there is reported as undefined (a test suite run against DynamoDB),
	// so this waits for the placeholders to resolve.
	for _, a := range u.Actions {
		if a.Value == nil {
			continue
		}
		var bad *ddberr.Error
		walkOperand(a.Value, func(o *Operand) {
			if bad == nil && o.Kind == OperandCall && o.Func == "if_not_exists" && o.Args[0].Kind != OperandPath {
				bad = requestErr(KindUpdate, "Operator or function requires a document path; operator or function: %s", o.Func)
			}
		})
		if bad != nil {
			return bad
		}
	}
	if err := checkPaths(KindUpdate, u.Paths()); err != nil {
		return err
	}
	for _, a := range u.Actions {
		switch a.Kind {
		case ActionAdd, ActionDelete:
			switch t := a.Value.Value.T; t {
			case attr.SS, attr.NS, attr.BS:
			case attr.N:
				if a.Kind == ActionDelete {
					return requestErr(KindUpdate, "Incorrect operand type for operator or function; operator: %s, operand type: %s", a.Kind, longTypeName(t))
				}
			default:
				return requestErr(KindUpdate, "Incorrect operand type for operator or function; operator: %s, operand type: %s", a.Kind, longTypeName(t))
			}
		case ActionSet:
			var bad *ddberr.Error
			walkOperand(a.Value, func(o *Operand) {
				if bad != nil {
					return
				}
				var want attr.Type
				fn := o.Func
				switch {
				case o.Kind == OperandPlus || o.Kind == OperandMinus:
					want, fn = attr.N, "+"
					if o.Kind == OperandMinus {
						fn = "-"
					}
				case o.Kind == OperandCall && o.Func == "list_append":
					want = attr.L
				default:
					return
				}
				for _, arg := range o.Args {
					if arg.Kind == OperandValue && arg.Value.T != want {
						bad = requestErr(KindUpdate, "Incorrect operand type for operator or function; operator or function: %s, operand type: %s", fn, typeName(arg.Value.T))
						return
					}
				}
			})
			if bad != nil {
				return bad
			}
		}
	}
	return nil
}

// checkPaths rejects two paths whose paths overlap (one is a prefix
// of the other) or conflict (a name and an index at the same position).
func checkPaths(kind Kind, paths []Path) *ddberr.Error {
	var conflict *ddberr.Error
	for j := 1; j < len(paths); j++ {
		for i := 0; i < j; i++ {
			p1, p2 := paths[i], paths[j]
			n := min(len(p1), len(p2))
			k := 0
			for ; k < n; k++ {
				if p1[k].IsIndex != p2[k].IsIndex {
					if conflict == nil {
						conflict = requestErr(kind, "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", p1.listString(), p2.listString())
					}
					break
				}
				if p1[k].Name != p2[k].Name || p1[k].Index != p2[k].Index {
					break
				}
			}
			if k == n {
				return requestErr(kind, "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", p1.listString(), p2.listString())
			}
		}
	}
	return conflict
}

// ResolveProjection substitutes #name placeholders in pr (in place).
func (p *Params) ResolveProjection(pr *Projection) error {
	for _, path := range pr.Paths {
		if err := p.resolvePath(KindProjection, path); err != nil {
			return err
		}
	}
	if err := checkPaths(KindProjection, pr.Paths); err != nil {
		return err
	}
	return nil
}
