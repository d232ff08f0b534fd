package iam

import "strings"

// pattern is an Action or Resource pattern with what matching it needs
// worked out once, when the policy is parsed: whether it holds wildcards
// and the literal runs before the first and after the last, and whether
// it holds policy variables (substituted for each request).
type pattern struct {
	s          string
	head, tail string
	wild, vars bool
}

func compile(s string) pattern {
	p := pattern{s: s, vars: strings.Contains(s, "${")}
	if first := strings.IndexAny(s, "*?"); first >= 0 {
		p.wild = true
		p.head, p.tail = s[:first], s[strings.LastIndexAny(s, "*?")+1:]
	}
	return p
}

func compileAll(ss []string) []pattern {
	if ss == nil {
		return nil
	}
	out := make([]pattern, len(ss))
	for i, s := range ss {
		out[i] = compile(s)
	}
	return out
}

// match reports whether s matches p, as wildcard does.
func (p *pattern) match(s string, fold bool) bool {
	if !p.wild {
		return len(p.s) == len(s) && equal(p.s, s, fold)
	}
	return p.s == "*" || ends(p.head, p.tail, s, fold) && wildcardBody(p.s, s, fold)
}

// wildcard reports whether s matches pattern, where * matches any run of
// characters (none included) and ? exactly one; fold compares ASCII
// letters case-insensitively (action names), otherwise exactly (ARNs).
func wildcard(pattern, s string, fold bool) bool {
	// The literal runs before the first wildcard and after the last must
	// start and end s: most patterns that fail, fail there.
	first := strings.IndexAny(pattern, "*?")
	if first < 0 {
		return len(pattern) == len(s) && equal(pattern, s, fold)
	}
	last := strings.LastIndexAny(pattern, "*?")
	return ends(pattern[:first], pattern[last+1:], s, fold) && wildcardBody(pattern, s, fold)
}

// ends reports whether s starts with head and ends with tail, apart.
func ends(head, tail, s string, fold bool) bool {
	return len(head)+len(tail) <= len(s) && equal(head, s[:len(head)], fold) && equal(tail, s[len(s)-len(tail):], fold)
}

// wildcardBody matches s against pattern iteratively with one backtrack
// point: linear in practice, never exponential.
func wildcardBody(pattern, s string, fold bool) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && (pattern[p] == '?' || same(pattern[p], s[i], fold)):
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// equal compares strings of equal length as same does bytes.
func equal(a, b string, fold bool) bool {
	if a == b {
		return true
	}
	if !fold {
		return false
	}
	for i := 0; i < len(a); i++ {
		if !same(a[i], b[i], fold) {
			return false
		}
	}
	return true
}

func same(a, b byte, fold bool) bool {
	if a == b {
		return true
	}
	if !fold {
		return false
	}
	return lower(a) == lower(b)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// substitute replaces the policy variables in s (${aws:username},
// ${dynamodb:...}, ${key, 'default'}) with their values from c; ${*}, ${?}
// and ${$} stand for those characters. ok is false when a variable has no
// single value and no default: the string then matches nothing (IAM's
// rule). A value holding * or ? counts as no value, so that what a caller
// sends (a user name, a key) never acts as a wildcard.
func substitute(s string, r *Request) (string, bool) {
	if !strings.Contains(s, "${") {
		return s, true
	}
	if strings.HasPrefix(s, "${") && strings.IndexByte(s, '}') == len(s)-1 {
		return variable(s[2:len(s)-1], r) // the whole string: nothing to join
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), true
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), true
		}
		b.WriteString(s[:i])
		v, ok := variable(s[i+2:i+j], r)
		if !ok {
			return "", false
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// variable is the value of the policy variable inner (what is between ${
// and }), or its default; ok is false when it has neither.
func variable(inner string, r *Request) (string, bool) {
	switch inner {
	case "*", "?", "$":
		// An escaped literal: IAM matches these characters as themselves;
		// Kura has no literal-wildcard syntax, so a literal * or ? still
		// matches as a wildcard.
		return inner, true
	}
	key, def, hasDef := strings.Cut(inner, ",")
	key = strings.TrimSpace(key)
	vals, ok := r.get(key)
	if ok && len(vals) == 1 && !strings.ContainsAny(vals[0], "*?") {
		return vals[0], true
	}
	if !hasDef {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(def), "'"), true
}
