package reads

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/engine/indexes"
	"github.com/kura-db/kura/internal/engine/throttle"
	"github.com/kura-db/kura/internal/engine/vectors"
	"github.com/kura-db/kura/internal/expr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// fakeTable is a table without secondary indexes, throughput limits or
// meters, as a core would give it.
type fakeTable struct{ *change.Table }

func (fakeTable) Limit(string, bool) (throttle.Limit, bool)             { return throttle.Limit{}, false }
func (fakeTable) ARN() string                                           { return "arn:aws:dynamodb:us-east-1:000000000000:table/T" }
func (fakeTable) WriteIndexes() []string                                { return nil }
func (fakeTable) ReadIndex(string) string                               { return "" }
func (fakeTable) Meters() *throttle.Meters                              { return nil }
func (fakeTable) Index(string) (*indexes.Index, bool)                   { return nil, false }
func (fakeTable) VectorIndexes() []*vectors.Index                       { return nil }
func (fakeTable) CheckKeyPaths(*expr.Condition, *expr.Projection) error { return nil }

// fakeCore knows one table.
type fakeCore struct{ t fakeTable }

func (c fakeCore) ReadTable(name, _ *string) (Table, error) {
	if name == nil || *name != c.t.Name {
		return nil, ddberr.TableNotFound()
	}
	return c.t, nil
}

func ptr[T any](v T) *T { return &v }

func s(v string) attr.Value { return attr.Value{T: attr.S, Str: v} }
func n(v string) attr.Value { return attr.Value{T: attr.N, Str: v} }

// newReads is Reads over a memory store holding items of table T (pk S,
// sk N), written as the core stores them.
func newReads(t *testing.T, items ...attr.Item) *Reads {
	t.Helper()
	tab := &change.Table{Name: "T", ID: 7, Hash: change.KeyAttr{Name: "pk", Type: attr.S},
		Range: &change.KeyAttr{Name: "sk", Type: attr.N}}
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	txn, err := store.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if err := txn.Set(itemKey(tab, it), attr.AppendItem(nil, it)); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return New(fakeCore{fakeTable{tab}}, store, throttle.NewQuota(throttle.Config{}, false, time.Now))
}

// partition is items p/0 .. p/count-1 with a value attribute.
func partition(p string, count int) []attr.Item {
	var out []attr.Item
	for i := 0; i < count; i++ {
		out = append(out, attr.Item{"pk": s(p), "sk": n(fmt.Sprint(i)), "v": s(strings.Repeat("x", 10))})
	}
	return out
}

func sortKeys(items []attr.Item) string {
	var out []string
	for _, it := range items {
		out = append(out, it["sk"].Str)
	}
	return strings.Join(out, " ")
}

func queryIn(p string) *wire.QueryInput {
	return &wire.QueryInput{TableName: ptr("T"), KeyConditionExpression: ptr("pk = :p"),
		ExpressionAttributeValues: attr.Item{":p": s(p)}}
}

// TestQueryPages reads a partition page by page, forward and back, and
// checks the counts, LastEvaluatedKey and the capacity of each page.
func TestQueryPages(t *testing.T) {
	r := newReads(t, append(partition("a", 5), partition("b", 3)...)...)
	for _, c := range []struct {
		forward bool
		want    []string
	}{{true, []string{"0 1", "2 3", "4"}}, {false, []string{"4 3", "2 1", "0"}}} {
		in := queryIn("a")
		in.Limit, in.ScanIndexForward, in.ReturnConsumedCapacity = ptr[int32](2), ptr(c.forward), "TOTAL"
		var got []string
		for {
			out, err := r.Query(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, sortKeys(out.Items))
			if *out.Count != int32(len(out.Items)) || *out.ScannedCount != *out.Count {
				t.Errorf("Count %d ScannedCount %d for %d items", *out.Count, *out.ScannedCount, len(out.Items))
			}
			if cc := out.ConsumedCapacity; cc == nil || *cc.CapacityUnits != 0.5 || *cc.TableName != "T" {
				t.Errorf("ConsumedCapacity %+v, want 0.5 units of T", cc)
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			if len(out.LastEvaluatedKey) != 2 || out.LastEvaluatedKey["pk"].Str != "a" {
				t.Fatalf("LastEvaluatedKey %v", out.LastEvaluatedKey)
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
		if g := strings.Join(got, "|"); g != strings.Join(c.want, "|") {
			t.Errorf("forward %v: pages %q, want %q", c.forward, g, strings.Join(c.want, "|"))
		}
	}
}

// TestQueryEncoded checks that QueryEncoded sends the items Query decodes,
// and that a filter turns the encoding off.
func TestQueryEncoded(t *testing.T) {
	r := newReads(t, append(partition("a", 4), partition("b", 2)...)...)
	out, err := r.Query(context.Background(), queryIn("a"))
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for i, it := range out.Items {
		if i > 0 {
			want = append(want, ',')
		}
		want = attr.AppendItemJSON(want, it)
	}
	eout, items, encoded, err := r.QueryEncoded(context.Background(), queryIn("a"), nil)
	if err != nil || !encoded || eout.Items != nil || *eout.Count != 4 {
		t.Fatalf("QueryEncoded: encoded %v, Items %v, %v", encoded, eout.Items, err)
	}
	if string(items) != string(want) {
		t.Errorf("encoded items\n%s\nwant\n%s", items, want)
	}
	in := queryIn("a")
	in.FilterExpression = ptr("v = :v")
	in.ExpressionAttributeValues[":v"] = s("x")
	fout, _, encoded, err := r.QueryEncoded(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if encoded || fout.Items == nil || len(fout.Items) != 0 || *fout.ScannedCount != 4 {
		t.Errorf("filtered QueryEncoded: encoded %v, items %v, scanned %d", encoded, fout.Items, *fout.ScannedCount)
	}
}

// TestQueryErrors checks DynamoDB's texts for what the reads refuse.
func TestQueryErrors(t *testing.T) {
	r := newReads(t, partition("a", 2)...)
	for _, c := range []struct {
		name string
		edit func(in *wire.QueryInput)
		want string
	}{
		{"no table", func(in *wire.QueryInput) { in.TableName = ptr("U") }, "Requested resource not found"},
		{"no key condition", func(in *wire.QueryInput) { in.KeyConditionExpression = nil; in.ExpressionAttributeValues = nil },
			"1 validation error detected: Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."},
		{"filter on a key", func(in *wire.QueryInput) { in.FilterExpression = ptr("sk > :p") },
			"Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"},
		{"start key outside", func(in *wire.QueryInput) { in.ExclusiveStartKey = attr.Item{"pk": s("b"), "sk": n("1")} },
			"The provided starting key is outside query boundaries based on provided conditions"},
		{"start key shape", func(in *wire.QueryInput) { in.ExclusiveStartKey = attr.Item{"pk": s("a")} },
			"The provided starting key is invalid"},
		{"start key type", func(in *wire.QueryInput) { in.ExclusiveStartKey = attr.Item{"pk": s("a"), "sk": s("1")} },
			"The provided key element does not match the schema"},
		{"select", func(in *wire.QueryInput) { in.Select = "ALL_PROJECTED_ATTRIBUTES" },
			"1 validation error detected: ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"},
	} {
		in := queryIn("a")
		c.edit(in)
		_, err := r.Query(context.Background(), in)
		if e := ddberr.As(err); e == nil || e.Message != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
