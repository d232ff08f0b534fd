package partiql

import (
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
)

// tokKind is a token's kind.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // bare identifier (Text as written) or keyword
	tQuoted         // "quoted identifier"
	tString         // 'string literal'
	tNumber         // 123, 1.5, 1e3
	tPunct          // operators and punctuation
	tParam          // ?
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset of the token's first character
	end  int // byte offset just past its last (quotes included)
}

// keywords are reserved: a bare identifier spelled like one is the
// keyword (quote it to use it as a name).
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"BETWEEN": true, "IN": true, "IS": true, "MISSING": true, "NULL": true, "TRUE": true,
	"FALSE": true, "INSERT": true, "INTO": true, "VALUE": true, "VALUES": true,
	"UPDATE": true, "SET": true, "REMOVE": true, "DELETE": true, "EXISTS": true,
	"RETURNING": true, "ORDER": true, "BY": true, "ASC": true, "DESC": true,
}

func (t token) isKeyword(kw string) bool {
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (t token) keyword() bool { return t.kind == tIdent && keywords[strings.ToUpper(t.text)] }

// malformed is DynamoDB's PartiQL syntax error.
func malformed(detail string) error {
	return ddberr.Validation("Statement wasn't well formed, can't be processed: " + detail)
}

// lex splits src into tokens.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, malformed("")
			}
			i += end + 4
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], i, j})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := lexNumber(src, i)
			if !attr.BigDecimalScaleFits(src[i:j]) {
				return nil, malformed("")
			}
			toks = append(toks, token{tNumber, src[i:j], i, j})
			i = j
		case c == '\'' || c == '"':
			s, j, ok := lexQuoted(src, i)
			if !ok {
				if c == '"' {
					return nil, malformed("Unterminated quoted identifier")
				}
				return nil, malformed("Unterminated string literal")
			}
			k := tString
			if c == '"' {
				k = tQuoted
			}
			toks = append(toks, token{k, s, i, j})
			i = j
		case c == '?':
			toks = append(toks, token{tParam, "?", i, i + 1})
			i++
		default:
			p := lexPunct(src[i:])
			if p == "" {
				// DynamoDB's lexer errors carry no detail ('#' recorded).
				return nil, malformed("")
			}
			toks = append(toks, token{tPunct, p, i, i + len(p)})
			i += len(p)
		}
	}
	return append(toks, token{tEOF, "", len(src), len(src)}), nil
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// lexNumber scans digits [. digits] [e [+-] digits].
func lexNumber(src string, i int) int {
	digits := func(j int) int {
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
		return j
	}
	j := digits(i)
	if j < len(src) && src[j] == '.' {
		j = digits(j + 1)
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if e := digits(k); e > k {
			j = e
		}
	}
	return j
}

// lexQuoted scans a quoted string or identifier; a doubled quote stands
// for itself.
func lexQuoted(src string, i int) (string, int, bool) {
	q := src[i]
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		if src[j] == q {
			if j+1 < len(src) && src[j+1] == q {
				b.WriteByte(q)
				j += 2
				continue
			}
			return b.String(), j + 1, true
		}
		b.WriteByte(src[j])
		j++
	}
	return "", j, false
}

var puncts = []string{"<<", ">>", "<>", "!=", "<=", ">=", "=", "<", ">", "(", ")", "[", "]", "{", "}", ",", ".", ":", ";", "*", "+", "-"}

func lexPunct(s string) string {
	for _, p := range puncts {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	return ""
}
