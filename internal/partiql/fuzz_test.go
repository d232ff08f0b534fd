package partiql

import (
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
)

// FuzzParse checks that Parse never panics and that every failure is a
// well-formed-statement ValidationException.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM "t" WHERE pk = ?`,
		`SELECT a, b.c[1] FROM t."i" WHERE x IN (1, 2) AND NOT y IS MISSING ORDER BY sk DESC`,
		`INSERT INTO t VALUE {'pk': 'a', 'l': [1, <<'x'>>, {'m': NULL}]}`,
		`UPDATE t SET a = a + 1 REMOVE b[0] WHERE pk = 'a' RETURNING MODIFIED OLD *`,
		`DELETE FROM t WHERE pk = 'a' AND sk BETWEEN 1 AND 2`,
		`EXISTS(SELECT * FROM t WHERE pk = 'a')`,
		`SELECT * FROM t WHERE begins_with(sk, 'x') OR size(l) >= -1.5e3`,
		"SELECT * FROM t /* c */ -- d\n",
		`((((((`, `'unterminated`, `<<>>`, `{'a':}`,
		`SELECT*FROM"0"A`, `SELECT * FROM t WHERE pk = 1e2147483648`,
		`SELECT f(a) FROM t WHERE m.inner = EXISTS(x)`, `UPDATE t SET s = set_add(s, <<'x'>>) WHERE`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := Parse(s)
		if err != nil {
			de, ok := err.(*ddberr.Error)
			known := ok && (strings.HasPrefix(de.Message, "Statement wasn't well formed, can't be processed: ") ||
				de.Message == "A path may contain at most 2 components in the FROM clause" ||
				de.Message == "Path component cannot be an empty string" ||
				strings.HasPrefix(de.Message, msgDMLFrom+" at ") ||
				de.Message == msgAliasing ||
				strings.HasPrefix(de.Message, msgPathComponent+" at "))
			if !ok || de.Type != "ValidationException" || !known {
				t.Fatalf("%q: bad error %v", s, err)
			}
			return
		}
		if st.Kind < Select || st.Kind > Exists {
			t.Fatalf("%q: incomplete statement %+v", s, st)
		}
	})
}
