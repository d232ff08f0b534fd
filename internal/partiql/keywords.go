package partiql

import "strings"

// pathKeywords are the words the PartiQL reference lexer reads as
// keywords: SQL-92's reserved words and PartiQL's own. DynamoDB's parser
// takes none of them, written bare, as a path's dot component: 'm.inner' is
// "Invalid path dot component" (a public conformance suite run against
// DynamoDB, us-east-1 and eu-west-2, 2026-10), while 'm."inner"' is a name
// like any other. The list is kept conservative: words that lexer made
// keywords in some of its versions only (the date-time parts YEAR to
// TIMEZONE_MINUTE, TRIM's BOTH, LEADING and TRAILING, DATE_ADD, DATE_DIFF,
// LET, the later type names such as INT4) are left out, and DynamoDB's own,
// much longer list of reserved words plays no part here.
var pathKeywords = wordSet(`
	absolute action add all allocate alter and any are as asc assertion at
	authorization avg begin between bit bit_length by cascade cascaded case
	cast catalog char character character_length char_length check close
	coalesce collate collation column commit connect connection constraint
	constraints continue convert corresponding count create cross current
	current_date current_time current_timestamp current_user cursor date
	deallocate dec decimal declare default deferrable deferred delete desc
	describe descriptor diagnostics disconnect distinct domain double drop
	else end escape except exception exec execute exists external extract
	false fetch first float for foreign found from full get global go goto
	grant group having identity immediate in indicator initially inner input
	insensitive insert int integer intersect interval into is isolation join
	key language last left level like local lower match max min module names
	national natural nchar next no not null nullif numeric octet_length of on
	only open option or order outer output overlaps pad partial position
	precision prepare preserve primary prior privileges procedure public read
	real references relative restrict revoke right rollback rows schema
	scroll section select session session_user set size smallint some space
	sql sqlcode sqlerror sqlstate substring sum system_user table temporary
	then time timestamp to transaction translate translation trim true union
	unique unknown update upper usage user using value values varchar varying
	view when whenever where with work write zone

	missing pivot unpivot limit tuple remove index conflict do nothing
	returning modified new old bool boolean string symbol clob blob struct
	list sexp bag
`)

// wordSet is the set of the blank-separated words of s, upper-cased.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[strings.ToUpper(w)] = true
	}
	return set
}

// pathKeyword reports whether t is a bare word PartiQL reads as a keyword.
func (t token) pathKeyword() bool { return t.kind == tIdent && pathKeywords[strings.ToUpper(t.text)] }
