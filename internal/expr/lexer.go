package expr

import "strings"

// tokKind classifies a lexical token.
type tokKind uint8

const (
	tokEOF     tokKind = iota
	tokIdent           // name or keyword: [A-Za-z_][A-Za-z0-9_]*
	tokName            // #placeholder
	tokValue           // :placeholder
	tokNumber          // [0-9]+ (list indexes)
	tokPunct           // ( ) [ ] , . = <> < <= > >= + -
	tokIllegal         // any other character
)

// token is one lexical token; start and end are byte offsets in the source.
type token struct {
	kind       tokKind
	text       string
	start, end int
}

// is reports whether t is the punctuation p.
func (t token) is(p string) bool { return t.kind == tokPunct && t.text == p }

// isKeyword reports whether t is the identifier kw, case-insensitively.
func (t token) isKeyword(kw string) bool {
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

// isIdentStart: a name in an expression starts with a letter; DynamoDB
// reads a leading '_' as an illegal token ('Syntax error; token: "_",
// near: "AND _sortKey"', quoted from its answers in public issues).
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '_' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lex splits src into tokens, always ending with tokEOF. Illegal characters
// become tokIllegal tokens so the parser reports them in DynamoDB's syntax
// error form.
func lex(src string) []token {
	toks := make([]token, 0, len(src)/3+2)
	i := 0
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) {
			toks = append(toks, token{kind: tokEOF, text: "<EOF>", start: len(src), end: len(src)})
			return toks
		}
		start := i
		c := src[i]
		var k tokKind
		switch {
		case isIdentStart(c):
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			k = tokIdent
		case c >= '0' && c <= '9':
			for i < len(src) && src[i] >= '0' && src[i] <= '9' {
				i++
			}
			k = tokNumber
		case c == '#' || c == ':':
			i++
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			if i == start+1 {
				k = tokIllegal
			} else if c == '#' {
				k = tokName
			} else {
				k = tokValue
			}
		case c == '<':
			i++
			if i < len(src) && (src[i] == '=' || src[i] == '>') {
				i++
			}
			k = tokPunct
		case c == '>':
			i++
			if i < len(src) && src[i] == '=' {
				i++
			}
			k = tokPunct
		case strings.IndexByte("()[],.=+-", c) >= 0:
			i++
			k = tokPunct
		default:
			// One (possibly multi-byte) character.
			i++
			for i < len(src) && src[i]&0xC0 == 0x80 {
				i++
			}
			k = tokIllegal
		}
		toks = append(toks, token{kind: k, text: src[start:i], start: start, end: i})
	}
}
