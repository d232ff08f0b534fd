package iam

import "strings"

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
	head, tail := pattern[:first], pattern[last+1:]
	if len(head)+len(tail) > len(s) || !equal(head, s[:len(head)], fold) || !equal(tail, s[len(s)-len(tail):], fold) {
		return false
	}
	// Iterative matching with one backtrack point: linear in practice,
	// never exponential.
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
func substitute(s string, c Context) (string, bool) {
	if !strings.Contains(s, "${") {
		return s, true
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
		inner := s[i+2 : i+j]
		s = s[i+j+1:]
		switch inner {
		case "*", "?", "$":
			// An escaped literal: IAM matches these characters as
			// themselves; Kura has no literal-wildcard syntax, so a
			// literal * or ? still matches as a wildcard.
			b.WriteString(inner)
			continue
		}
		key, def, hasDef := strings.Cut(inner, ",")
		key = strings.TrimSpace(key)
		vals, ok := c.Get(key)
		if ok && len(vals) == 1 && !strings.ContainsAny(vals[0], "*?") {
			b.WriteString(vals[0])
			continue
		}
		if !hasDef {
			return "", false
		}
		def = strings.TrimSpace(def)
		b.WriteString(strings.Trim(def, "'"))
	}
}
