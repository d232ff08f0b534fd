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
		``:                           "Expected data manipulation",
		`SELEC * FROM t`:             "Expected data manipulation",
		`SELECT * FORM t`:            "Expected FROM",
		`SELECT * FROM t WHERE`:      "Unexpected end of statement",
		`SELECT * FROM t WHERE a = `: "Unexpected end of statement",
		`INSERT INTO t VALUES {}`:    "Inserting multiple items",
		`UPDATE t WHERE pk = 'a'`:    "Expected SET or REMOVE",
		`SELECT * FROM 'abc`:         "Unterminated string literal",
		`SELECT * FROM t extra`:      "Unexpected token: extra",
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
