package vectors

import (
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

// invalidParam opens the texts of ddberr.InvalidParam.
const invalidParam = "One or more parameter values were invalid: "

// anyProjection stands for the core's check of an index Projection.
func anyProjection(*wire.Projection) *ddberr.Error { return nil }

func createInput(vxs ...wire.VectorIndex) *wire.CreateTableInput {
	return &wire.CreateTableInput{
		TableName:            wire.Ptr("v"),
		AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: wire.Ptr("pk"), AttributeType: "S"}, {AttributeName: wire.Ptr("g"), AttributeType: "S"}},
		VectorIndexes:        vxs,
	}
}

func vectorIndex(name, attrName string, dims int64, schema ...wire.SearchSchemaElement) wire.VectorIndex {
	return wire.VectorIndex{IndexName: wire.Ptr(name), VectorAttribute: &wire.VectorAttributeDefinition{AttributeName: wire.Ptr(attrName)},
		Dimensions: wire.Ptr(dims), DistanceFunction: "COSINE", Projection: &wire.Projection{ProjectionType: "ALL"}, SearchSchema: schema}
}

// TestValidateCreate: CreateTable's vector index refusals, in DynamoDB's
// words and order.
func TestValidateCreate(t *testing.T) {
	keys := []KeyAttr{{Name: "pk", Type: attr.S}}
	hash := func(n string) wire.SearchSchemaElement {
		return wire.SearchSchemaElement{AttributeName: wire.Ptr(n), SearchSchemaElementType: "HASH"}
	}
	cases := []struct {
		name string
		in   *wire.CreateTableInput
		ppr  bool
		want string // "" when accepted
	}{
		{"accepted", createInput(vectorIndex("a", "emb", 3, hash("g"))), true, ""},
		{"provisioned", createInput(vectorIndex("a", "emb", 3)), false, MsgPayPerRequest},
		{"too many", createInput(vectorIndex("a", "e", 3), vectorIndex("b", "e", 3), vectorIndex("c", "e", 3), vectorIndex("d", "e", 3),
			vectorIndex("e", "e", 3), vectorIndex("f", "e", 3)), true, "VectorIndex count exceeds the per-table limit of 5"},
		{"dimensions", createInput(vectorIndex("a", "emb", 4097)), true, "Number of dimensions must be between 1 and 4096 inclusive."},
		{"defined vector", createInput(vectorIndex("a", "g", 3)), true,
			"Conflicting attribute definition for 'g'. An attribute cannot be defined in AttributeDefinitions when used as a VectorAttribute."},
		{"undefined schema", createInput(vectorIndex("a", "emb", 3, hash("x"))), true, "One element in SearchSchema is not defined in attribute definitions"},
		{"duplicate name", createInput(vectorIndex("a", "emb", 3), vectorIndex("a", "emb", 3)), true, "Duplicate index name: a"},
		{"dimensions differ", createInput(vectorIndex("a", "emb", 3), vectorIndex("b", "emb", 4)), true,
			"Conflicting attribute definition for 'emb'. All VectorIndexes on the same vector attribute must use the same dimensions."},
	}
	for _, c := range cases {
		err := ValidateCreate(c.in, c.ppr, keys, anyProjection)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || err.Message != invalidParam+c.want):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestBuildAndSettle: a stored description parses into an Index (IDs from
// the record, SearchSchema types from the definitions), and Settle turns
// CreateTable's CREATING indexes ACTIVE but not one being backfilled.
func TestBuildAndSettle(t *testing.T) {
	in := createInput(vectorIndex("a", "emb", 3, wire.SearchSchemaElement{AttributeName: wire.Ptr("g"), SearchSchemaElementType: "HASH"}), vectorIndex("b", "emb", 3))
	d := &wire.TableDescription{}
	for _, v := range DefsOfCreate(in.VectorIndexes) {
		d.VectorIndexes = append(d.VectorIndexes, NewDescription("arn:t", v, statusCreating))
	}
	d.VectorIndexes[1].Backfilling = wire.Ptr(true)
	ids := map[string]uint32{"a": 4, "b": 5}
	vxs, err := Build("v", d.VectorIndexes, func(n string) (uint32, bool) { id, ok := ids[n]; return id, ok }, map[string]attr.Type{"g": attr.S})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := ByName(vxs, "a")
	if !ok || a.ID != 4 || a.Dims != 3 || a.Distance != vector.Cosine || a.Hash == nil || a.Hash.Type != attr.S || a.Projection != "ALL" {
		t.Fatalf("index a built as %+v", a)
	}
	if !IsHashAttr(vxs, "g") || IsHashAttr(vxs, "emb") {
		t.Fatal("IsHashAttr")
	}
	if !Building(d) {
		t.Fatal("an index being backfilled is not Building")
	}
	Settle(d)
	if s := d.VectorIndexes[0].IndexStatus; s != statusActive {
		t.Fatalf("settled status %s", s)
	}
	if s := d.VectorIndexes[1].IndexStatus; s != statusCreating {
		t.Fatalf("backfilling index settled to %s", s)
	}
	if _, err := Build("v", d.VectorIndexes, func(string) (uint32, bool) { return 0, false }, nil); err == nil {
		t.Fatal("an index without an ID was built")
	}
}
