package partiql

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	ok := []string{
		`SELECT * FROM "t"`,
		`select a, b.c[1].d, "x y" FROM t WHERE pk = ? AND sk >= 'a' AND NOT (n BETWEEN 1 AND 2)`,
		`SELECT * FROM "t"."idx" WHERE x IN (1, 2, 'three') OR y IS MISSING OR z IS NOT NULL ORDER BY sk DESC`,
		`SELECT * FROM t WHERE begins_with(sk, 'a') AND contains(tags, ?) AND size(l) > 2`,
		`INSERT INTO "t" VALUE {'pk': 'a', 'n': -1.5e3, 'm': {'l': [1, 'x', TRUE, NULL]}, 's': <<'a', 'b'>>}`,
		`UPDATE t SET a = 1, b.c = a + ? SET d = list_append(d, [1]) REMOVE e, f[0] WHERE pk = 'x' RETURNING ALL NEW *`,
		`DELETE FROM t WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *;`,
		`EXISTS(SELECT * FROM t WHERE pk = 'a' AND n > 1)`,
		"SELECT * FROM t -- comment\n WHERE /* c */ pk = 'it''s'",
	}
	for _, s := range ok {
		if _, err := Parse(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	bad := map[string]string{
		``:                                   "Expected data manipulation",
		`SELEC * FROM t`:                     "Expected data manipulation",
		`SELECT * FORM t`:                    "Expected FROM",
		`SELECT * FROM t WHERE`:              "Unexpected term",
		`SELECT * FROM t WHERE a = `:         "Unexpected end of statement",
		`INSERT INTO t VALUES {}`:            "Inserting multiple items",
		`UPDATE t WHERE pk = 'a'`:            "Expected SET or REMOVE",
		`SELECT * FROM 'abc`:                 "Unterminated string literal",
		`SELECT * FROM t WHERE pk = 1 extra`: "Unexpected token after expression",
	}
	for s, want := range bad {
		_, err := Parse(s)
		if err == nil || !strings.Contains(err.Error(), "Statement wasn't well formed, can't be processed: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", s, err, want)
		}
	}
	st, _ := Parse(`SELECT a FROM t WHERE pk = ? AND sk = ?`)
	if st.Params != 2 || st.Projection[0].String() != "a" {
		t.Errorf("params %d proj %v", st.Params, st.Projection)
	}
	st, _ = Parse(`SELECT a.b[2] FROM "tbl"."ix"`)
	if st.Table != "tbl" || st.Index != "ix" || st.Projection[0].String() != "a.b[2]" {
		t.Errorf("got %+v", st)
	}
}

// Exact texts DynamoDB answers for statements its parser refuses (pinned
// against eu-west-2 in October 2026 by a public conformance suite).
func TestParseRefusalTexts(t *testing.T) {
	const nwf = "Statement wasn't well formed, can't be processed: "
	const leftover = nwf + "Unexpected token after expression"
	const aliasing = "Aliasing is not supported"
	for stmt, want := range map[string]string{
		`SELECT * FROM "n" WHERE pk = 1 foo`:            leftover,
		`SELECT * FROM "n" WHERE pk = 1 e5`:             leftover,
		`INSERT INTO "n" VALUE {'pk': 970001} foo`:      leftover,
		`UPDATE "n" SET a = 9 WHERE pk = 970002 foo`:    leftover,
		`DELETE FROM "n" WHERE pk = 970003 foo`:         leftover,
		`SELECT * FROM "n" WHERE pk = 1)`:               leftover,
		`DELETE FROM "n" WHERE pk = 970004 ORDER BY pk`: leftover,
		`SELECT * FROM "n" ORDER BY pk WHERE pk = 1`:    leftover,
		`INSERT INTO "s" t VALUE {'pk': 'x'}`:           leftover,
		`SELECT * FROM "n" WHERE pk = 1e2147483648`:     nwf,
		`SELECT * FROM "n" WHERE pk = 1e99999999999`:    nwf,
		`SELECT * FROM "n" WHERE pk = 1.5e-2147483647`:  nwf,
		`SELECT * FROM "n" WHERE pk = 1 # note`:         nwf,
		`SELECT * FROM "n" WHERE pk = 1 /* note`:        nwf,
		`SELECT * FROM "s" t WHERE pk = 'x'`:            aliasing,
		`SELECT * FROM "s" AS t WHERE pk = 'x'`:         aliasing,
		`UPDATE "s" t SET a = 3 WHERE pk = 'x'`:         aliasing,
		`DELETE FROM "s" t WHERE pk = 'x'`:              aliasing,
	} {
		_, err := Parse(stmt)
		if err == nil || err.Error() != "ValidationException: "+want {
			t.Errorf("%s\n got %v\nwant %s", stmt, err, want)
		}
	}
	// Exponents and scales that fit 32 bits still parse (the number rules
	// are checked when the statement runs).
	for _, stmt := range []string{
		`SELECT * FROM "n" WHERE pk = 1e2147483647`,
		`SELECT * FROM "n" WHERE pk = 1e-2147483647`,
		`SELECT * FROM "n" WHERE pk = 1e126`,
	} {
		if _, err := Parse(stmt); err != nil {
			t.Errorf("%s: %v", stmt, err)
		}
	}
}

// A path's dot component must be a name: a bare PartiQL keyword is refused
// (quoted it is a name), as DynamoDB refuses 'm.inner' (a public
// conformance suite run against DynamoDB, us-east-1 and eu-west-2,
// 2026-10).
func TestParseDotComponent(t *testing.T) {
	const want = "ValidationException: Statement wasn't well formed, can't be processed: Invalid path dot component"
	for _, stmt := range []string{
		`SELECT * FROM t WHERE attribute_exists(m.inner)`,
		`SELECT * FROM t WHERE m.INNER = 1`,
		`SELECT m.size FROM t`,
		`UPDATE t SET m.inner = 1 WHERE pk = 'a'`,
		`UPDATE t SET a = 1 REMOVE m.value WHERE pk = 'a'`,
		`SELECT * FROM t WHERE a.b[0].select = 1`,
		`SELECT * FROM t WHERE m.'x' = 1`,
		`SELECT * FROM t WHERE m. = 1`,
	} {
		if _, err := Parse(stmt); err == nil || err.Error() != want {
			t.Errorf("%s: got %v", stmt, err)
		}
	}
	for _, stmt := range []string{
		`SELECT * FROM t WHERE attribute_exists(m."inner")`,
		`SELECT m.year, m.day, m.name, m.innerx FROM t`,
		`UPDATE t SET m."value" = 1 WHERE pk = 'a'`,
		`SELECT * FROM t WHERE m['inner'] = 1`,
	} {
		if _, err := Parse(stmt); err != nil {
			t.Errorf("%s: %v", stmt, err)
		}
	}
}

// Calls carry where their name and arguments stand, rendered as DynamoDB
// writes positions; a call in a SELECT list is refused with its position.
func TestParseCallPositions(t *testing.T) {
	st, err := Parse("UPDATE t SET ss = set_add(ss, 'x')\n WHERE pk = EXISTS(\"q\")")
	if err != nil {
		t.Fatal(err)
	}
	c := st.Sets[0].Value.(*Call)
	if got := st.At(c.At) + st.At(c.ArgAt[0]) + st.At(c.ArgAt[1]); got != " at 1:19:7 at 1:27:2 at 1:31:3" {
		t.Errorf("set_add positions: %q", got)
	}
	ex := st.Where.(*Binary).R.(*Call)
	if got := ex.Name + st.At(ex.At) + st.At(ex.ArgAt[0]); got != "exists at 2:13:6 at 2:20:3" {
		t.Errorf("EXISTS positions: %q", got)
	}
	if got := st.At(Span{-1, 1 << 20}); got != " at 1:1:58" {
		t.Errorf("clamped span: %q", got)
	}
	st, err = Parse(`SELECT a, size(ss), COUNT(*) FROM t`)
	if err != nil || st.ProjectionFault == nil || st.ProjectionFault.Error() != "ValidationException: Unexpected path component at 1:11:4" ||
		st.Table != "t" || len(st.Projection) != 1 {
		t.Errorf("calls in the SELECT list: %v, %+v", err, st)
	}
}
