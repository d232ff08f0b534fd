package expr

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
)

// The golden files under testdata/ are regenerated with
// go test ./internal/expr/ -rewrite.

func TestParse(t *testing.T)  { datadriven.RunTest(t, "testdata/parse", runCase) }
func TestEval(t *testing.T)   { datadriven.RunTest(t, "testdata/eval", runCase) }
func TestUpdate(t *testing.T) { datadriven.RunTest(t, "testdata/update", runCase) }
func TestKeyCondition(t *testing.T) {
	datadriven.RunTest(t, "testdata/keycond", runCase)
}

// fields splits a case's input into "key: value" lines.
func fields(t *testing.T, input string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(input, "\n") {
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		m[k] = strings.TrimPrefix(v, " ")
	}
	return m
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	if de, ok := err.(*ddberr.Error); ok {
		return "error: " + de.Message
	}
	return "error: " + err.Error()
}

func runCase(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "condition", "filter", "keycondition":
		kind := map[string]Kind{"condition": KindCondition, "filter": KindFilter, "keycondition": KindKeyCondition}[d.Cmd]
		c, err := ParseCondition(kind, d.Input)
		if err != nil {
			return errText(err)
		}
		return c.String() + "\n"
	case "update":
		u, err := ParseUpdate(d.Input)
		if err != nil {
			return errText(err)
		}
		return u.String() + "\n"
	case "projection":
		p, err := ParseProjection(d.Input)
		if err != nil {
			return errText(err)
		}
		return p.String() + "\n"
	case "eval", "apply", "project", "analyze":
		return runEval(t, d)
	}
	t.Fatalf("unknown command %q", d.Cmd)
	return ""
}

func runEval(t *testing.T, d *datadriven.TestData) string {
	f := fields(t, d.Input)
	var names map[string]string
	if s, ok := f["names"]; ok {
		if err := json.Unmarshal([]byte(s), &names); err != nil {
			t.Fatal(err)
		}
	}
	var values attr.Item
	if s, ok := f["values"]; ok {
		values = parseItem(t, s)
	}
	var item attr.Item
	if s, ok := f["item"]; ok {
		item = parseItem(t, s)
	}
	p := NewParams(names, values)
	switch d.Cmd {
	case "eval":
		c, err := ParseCondition(KindCondition, f["cond"])
		if err == nil {
			err = p.ResolveCondition(c)
		}
		if err == nil {
			err = p.CheckUnused()
		}
		if err != nil {
			return errText(err)
		}
		ok, err := c.Eval(item)
		if err != nil {
			return errText(err)
		}
		return fmt.Sprintln(ok)
	case "apply":
		before := formatItem(item)
		u, err := ParseUpdate(f["update"])
		if err == nil {
			err = p.ResolveUpdate(u)
		}
		if err == nil {
			err = p.CheckUnused()
		}
		if err != nil {
			return errText(err)
		}
		out, paths, err := u.Apply(item)
		if after := formatItem(item); after != before {
			t.Fatalf("input item mutated: %s -> %s", before, after)
		}
		if err != nil {
			return errText(err)
		}
		ps := make([]string, len(paths))
		for i, q := range paths {
			ps[i] = q.String()
		}
		return formatItem(out) + "\npaths: " + strings.Join(ps, ", ") +
			"\nold: " + formatItem(Project(item, paths)) + "\nnew: " + formatItem(Project(out, paths)) + "\n"
	case "project":
		pr, err := ParseProjection(f["proj"])
		if err == nil {
			err = p.ResolveProjection(pr)
		}
		if err != nil {
			return errText(err)
		}
		return formatItem(pr.Apply(item)) + "\n"
	case "analyze":
		c, err := ParseCondition(KindKeyCondition, f["cond"])
		if err == nil {
			err = p.ResolveCondition(c)
		}
		if err != nil {
			return errText(err)
		}
		var hash, rng []string
		if f["hash"] != "" {
			hash = strings.Split(f["hash"], ",")
		}
		if f["range"] != "" {
			rng = strings.Split(f["range"], ",")
		}
		kc, err := AnalyzeKeyCondition(c, hash, rng)
		if err != nil {
			return errText(err)
		}
		var b strings.Builder
		for _, k := range append(append([]KeyPart(nil), kc.Hash...), kc.Range...) {
			fmt.Fprintf(&b, "%s %s", k.Name, k.Op)
			for _, v := range k.Values {
				b.WriteString(" " + formatValue(v))
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	return ""
}

// parseItem reads DynamoDB JSON (test helper, no validation).
func parseItem(t *testing.T, s string) attr.Item {
	var raw map[string]any
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	it := attr.Item{}
	for k, v := range raw {
		it[k] = toValue(t, v)
	}
	return it
}

func toValue(t *testing.T, x any) attr.Value {
	m, ok := x.(map[string]any)
	if !ok || len(m) != 1 {
		t.Fatalf("bad attribute value %v", x)
	}
	for k, v := range m {
		switch k {
		case "S":
			return attr.Value{T: attr.S, Str: v.(string)}
		case "N":
			return attr.Value{T: attr.N, Str: v.(string)}
		case "B":
			b, _ := base64.StdEncoding.DecodeString(v.(string))
			return attr.Value{T: attr.B, Bin: b}
		case "BOOL":
			return attr.Value{T: attr.BOOL, Bool: v.(bool)}
		case "NULL":
			return attr.Value{T: attr.NULL}
		case "SS", "NS":
			var ss []string
			for _, e := range v.([]any) {
				ss = append(ss, e.(string))
			}
			return attr.Value{T: map[string]attr.Type{"SS": attr.SS, "NS": attr.NS}[k], Strs: ss}
		case "BS":
			var bs [][]byte
			for _, e := range v.([]any) {
				b, _ := base64.StdEncoding.DecodeString(e.(string))
				bs = append(bs, b)
			}
			return attr.Value{T: attr.BS, Bins: bs}
		case "L":
			l := []attr.Value{}
			for _, e := range v.([]any) {
				l = append(l, toValue(t, e))
			}
			return attr.Value{T: attr.L, List: l}
		case "M":
			mm := map[string]attr.Value{}
			for kk, e := range v.(map[string]any) {
				mm[kk] = toValue(t, e)
			}
			return attr.Value{T: attr.M, Map: mm}
		}
	}
	t.Fatalf("bad attribute value %v", x)
	return attr.Value{}
}

// formatItem prints an item as compact DynamoDB JSON with sorted keys.
func formatItem(it attr.Item) string {
	m := map[string]any{}
	for k, v := range it {
		m[k] = fromValue(v)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func fromValue(v attr.Value) any {
	switch v.T {
	case attr.S, attr.N:
		return map[string]any{v.T.String(): v.Str}
	case attr.B:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Bin)}
	case attr.BOOL:
		return map[string]any{"BOOL": v.Bool}
	case attr.NULL:
		return map[string]any{"NULL": true}
	case attr.SS, attr.NS:
		ss := append([]string(nil), v.Strs...)
		sort.Strings(ss)
		return map[string]any{v.T.String(): ss}
	case attr.BS:
		var ss []string
		for _, b := range v.Bins {
			ss = append(ss, base64.StdEncoding.EncodeToString(b))
		}
		sort.Strings(ss)
		return map[string]any{"BS": ss}
	case attr.L:
		l := []any{}
		for _, e := range v.List {
			l = append(l, fromValue(e))
		}
		return map[string]any{"L": l}
	case attr.M:
		m := map[string]any{}
		for k, e := range v.Map {
			m[k] = fromValue(e)
		}
		return map[string]any{"M": m}
	}
	return nil
}
