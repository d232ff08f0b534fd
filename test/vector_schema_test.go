package test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// createWithVector creates an on-demand table keyed pk [+ sk] with one
// vector index "vix" over "v" of the given projection, and returns the
// error (the table is deleted at the end of the test when it was made).
func createWithVector(t *testing.T, withSK bool, proj *types.Projection) error {
	t.Helper()
	c := ddb()
	name := uniqueTable("vecproj")
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes: []types.VectorIndex{{IndexName: aws.String("vix"), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("v")},
			Dimensions: aws.Int64(3), DistanceFunction: types.VectorDistanceFunctionCosine, Projection: proj}}}
	if withSK {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	_, err := c.CreateTable(bg, in)
	if err == nil {
		t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	}
	return err
}

func numberedNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("attr%d", i)
	}
	return out
}

// vecCreate is a VectorIndexUpdate creating a COSINE, KEYS_ONLY vector
// index.
func vecCreate(name, attr string, dims int64, schema ...types.SearchSchemaElement) types.VectorIndexUpdate {
	return types.VectorIndexUpdate{Create: &types.CreateVectorIndexAction{IndexName: aws.String(name),
		VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String(attr)}, Dimensions: aws.Int64(dims),
		DistanceFunction: types.VectorDistanceFunctionCosine, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		SearchSchema: schema}}
}

// addGSI sends an UpdateTable creating GSI name (ALL) keyed on attribute
// a of type S, defined in the request.
func addGSI(c *dynamodb.Client, table, name, a string) error {
	_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String(name),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(a), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	return err
}

// addVector sends an UpdateTable creating the vector index u describes,
// with the attribute definitions defs.
func addVector(c *dynamodb.Client, table string, u types.VectorIndexUpdate, defs ...types.AttributeDefinition) error {
	_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), AttributeDefinitions: defs,
		VectorIndexUpdates: []types.VectorIndexUpdate{u}})
	return err
}

// A vector index's INCLUDE projection holds at most 20 attributes, its
// vector attribute counted and the table's key attributes not (ScyllaDB's
// Alternator tests, run against DynamoDB: 19 NonKeyAttributes are taken
// and 20 refused, with either key schema); its NonKeyAttributes obey the
// Projection shape's constraints as a GSI's do.
func TestVectorProjectionLimits(t *testing.T) {
	include := func(names ...string) *types.Projection {
		return &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: names}
	}
	for _, withSK := range []bool{false, true} {
		if err := createWithVector(t, withSK, include(numberedNames(19)...)); err != nil {
			t.Fatalf("19 attributes (sort key %v): %v", withSK, err)
		}
		wantAPIError(t, createWithVector(t, withSK, include(numberedNames(20)...)), "ValidationException",
			"One or more parameter values were invalid: Number of projected attributes in vector index vix exceeds limit of 20")
	}
	// Key attributes may be listed and do not count.
	if err := createWithVector(t, true, include(append(numberedNames(19), "pk", "sk")[2:]...)); err != nil {
		t.Fatalf("keys listed: %v", err)
	}
	const at = "' at 'vectorIndexes.1.member.projection.nonKeyAttributes' failed to satisfy constraint: "
	wantAPIError(t, createWithVector(t, false, include([]string{}...)), "ValidationException",
		"1 validation error detected: Value '[]"+at+"Member must have length greater than or equal to 1")
	wantAPIError(t, createWithVector(t, false, include(numberedNames(21)...)), "ValidationException",
		"1 validation error detected: Value '[...]"+at+"Member must have length less than or equal to 20")
	wantAPIError(t, createWithVector(t, false, include("")), "ValidationException",
		"1 validation error detected: Value '[]"+at+"Member must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 1]")
}

// A GSI added by UpdateTable cannot key on a vector index's attribute, nor
// a vector index on a key attribute (texts captured from DynamoDB,
// 2026-08-12 and 2026-08-13, by another emulator's authors; ScyllaDB's
// Alternator tests agree); a vector index over a vector attribute with
// other Dimensions is answered in the same form (checkVectorDims).
func TestUpdateTableGSIOnVectorAttribute(t *testing.T) {
	c := ddb()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly))
	wantAPIError(t, addGSI(c, table, "gsi", "v"), "ValidationException", "One or more parameter values were invalid: Attributes cannot be redefined. "+
		"Please check that your attribute has the same type as previously defined. "+
		"Existing schema: VectorIndexSchema:[VectorAttribute: key{v:L:3}] New schema: Schema:[SchemaElement: key{v:S:HASH}]")
	wantAPIError(t, addVector(c, table, vecCreate("vix2", "v", 4)), "ValidationException", "One or more parameter values were invalid: Attributes cannot be redefined. "+
		"Please check that your attribute has the same type as previously defined. "+
		"Existing schema: VectorIndexSchema:[VectorAttribute: key{v:L:3}] New schema: VectorIndexSchema:[VectorAttribute: key{v:L:4}]")
	// A vector index on the table's key attribute.
	wantAPIError(t, addVector(c, table, vecCreate("vix3", "pk", 3)), "ValidationException", "One or more parameter values were invalid: Attributes cannot be redefined. "+
		"Please check that your attribute has the same type as previously defined. "+
		"Existing schema: Schema:[SchemaElement: key{pk:S:HASH}] New schema: VectorIndexSchema:[VectorAttribute: key{pk:L:3}]")
}

// DynamoDB takes a fractional Dimensions as its integer part (ScyllaDB's
// Alternator tests, run against DynamoDB: 6.7 is described as 6).
func TestVectorFractionalDimensions(t *testing.T) {
	c := ddb()
	name := uniqueTable("vecfrac")
	body := `{"TableName":"` + name + `","BillingMode":"PAY_PER_REQUEST",` +
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],` +
		`"VectorIndexes":[{"IndexName":"vix","VectorAttribute":{"AttributeName":"v"},"Dimensions":6.7,"DistanceFunction":"COSINE","Projection":{"ProjectionType":"KEYS_ONLY"}}]}`
	status, raw := rawPost(t, shared.endpoint, "CreateTable", strings.NewReader(body))
	if status != 200 {
		t.Fatalf("CreateTable: %d %s", status, raw)
	}
	t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	out, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil || len(out.Table.VectorIndexes) != 1 || aws.ToInt64(out.Table.VectorIndexes[0].Dimensions) != 6 {
		t.Fatalf("DescribeTable: %v %+v", err, out)
	}
}

// A vector index cannot be created or deleted in the UpdateTable that
// enables or disables the stream, as a GSI cannot (ScyllaDB's Alternator
// tests, run against DynamoDB, for all four combinations); the refusal
// comes before the index is looked up.
func TestUpdateTableVectorWithStream(t *testing.T) {
	c := ddb()
	table := createVectorTable(t, c, false, nil)
	create := vecCreate("vix", "v", 3)
	del := types.VectorIndexUpdate{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("nonexistent")}}
	for _, u := range []types.VectorIndexUpdate{create, del} {
		for _, s := range []*types.StreamSpecification{{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}, {StreamEnabled: aws.Bool(false)}} {
			_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), VectorIndexUpdates: []types.VectorIndexUpdate{u}, StreamSpecification: s})
			wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: You cannot create or delete index while changing stream status")
		}
	}
}

// A SearchSchema names an attribute once, whatever the element types (text
// captured from DynamoDB by another emulator's authors), holds one HASH
// element (the same) and at most 18 INLINE_FILTER elements, DynamoDB's
// documented quota (ScyllaDB's Alternator tests expect the refusal; its
// text is Kura's, worded as the HASH one).
func TestVectorSearchSchemaLimits(t *testing.T) {
	c := ddb()
	try := func(schema ...types.SearchSchemaElement) error {
		t.Helper()
		in := &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("vecss")), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			VectorIndexes:        []types.VectorIndex{vecIndex("vix", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly, schema...)}}
		seen := map[string]bool{}
		for _, s := range schema {
			if n := aws.ToString(s.AttributeName); !seen[n] {
				seen[n] = true
				in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS})
			}
		}
		_, err := c.CreateTable(bg, in)
		if err == nil {
			t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: in.TableName}) })
		}
		return err
	}
	el := func(name string, typ types.SearchSchemaElementType) types.SearchSchemaElement {
		return types.SearchSchemaElement{AttributeName: aws.String(name), SearchSchemaElementType: typ}
	}
	wantAPIError(t, try(el("x", types.SearchSchemaElementTypeInlineFilter), el("x", types.SearchSchemaElementTypeInlineFilter)),
		"ValidationException", "One or more parameter values were invalid: SearchSchema contains a duplicate AttributeName")
	wantAPIError(t, try(el("x", types.SearchSchemaElementTypeHash), el("x", types.SearchSchemaElementTypeInlineFilter)),
		"ValidationException", "One or more parameter values were invalid: SearchSchema contains a duplicate AttributeName")
	var filters []types.SearchSchemaElement
	for _, n := range numberedNames(19) {
		filters = append(filters, el(n, types.SearchSchemaElementTypeInlineFilter))
	}
	wantAPIError(t, try(filters...), "ValidationException",
		"One or more parameter values were invalid: Value '19' at 'SearchSchema' failed to satisfy constraint: Member must have INLINE_FILTER count less than or equal to 18")
	wantAPIError(t, try(el("x", types.SearchSchemaElementTypeHash), el("y", types.SearchSchemaElementTypeHash)), "ValidationException",
		"One or more parameter values were invalid: Value '2' at 'SearchSchema' failed to satisfy constraint: Member must have HASH count less than or equal to 1")
	if err := try(filters[:18]...); err != nil {
		t.Fatalf("18 INLINE_FILTER elements: %v", err)
	}
}

// An item written before its vector index, with an INLINE_FILTER attribute
// of another type, is left out by the backfill (ScyllaDB's Alternator
// tests, run against DynamoDB); one without the attribute is indexed.
func TestVectorBackfillSkipsWrongInlineType(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	for _, it := range []map[string]types.AttributeValue{
		{"pk": S("bad"), "v": vecAV([]float64{1, 0, 0}), "y": N("42")},
		{"pk": S("good"), "v": vecAV([]float64{0, 1, 0}), "y": S("42")},
		{"pk": S("none"), "v": vecAV([]float64{0, 0, 1})},
	} {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	err := addVector(c, table, vecCreate("vix", "v", 3, types.SearchSchemaElement{AttributeName: aws.String("y"), SearchSchemaElementType: types.SearchSchemaElementTypeInlineFilter}),
		types.AttributeDefinition{AttributeName: aws.String("y"), AttributeType: types.ScalarAttributeTypeS})
	if err != nil {
		t.Fatal(err)
	}
	waitVectorActive(t, c, table, "vix")
	out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("vix"),
		SearchVector: searchVec([]float64{1, 0, 0}), TopK: aws.Int32(10)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.SearchResults {
		got = append(got, r.Item["pk"].(*types.AttributeValueMemberS).Value)
	}
	if slices.Sort(got); !slices.Equal(got, []string{"good", "none"}) {
		t.Fatalf("indexed %v, want [good none]", got)
	}
}

// A vector index added by UpdateTable cannot define a SearchSchema
// attribute with another type than the table knows it by, as a GSI cannot
// (ScyllaDB's Alternator tests, run against DynamoDB); the same type is
// taken.
func TestUpdateTableVectorSearchSchemaRedefined(t *testing.T) {
	c := ddb()
	table := createVectorTable(t, c, false, []types.AttributeDefinition{{AttributeName: aws.String("x"), AttributeType: types.ScalarAttributeTypeS}},
		vecIndex("vind1", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly,
			types.SearchSchemaElement{AttributeName: aws.String("x"), SearchSchemaElementType: types.SearchSchemaElementTypeInlineFilter}))
	add := func(typ types.ScalarAttributeType) error {
		return addVector(c, table, vecCreate("vind2", "v", 3, types.SearchSchemaElement{AttributeName: aws.String("x"), SearchSchemaElementType: types.SearchSchemaElementTypeInlineFilter}),
			types.AttributeDefinition{AttributeName: aws.String("x"), AttributeType: typ})
	}
	wantAPIError(t, add(types.ScalarAttributeTypeN), "ValidationException",
		"One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined.")
	if err := add(types.ScalarAttributeTypeS); err != nil {
		t.Fatalf("same type: %v", err)
	}
	waitVectorActive(t, c, table, "vind2") // one online index change at a time
	// The request must define it even when the table does (measured against
	// DynamoDB, 2026-08-13, by another emulator's authors).
	wantAPIError(t, addVector(c, table, vecCreate("vind3", "v", 3, types.SearchSchemaElement{AttributeName: aws.String("x"), SearchSchemaElementType: types.SearchSchemaElementTypeInlineFilter})), "ValidationException", "One or more parameter values were invalid: One element in SearchSchema is not defined in attribute definitions")
}

// A nested path in a SearchConditionExpression is refused as nested, even
// on an index without a SearchSchema, and an attribute may have one
// condition (texts captured from DynamoDB by another emulator's authors;
// ScyllaDB's Alternator tests agree on the first).
func TestSearchConditionNestedPath(t *testing.T) {
	c := ddb()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly))
	for _, path := range []string{"m.a", "l[0]"} {
		_, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("vix"),
			SearchVector: searchVec([]float64{0, 0, 1}), TopK: aws.Int32(1), SearchConditionExpression: aws.String(path + " = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("foo")}})
		wantAPIError(t, err, "ValidationException", "Invalid SearchConditionExpression: SearchConditionExpression cannot have conditions on nested attributes")
	}
	schema := createVectorTable(t, c, false, []types.AttributeDefinition{{AttributeName: aws.String("cat"), AttributeType: types.ScalarAttributeTypeS}},
		vecIndex("vix", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly,
			types.SearchSchemaElement{AttributeName: aws.String("cat"), SearchSchemaElementType: types.SearchSchemaElementTypeHash}))
	_, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(schema), IndexName: aws.String("vix"),
		SearchVector: searchVec([]float64{0, 0, 1}), TopK: aws.Int32(1), SearchConditionExpression: aws.String("cat = :v AND cat = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("foo")}})
	wantAPIError(t, err, "ValidationException", "Invalid SearchConditionExpression: SearchConditionExpression must only contain one condition per attribute")
}

// A SearchVector element whose number does not read is an invalid search
// vector, as one of another type is (ScyllaDB's Alternator tests, run
// against DynamoDB, expect a text about the number); a bad number in
// ExpressionAttributeValues keeps the number's own text.
func TestSearchVectorUnreadableNumber(t *testing.T) {
	const invalid = "Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute"
	for _, n := range []string{"dog", "Inf", "NaN", "Infinity", "-Infinity", "1e1000"} {
		typ, msg := rawCall(t, shared, "SearchVectors", `{"TableName":"vec_absent","IndexName":"vix","SearchVector":[{"N":"1"},{"N":"`+n+`"},{"N":"0"}],"TopK":1}`)
		if typ != "ValidationException" || msg != invalid {
			t.Errorf("%s: %s %q", n, typ, msg)
		}
	}
	typ, msg := rawCall(t, shared, "SearchVectors", `{"TableName":"vec_absent","IndexName":"vix","SearchVector":[{"N":"1"}],"TopK":1,`+
		`"SearchConditionExpression":"a = :v","ExpressionAttributeValues":{":v":{"N":"dog"}}}`)
	if typ != "ValidationException" || msg != "The parameter cannot be converted to a numeric value: dog" {
		t.Errorf("ExpressionAttributeValues: %s %q", typ, msg)
	}
}

// VectorIndexUpdates and VectorIndexes answers captured from DynamoDB by
// another emulator's authors (eu-west-2 and us-east-1, 2026-08-12): an
// update naming both a Create and a Delete, a Delete of a missing index,
// an empty VectorIndexes list.
func TestVectorIndexUpdateShapes(t *testing.T) {
	c := ddb()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly))
	both := vecCreate("vix2", "w", 3)
	both.Delete = &types.DeleteVectorIndexAction{IndexName: aws.String("vix")}
	wantAPIError(t, addVector(c, table, both), "ValidationException", "One or more parameter values were invalid: Only one vector index action is allowed per VectorIndexUpdate object")
	err := addVector(c, table, types.VectorIndexUpdate{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("nope")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Index nope for table "+table)
	typ, msg := rawCall(t, shared, "CreateTable", `{"TableName":"vec_empty_list","BillingMode":"PAY_PER_REQUEST",`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"VectorIndexes":[]}`)
	if typ != "ValidationException" || msg != "One or more parameter values were invalid: List of VectorIndexes is empty" {
		t.Fatalf("empty VectorIndexes: %s %q", typ, msg)
	}
}

// A Put writes the whole item, so a vector stored before the index that
// does not fit it is refused when the item is put again unchanged; an
// update that leaves it alone is not (captured from DynamoDB, 2026-08-12,
// by another emulator's authors).
func TestVectorRePutChecksStoredVector(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	bad := map[string]types.AttributeValue{"pk": S("bad"), "emb": vecAV([]float64{1, 2})}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: bad}); err != nil {
		t.Fatal(err)
	}
	if err := addVector(c, table, vecCreate("vix", "emb", 3)); err != nil {
		t.Fatal(err)
	}
	waitVectorActive(t, c, table, "vix")
	const size = "One or more parameter values were invalid. Invalid size for parameter emb, Expected: 3, Actual: 2 IndexName: vix"
	_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: bad})
	wantAPIError(t, err, "ValidationException", size)
	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(table), Item: bad}}}})
	if err == nil {
		t.Fatal("TransactWriteItems Put of the stored invalid vector taken")
	}
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("bad")},
		UpdateExpression: aws.String("SET note = :o"), ExpressionAttributeValues: map[string]types.AttributeValue{":o": S("x")}}); err != nil {
		t.Fatalf("update leaving the vector alone: %v", err)
	}
}

// CreateTable refuses a defined vector attribute before it counts the
// definitions against the keys (captured from DynamoDB, 2026-08-12, by
// another emulator's authors).
func TestCreateTableVectorAttributeDefinedFirst(t *testing.T) {
	c := ddb()
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("vecdef")), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("emb"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:     []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes: []types.VectorIndex{vecIndex("vix", "emb", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Conflicting attribute definition for 'emb'. "+
		"An attribute cannot be defined in AttributeDefinitions when used as a VectorAttribute.")
}

// An UpdateItem that SETs a vector index's HASH attribute to an empty
// string is refused in the update's words, as for a GSI key (captured from
// DynamoDB, 2026-08-13, by another emulator's authors).
func TestUpdateVectorHashEmpty(t *testing.T) {
	c := ddb()
	table := createVectorTable(t, c, false, []types.AttributeDefinition{{AttributeName: aws.String("cat"), AttributeType: types.ScalarAttributeTypeS}},
		vecIndex("vix", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly,
			types.SearchSchemaElement{AttributeName: aws.String("cat"), SearchSchemaElementType: types.SearchSchemaElementTypeHash}))
	_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("ok")},
		UpdateExpression: aws.String("SET cat = :e"), ExpressionAttributeValues: map[string]types.AttributeValue{":e": S("")}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values are not valid. The update expression attempted to update a secondary index key "+
		"to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.")
}

// A fractional TopK is refused in SearchVectors' deserialiser's words, with
// the position after the number (captured from DynamoDB, 2026-08-13, by
// another emulator's authors).
func TestSearchVectorsFractionalTopK(t *testing.T) {
	for body, want := range map[string]string{
		`{"TableName":"vec_absent","IndexName":"vix","SearchVector":[{"N":"1"}],"TopK":3.5}`:                     "invalid type: floating point `3.5`, expected i32 at line 1 column 81",
		`{"TableName":"vec_absent","IndexName":"vix","SearchVector":[{"N":"1"}],"TopK":2e0}`:                     "invalid type: floating point `2.0`, expected i32 at line 1 column 81",
		"{\"TopK\": 1.25,\n\"TableName\":\"vec_absent\",\"IndexName\":\"vix\",\"SearchVector\":[{\"N\":\"1\"}]}": "invalid type: floating point `1.25`, expected i32 at line 1 column 13",
	} {
		typ, msg := rawCall(t, shared, "SearchVectors", body)
		if typ != "SerializationException" || msg != want {
			t.Errorf("%s\n got %s %q\nwant SerializationException %q", body, typ, msg, want)
		}
	}
}

// A vector index named like an LSI whose key is the vector attribute is
// refused for the name first (ScyllaDB's Alternator tests, run against
// DynamoDB).
func TestCreateTableVectorDuplicateNameFirst(t *testing.T) {
	c := ddb()
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("vecdup")), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("p"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("c"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("x"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("c"), KeyType: types.KeyTypeRange}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("hello"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("x"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		VectorIndexes: []types.VectorIndex{vecIndex("hello", "x", 7, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Duplicate index name: hello")
}

// A Put that replaces an indexed item with one lacking the vector takes
// the item out of the index (review of the whole-item check).
func TestVectorPutWithoutVectorLeavesIndex(t *testing.T) {
	c := ddb()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly))
	for _, it := range []map[string]types.AttributeValue{{"pk": S("a"), "v": vecAV([]float64{1, 0, 0})}, {"pk": S("a"), "note": S("no vector")}} {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("vix"),
		SearchVector: searchVec([]float64{1, 0, 0}), TopK: aws.Int32(5)})
	if err != nil || len(out.SearchResults) != 0 {
		t.Fatalf("after the put without a vector: %v %+v", err, out)
	}
}
