package expr

import "github.com/kura-db/kura/internal/ddberr"

// ParseUpdate parses an UpdateExpression and runs the checks that need only
// the text. Resolve it with Params.ResolveUpdate before applying it.
// Repeated texts are served from the parse cache (cache.go).
func ParseUpdate(s string) (*Update, error) {
	return updateCache.parse(KindUpdate, s, func(_ Kind, s string) (*Update, error) { return parseUpdate(s) }, (*Update).clone)
}

func parseUpdate(s string) (*Update, error) {
	p, derr := newParser(KindUpdate, s)
	if derr != nil {
		return nil, derr
	}
	p.update = true
	u := &Update{}
	var seen [4]bool
	var dup *ddberr.Error
	for p.peek().kind != tokEOF {
		t := p.peek()
		var k ActionKind
		switch {
		case t.isKeyword("SET"):
			k = ActionSet
		case t.isKeyword("REMOVE"):
			k = ActionRemove
		case t.isKeyword("ADD"):
			k = ActionAdd
		case t.isKeyword("DELETE"):
			k = ActionDelete
		default:
			return nil, p.syntaxErr(p.pos)
		}
		p.pos++
		if seen[k] && dup == nil {
			dup = requestErr(KindUpdate, "The \"%s\" section can only be used once in an update expression;", k)
		}
		seen[k] = true
		for {
			a, err := p.parseAction(k)
			if err != nil {
				return nil, p.finish(err)
			}
			u.Actions = append(u.Actions, a)
			if !p.peek().is(",") {
				break
			}
			p.pos++
		}
	}
	if derr := p.parsed(); derr != nil {
		return nil, derr
	}
	if derr := p.checkUpdate(u, dup); derr != nil {
		return nil, derr
	}
	return u, nil
}

func (p *parser) parseAction(k ActionKind) (Action, error) {
	path, err := p.parsePath()
	if err != nil {
		return Action{}, err
	}
	a := Action{Kind: k, Path: path}
	switch k {
	case ActionSet:
		if err := p.expect("="); err != nil {
			return a, err
		}
		a.Value, _, err = p.parseSetValue()
		if err != nil {
			return a, err
		}
	case ActionAdd, ActionDelete:
		t := p.peek()
		if t.kind != tokValue {
			return a, p.fail()
		}
		p.pos++
		a.Value = &Operand{Kind: OperandValue, Placeholder: t.text}
	}
	return a, nil
}

var updateFuncs = map[string]bool{"if_not_exists": true, "list_append": true}

// checkUpdate runs the text-only checks in DynamoDB's order: reserved words,
// unknown functions, repeated clauses, operand counts, document-path
// operands.
func (p *parser) checkUpdate(u *Update, dup *ddberr.Error) *ddberr.Error {
	if p.redundant {
		return requestErr(KindUpdate, "The expression has redundant parentheses;")
	}
	var ops []*Operand
	for _, a := range u.Actions {
		if err := checkReservedPath(KindUpdate, a.Path); err != nil {
			return err
		}
		if a.Value != nil {
			walkOperand(a.Value, func(o *Operand) { ops = append(ops, o) })
		}
	}
	if err := checkReserved(KindUpdate, ops); err != nil {
		return err
	}
	for _, o := range ops {
		if o.Kind == OperandCall && !updateFuncs[o.Func] {
			if _, cond := condFuncs[o.Func]; cond || o.Func == "size" {
				// A condition's function is known but not allowed here.
				return requestErr(KindUpdate, "The function is not allowed in an update expression; function: %s", o.Func)
			}
			return requestErr(KindUpdate, "Invalid function name; function: %s", o.Func)
		}
	}
	if dup != nil {
		return dup
	}
	for _, o := range ops {
		if o.Kind == OperandCall && len(o.Args) != funcArity[o.Func] {
			return requestErr(KindUpdate, "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", o.Func, len(o.Args))
		}
		if o.Kind == OperandCall && o.Func == "list_append" {
			// list_append(list_append(...), ...) parses but DynamoDB refuses
			// it (a test suite run against it; if_not_exists inside
			// list_append stays allowed).
			for _, a := range o.Args {
				if a.Kind == OperandCall && a.Func == "list_append" {
					return requestErr(KindUpdate, "The function is not allowed to be used this way in an expression; function: %s", o.Func)
				}
			}
		}
	}
	return nil
}

// ParseProjection parses a ProjectionExpression: comma-separated paths.
// Repeated texts are served from the parse cache (cache.go).
func ParseProjection(s string) (*Projection, error) {
	return projectionCache.parse(KindProjection, s, func(_ Kind, s string) (*Projection, error) { return parseProjection(s) }, (*Projection).clone)
}

func parseProjection(s string) (*Projection, error) {
	p, derr := newParser(KindProjection, s)
	if derr != nil {
		return nil, derr
	}
	pr := &Projection{}
	for {
		path, err := p.parsePath()
		if err != nil {
			return nil, p.finish(err)
		}
		pr.Paths = append(pr.Paths, path)
		if p.peek().is(",") {
			p.pos++
			continue
		}
		if p.peek().kind != tokEOF {
			return nil, p.syntaxErr(p.pos)
		}
		break
	}
	if derr := p.parsed(); derr != nil {
		return nil, derr
	}
	for _, path := range pr.Paths {
		if err := checkReservedPath(KindProjection, path); err != nil {
			return nil, err
		}
	}
	for _, path := range pr.Paths {
		if len(path) > MaxPathDepth {
			// ScyllaDB's Alternator tests, which are run against DynamoDB
			// ('a' followed by 32 '.b' is refused).
			return nil, requestErr(KindProjection, "The document path has too many nesting levels; nesting levels: %d", len(path))
		}
	}
	return pr, nil
}

// MaxPathDepth is the most elements a document path may have (DynamoDB's
// documented limit of 32 levels).
const MaxPathDepth = 32
