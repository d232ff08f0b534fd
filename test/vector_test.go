package test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// vecIndex is a VectorIndex definition for tests.
func vecIndex(name, attr string, dims int64, dist types.VectorDistanceFunction, proj types.ProjectionType, schema ...types.SearchSchemaElement) types.VectorIndex {
	return types.VectorIndex{
		IndexName:        aws.String(name),
		VectorAttribute:  &types.VectorAttributeDefinition{AttributeName: aws.String(attr)},
		Dimensions:       aws.Int64(dims),
		DistanceFunction: dist,
		Projection:       &types.Projection{ProjectionType: proj},
		SearchSchema:     schema,
	}
}

// createVectorTable creates an on-demand table pk (S) [+ sk (S)] with the
// given vector indexes and extra attribute definitions.
func createVectorTable(t *testing.T, c *dynamodb.Client, withSK bool, defs []types.AttributeDefinition, vx ...types.VectorIndex) string {
	t.Helper()
	name := uniqueTable("vec")
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: append([]types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}, defs...),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes:        vx,
	}
	if withSK {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	if _, err := c.CreateTable(bg, in); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return name
}

// vecAV is a vector attribute value; numbers are formatted exactly.
func vecAV(v []float64) types.AttributeValue {
	l := make([]types.AttributeValue, len(v))
	for i, x := range v {
		l[i] = N(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return &types.AttributeValueMemberL{Value: l}
}

func searchVec(v []float64) []types.AttributeValue {
	return vecAV(v).(*types.AttributeValueMemberL).Value
}

// wantFoundByOwnVector searches index "vix" with each item's own "emb"
// vector (TopK 1) and requires the item itself back (at score 0 when
// exactScore is set): the index agrees with the table.
func wantFoundByOwnVector(t *testing.T, c *dynamodb.Client, table string, items []map[string]types.AttributeValue, exactScore bool) {
	t.Helper()
	for _, item := range items {
		var v []float64
		for _, x := range item["emb"].(*types.AttributeValueMemberL).Value {
			f, _ := strconv.ParseFloat(x.(*types.AttributeValueMemberN).Value, 64)
			v = append(v, f)
		}
		out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("vix"), SearchVector: searchVec(v), TopK: aws.Int32(1)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.SearchResults) != 1 || (exactScore && out.SearchResults[0].Score != 0) ||
			out.SearchResults[0].Item["pk"].(*types.AttributeValueMemberS).Value != item["pk"].(*types.AttributeValueMemberS).Value {
			t.Fatalf("item %v not found by its own vector: %+v", item["pk"], out.SearchResults)
		}
	}
}

// randVec is a deterministic pseudo-embedding.
func randVec(r *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = math.Round((r.Float64()*2-1)*1e4) / 1e4
	}
	return v
}

// oracle computes DynamoDB's score of a stored vector for a query, with
// float32 vectors and float64 accumulation.
func oracle(dist types.VectorDistanceFunction, q, v []float64) float64 {
	var dot, qq, vv, l2 float64
	for i := range q {
		a, b := float64(float32(q[i])), float64(float32(v[i]))
		dot += a * b
		qq += a * a
		vv += b * b
		l2 += (a - b) * (a - b)
	}
	switch dist {
	case types.VectorDistanceFunctionEuclidean:
		return math.Sqrt(l2)
	case types.VectorDistanceFunctionDotProduct:
		return dot
	}
	if qq == 0 || vv == 0 {
		return 1
	}
	return 1 - dot/math.Sqrt(qq*vv)
}

func TestVectorScoresMatchOracle(t *testing.T) {
	skipInCluster(t, "searches right after writes: a node's vector index follows the other nodes' writes within about 1 s")
	c := ddb()
	const dims = 8
	table := createVectorTable(t, c, false, nil,
		vecIndex("cos", "emb", dims, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll),
		vecIndex("euc", "emb", dims, types.VectorDistanceFunctionEuclidean, types.ProjectionTypeKeysOnly),
		vecIndex("dot", "emb", dims, types.VectorDistanceFunctionDotProduct, types.ProjectionTypeKeysOnly))
	r := rand.New(rand.NewPCG(1, 2))
	vecs := map[string][]float64{}
	for i := 0; i < 60; i++ {
		k := fmt.Sprintf("item%03d", i)
		vecs[k] = randVec(r, dims)
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(k), "emb": vecAV(vecs[k])}}); err != nil {
			t.Fatal(err)
		}
	}
	// The table keeps the numbers exactly.
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("item000")}})
	if err != nil {
		t.Fatal(err)
	}
	if l := got.Item["emb"].(*types.AttributeValueMemberL).Value; l[0].(*types.AttributeValueMemberN).Value != strconv.FormatFloat(vecs["item000"][0], 'g', -1, 64) {
		t.Fatalf("stored number changed: %v", l[0])
	}
	q := randVec(r, dims)
	for _, tc := range []struct {
		index string
		dist  types.VectorDistanceFunction
	}{{"cos", types.VectorDistanceFunctionCosine}, {"euc", types.VectorDistanceFunctionEuclidean}, {"dot", types.VectorDistanceFunctionDotProduct}} {
		out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String(tc.index), SearchVector: searchVec(q), TopK: aws.Int32(10)})
		if err != nil {
			t.Fatalf("%s: %v", tc.index, err)
		}
		type hit struct {
			k string
			s float64
		}
		var want []hit
		for k, v := range vecs {
			want = append(want, hit{k, oracle(tc.dist, q, v)})
		}
		sort.Slice(want, func(i, j int) bool {
			if tc.dist == types.VectorDistanceFunctionDotProduct {
				return want[i].s > want[j].s
			}
			return want[i].s < want[j].s
		})
		if len(out.SearchResults) != 10 {
			t.Fatalf("%s: %d results", tc.index, len(out.SearchResults))
		}
		for i, res := range out.SearchResults {
			k := res.Item["pk"].(*types.AttributeValueMemberS).Value
			if k != want[i].k || math.Abs(res.Score-want[i].s) > 1e-5 {
				t.Fatalf("%s #%d: got %s %.7f, want %s %.7f", tc.index, i, k, res.Score, want[i].k, want[i].s)
			}
			if _, ok := res.Item["emb"]; ok {
				t.Fatalf("%s: vector returned without being requested", tc.index)
			}
		}
	}
	// The vector is returned when projected and requested.
	out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("cos"), SearchVector: searchVec(q), TopK: aws.Int32(1),
		ProjectionExpression: aws.String("emb, pk"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out.SearchResults[0].Item["emb"]; !ok || out.ConsumedCapacity == nil || aws.ToFloat64(out.ConsumedCapacity.VectorSearchRequestBytes) <= 0 {
		t.Fatalf("projection/capacity: %+v", out)
	}
	// KEYS_ONLY: the key and the vector can still be asked for (ScyllaDB's
	// Alternator tests, which are run against DynamoDB).
	out, err = c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("euc"), SearchVector: searchVec(q), TopK: aws.Int32(1), ProjectionExpression: aws.String("emb, pk")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out.SearchResults[0].Item["emb"]; !ok {
		t.Fatal("KEYS_ONLY index did not return the vector asked for")
	}
	// TopK above the item count returns every indexed item; deletes leave the index.
	if _, err := c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("item000")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("item001")}, UpdateExpression: aws.String("REMOVE emb")}); err != nil {
		t.Fatal(err)
	}
	out, err = c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("dot"), SearchVector: searchVec(q), TopK: aws.Int32(100)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.SearchResults) != 58 {
		t.Fatalf("got %d results, want 58", len(out.SearchResults))
	}
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.Table.VectorIndexes); n != 3 || d.Table.VectorIndexes[0].IndexStatus != types.IndexStatusActive || aws.ToInt64(d.Table.VectorIndexes[0].ItemCount) != 58 || d.Table.VectorIndexes[0].Backfilling != nil {
		t.Fatalf("describe: %+v", d.Table.VectorIndexes)
	}
}

func TestVectorValidation(t *testing.T) {
	skipInCluster(t, "searches right after writes: a node's vector index follows the other nodes' writes within about 1 s")
	c := ddb()
	defs := []types.AttributeDefinition{{AttributeName: aws.String("tenant"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("lang"), AttributeType: types.ScalarAttributeTypeS}}
	table := createVectorTable(t, c, false, defs, vecIndex("vix", "emb", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll,
		types.SearchSchemaElement{AttributeName: aws.String("tenant"), SearchSchemaElementType: types.SearchSchemaElementTypeHash},
		types.SearchSchemaElement{AttributeName: aws.String("lang"), SearchSchemaElementType: types.SearchSchemaElementTypeInlineFilter}))
	put := func(item map[string]types.AttributeValue) error {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		return err
	}
	wantAPIError(t, put(map[string]types.AttributeValue{"pk": S("a"), "emb": vecAV([]float64{1, 2})}), "ValidationException",
		"One or more parameter values were invalid. Invalid size for parameter emb, Expected: 3, Actual: 2 IndexName: vix")
	wantAPIError(t, put(map[string]types.AttributeValue{"pk": S("a"), "emb": S("x")}), "ValidationException",
		"One or more parameter values were invalid. Invalid type for parameter emb, Expected: 32-bit floating point number list IndexName: vix")
	wantAPIError(t, put(map[string]types.AttributeValue{"pk": S("a"), "emb": &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1"), S("2"), N("3")}}}), "ValidationException",
		"One or more parameter values were invalid. Invalid type for parameter emb[1], Expected: 32-bit floating point number, Actual: S. IndexName: vix")
	wantAPIError(t, put(map[string]types.AttributeValue{"pk": S("a"), "emb": &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1"), N("1E+39"), N("3")}}}), "ValidationException",
		"One or more parameter values were invalid. Invalid value for parameter emb[1], Value: 1.0E39 is outside valid range [-3.4028235E38, 3.4028235E38]. IndexName: vix")
	wantAPIError(t, put(map[string]types.AttributeValue{"pk": S("a"), "tenant": S(""), "emb": vecAV([]float64{1, 2, 3})}), "ValidationException",
		"One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: vix, IndexKey: tenant")
	for i, it := range []struct{ pk, tenant, lang string }{{"a", "t1", "en"}, {"b", "t1", "ja"}, {"c", "t2", "en"}} {
		if err := put(map[string]types.AttributeValue{"pk": S(it.pk), "tenant": S(it.tenant), "lang": S(it.lang), "emb": vecAV([]float64{1, float64(i), 0})}); err != nil {
			t.Fatal(err)
		}
	}
	if err := put(map[string]types.AttributeValue{"pk": S("nohash"), "emb": vecAV([]float64{1, 0, 0})}); err != nil {
		t.Fatal(err) // not indexed: no HASH attribute
	}
	search := func(topK int32, cond string, vals map[string]types.AttributeValue, q []float64) (*dynamodb.SearchVectorsOutput, error) {
		in := &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("vix"), SearchVector: searchVec(q), TopK: aws.Int32(topK), ExpressionAttributeValues: vals}
		if cond != "" {
			in.SearchConditionExpression = aws.String(cond)
		}
		return c.SearchVectors(bg, in)
	}
	q := []float64{1, 0, 0}
	_, err := search(101, "tenant = :t", map[string]types.AttributeValue{":t": S("t1")}, q)
	wantAPIError(t, err, "ValidationException", "Provided TopK value '101' is out of valid range. The value must be between 1 and 100 inclusive")
	_, err = search(5, "", nil, q)
	wantAPIError(t, err, "ValidationException", "SearchConditionExpression must be provided when SearchSchema has a HASH key")
	_, err = search(5, "tenant = :t", map[string]types.AttributeValue{":t": S("t1")}, []float64{1, 0})
	wantAPIError(t, err, "ValidationException", "Input search vector dimension 2 does not match vector index dimension 3")
	_, err = search(5, "tenant > :t", map[string]types.AttributeValue{":t": S("t1")}, q)
	wantAPIError(t, err, "ValidationException", "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression")
	_, err = search(5, "tenant = :t AND pk = :p", map[string]types.AttributeValue{":t": S("t1"), ":p": S("a")}, q)
	wantAPIError(t, err, "ValidationException", "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: pk")
	out, err := search(5, "tenant = :t", map[string]types.AttributeValue{":t": S("t1")}, q)
	if err != nil || len(out.SearchResults) != 2 {
		t.Fatalf("hash filter: %v %+v", err, out)
	}
	out, err = search(5, "tenant = :t AND lang = :l", map[string]types.AttributeValue{":t": S("t1"), ":l": S("ja")}, q)
	if err != nil || len(out.SearchResults) != 1 || out.SearchResults[0].Item["pk"].(*types.AttributeValueMemberS).Value != "b" {
		t.Fatalf("inline filter: %v %+v", err, out)
	}
	_, err = c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("nope"), SearchVector: searchVec(q), TopK: aws.Int32(1)})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: nope")

	// CreateTable rules.
	_, err = c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("vecbad")), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes:         []types.VectorIndex{vecIndex("vix", "emb", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables")
	_, err = c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("vecbad")), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes: []types.VectorIndex{vecIndex("vix", "emb", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll,
			types.SearchSchemaElement{AttributeName: aws.String("cat"), SearchSchemaElementType: types.SearchSchemaElementTypeHash})}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: One element in SearchSchema is not defined in attribute definitions")
	_, err = c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("vecbad")), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes: []types.VectorIndex{vecIndex("vix1", "emb", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll),
			vecIndex("vix2", "emb", 4, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll)}})
	// Texts of DynamoDB in eu-west-2, 2026-08-11 (a public conformance suite).
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Conflicting attribute definition for 'emb'. All VectorIndexes on the same vector attribute must use the same dimensions.")
	_, err = c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("vecbad")), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes:        []types.VectorIndex{vecIndex("vix", "emb", 4097, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Number of dimensions must be between 1 and 4096 inclusive.")
}

// waitVectorActive polls DescribeTable until the index is ACTIVE.
func waitVectorActive(t *testing.T, c *dynamodb.Client, table, index string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range d.Table.VectorIndexes {
			if aws.ToString(v.IndexName) == index && v.IndexStatus == types.IndexStatusActive {
				if v.Backfilling != nil {
					t.Fatalf("ACTIVE index reports Backfilling %v", *v.Backfilling)
				}
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("vector index %s never became ACTIVE", index)
}

func TestVectorUpdateTableBackfill(t *testing.T) {
	skipInCluster(t, "searches right after writes: a node's vector index follows the other nodes' writes within about 1 s")
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 300; i++ {
		item := map[string]types.AttributeValue{"pk": S(fmt.Sprintf("k%03d", i)), "emb": vecAV(randVec(r, 16))}
		if i%10 == 0 {
			item["emb"] = S("not a vector") // existing invalid values are skipped by the backfill
		}
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), VectorIndexUpdates: []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{
		IndexName: aws.String("late"), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")}, Dimensions: aws.Int64(16),
		DistanceFunction: types.VectorDistanceFunctionEuclidean, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if v := out.TableDescription.VectorIndexes; len(v) != 1 || v[0].IndexStatus != types.IndexStatusCreating || v[0].Backfilling == nil {
		t.Fatalf("UpdateTable response: %+v", v)
	}
	waitVectorActive(t, c, table, "late")
	s, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("late"), SearchVector: searchVec(randVec(r, 16)), TopK: aws.Int32(100)})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.SearchResults) != 100 {
		t.Fatalf("got %d results", len(s.SearchResults))
	}
	d, _ := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if n := aws.ToInt64(d.Table.VectorIndexes[0].ItemCount); n != 270 {
		t.Fatalf("ItemCount %d, want 270", n)
	}
	if _, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), VectorIndexUpdates: []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("late")}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("late"), SearchVector: searchVec(randVec(r, 16)), TopK: aws.Int32(1)})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: late")
}

// TestVectorSmallToBig is W2's small-to-big layout: children hold only the
// embedding, a KEYS_ONLY index finds them, the app GetItems the parent.
func TestVectorSmallToBig(t *testing.T) {
	skipInCluster(t, "searches right after writes: a node's vector index follows the other nodes' writes within about 1 s")
	c := ddb()
	table := createVectorTable(t, c, true, nil, vecIndex("NarrationChunkIndex", "embedding", 32, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly))
	r := rand.New(rand.NewPCG(3, 4))
	topic := map[string][]float64{}
	for _, doc := range []string{"CONAN", "ONEPIECE", "PRECURE"} {
		topic[doc] = randVec(r, 32)
		c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(doc), "sk": S("DOC"), "title": S(doc)}})
		for p := 1; p <= 3; p++ {
			parent := fmt.Sprintf("P#%03d", p)
			c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(doc), "sk": S(parent), "bodyText": S(doc + " text " + parent)}})
			for ch := 1; ch <= 2; ch++ {
				v := make([]float64, 32)
				for i := range v {
					v[i] = topic[doc][i] + 0.05*(r.Float64()-0.5)
				}
				if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
					"pk": S(doc), "sk": S(fmt.Sprintf("%s#C#%03d", parent, ch)), "embedding": vecAV(v)}}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("NarrationChunkIndex"), SearchVector: searchVec(topic["CONAN"]), TopK: aws.Int32(5), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.SearchResults) != 5 {
		t.Fatalf("%d results", len(out.SearchResults))
	}
	for i, res := range out.SearchResults {
		if len(res.Item) != 2 || res.Item["pk"].(*types.AttributeValueMemberS).Value != "CONAN" {
			t.Fatalf("result %d: %+v", i, res.Item)
		}
		if i > 0 && res.Score < out.SearchResults[i-1].Score {
			t.Fatal("results not sorted")
		}
		sk := res.Item["sk"].(*types.AttributeValueMemberS).Value
		parent, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("CONAN"), "sk": S(sk[:5])}, ProjectionExpression: aws.String("bodyText")})
		if err != nil || parent.Item["bodyText"] == nil {
			t.Fatalf("parent of %s: %v %+v", sk, err, parent)
		}
	}
}

// TestVectorCrashAgreesWithTable kills the server mid-stream of writes and
// checks that after the restart the index holds exactly the table's vectors.
func TestVectorCrashAgreesWithTable(t *testing.T) {
	dir := t.TempDir()
	k := startKura(t, "--data-dir", dir, "--sync=false")
	c := k.client()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "emb", 8, types.VectorDistanceFunctionEuclidean, types.ProjectionTypeKeysOnly))
	r := rand.New(rand.NewPCG(9, 9))
	write := func(c *dynamodb.Client, i int) {
		c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(fmt.Sprintf("k%03d", i%150)), "emb": vecAV(randVec(r, 8))}})
	}
	for i := 0; i < 200; i++ {
		write(c, i)
	}
	k.stop() // clean stop: a snapshot is written
	k = startKura(t, "--data-dir", dir, "--sync=false")
	c = k.client()
	for i := 200; i < 400; i++ {
		write(c, i)
		if i%7 == 0 {
			c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S(fmt.Sprintf("k%03d", i%150))}})
		}
	}
	k.kill()
	k = startKura(t, "--data-dir", dir)
	c = k.client()
	scan, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	wantFoundByOwnVector(t, c, table, scan.Items, true)
	d, _ := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if n := aws.ToInt64(d.Table.VectorIndexes[0].ItemCount); n != int64(len(scan.Items)) {
		t.Fatalf("index holds %d vectors, table %d items", n, len(scan.Items))
	}
}

// A GSI added to and deleted from a table with a vector index leaves the
// definitions of the vector index's SearchSchema attributes in place.
func TestVectorDefinitionsSurviveGSIChanges(t *testing.T) {
	c := ddb()
	defs := []types.AttributeDefinition{{AttributeName: aws.String("tenant"), AttributeType: types.ScalarAttributeTypeS}}
	table := createVectorTable(t, c, false, defs, vecIndex("vix", "emb", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll,
		types.SearchSchemaElement{AttributeName: aws.String("tenant"), SearchSchemaElementType: types.SearchSchemaElementTypeHash}))
	names := func() []string {
		t.Helper()
		d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range d.Table.AttributeDefinitions {
			out = append(out, aws.ToString(a.AttributeName))
		}
		return out
	}
	update := func(u types.GlobalSecondaryIndexUpdate, defs ...types.AttributeDefinition) {
		t.Helper()
		if _, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
			AttributeDefinitions: defs, GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{u}}); err != nil {
			t.Fatal(err)
		}
		waitIndex(t, c, table, 10*time.Second, func(g []types.GlobalSecondaryIndexDescription) bool {
			return len(g) == 0 || g[0].IndexStatus == types.IndexStatusActive
		})
	}
	update(types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("gsi1"),
		KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
	if got := names(); !slices.Equal(got, []string{"g", "pk", "tenant"}) {
		t.Fatalf("after the GSI create: AttributeDefinitions %v", got)
	}
	update(types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("gsi1")}})
	if got := names(); !slices.Equal(got, []string{"pk", "tenant"}) {
		t.Fatalf("after the GSI delete: AttributeDefinitions %v", got)
	}
	// PartiQL reads a vector index as a Scan of it answers (a suite run
	// against DynamoDB).
	_, err := c.ExecuteStatement(bg, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + table + `"."vix"`)})
	wantAPIError(t, err, "ValidationException", "Scan operation not supported on this index type")
}

// What a vector write costs, as a conformance suite pins DynamoDB's figures:
// VectorWriteRequestBytes is the item size of the index entry with the
// vector attribute counted as its name plus 4 bytes per dimension, at least
// 1024 per index; the base item's write units count that attribute the same
// way, whatever numbers it holds.
func TestVectorWriteCapacity(t *testing.T) {
	c := ddb()
	const three, six, long = "embedding", "sixdimvec", "embeddingWithALongerName"
	table := createVectorTable(t, c, false, nil,
		vecIndex("vix", three, 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll),
		vecIndex("vkeys", three, 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly),
		vecIndex("vdims", six, 6, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll),
		vecIndex("vname", long, 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll))
	write := func(it map[string]types.AttributeValue, mode types.ReturnConsumedCapacity) *types.ConsumedCapacity {
		t.Helper()
		out, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it, ReturnConsumedCapacity: mode})
		if err != nil {
			t.Fatal(err)
		}
		return out.ConsumedCapacity
	}
	bytesOf := func(cc *types.ConsumedCapacity, index string) float64 {
		return aws.ToFloat64(cc.VectorIndexes[index].VectorWriteRequestBytes)
	}
	blob := S(strings.Repeat("x", 1500))
	entry := func(key, attrName string, v []float64) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": S(key), attrName: vecAV(v), "blob": blob}
	}
	if cc := write(map[string]types.AttributeValue{"pk": S("f0"), three: vecAV([]float64{0, 1, 0})}, types.ReturnConsumedCapacityIndexes); bytesOf(cc, "vix") != 1024 {
		t.Fatalf("small entry: %v, want the 1024 floor", bytesOf(cc, "vix"))
	}
	cc := write(entry("3a", three, []float64{1, 0, 0}), types.ReturnConsumedCapacityIndexes)
	if bytesOf(cc, "vix") <= 1024 || bytesOf(cc, "vkeys") != 1024 {
		t.Fatalf("floor per index: vix %v, vkeys %v", bytesOf(cc, "vix"), bytesOf(cc, "vkeys"))
	}
	a := bytesOf(write(entry("3b", three, []float64{1, 0, 0}), types.ReturnConsumedCapacityIndexes), "vix")
	if b := bytesOf(write(entry("6b", six, []float64{1, 0, 0, 0, 1, 0}), types.ReturnConsumedCapacityIndexes), "vdims"); b-a != 12 {
		t.Fatalf("three more dimensions cost %v bytes, want 12", b-a)
	}
	a = bytesOf(write(entry("3c", three, []float64{1, 0, 0}), types.ReturnConsumedCapacityIndexes), "vix")
	if b := bytesOf(write(entry("nc", long, []float64{1, 0, 0}), types.ReturnConsumedCapacityIndexes), "vname"); b-a != float64(len(long)-len(three)) {
		t.Fatalf("a longer attribute name costs %v bytes, want %d", b-a, len(long)-len(three))
	}

	// An item of exactly 1024 billed bytes (38-digit numbers are 20 bytes
	// each as numbers, 4 as a billed dimension) costs one write unit.
	wide := &types.AttributeValueMemberL{Value: []types.AttributeValue{N(strings.Repeat("1", 38)), N(strings.Repeat("2", 38)), N(strings.Repeat("3", 38))}}
	billed := func(target int, key string) map[string]types.AttributeValue {
		fixed := len("pk") + len(key) + len(three) + 12 + len("pad")
		return map[string]types.AttributeValue{"pk": S(key), three: wide, "pad": S(strings.Repeat("p", target-fixed))}
	}
	for _, x := range []struct {
		target int
		key    string
		units  float64
	}{{1024, "a3", 1}, {1025, "b3", 2}} {
		if u := aws.ToFloat64(write(billed(x.target, x.key), types.ReturnConsumedCapacityTotal).CapacityUnits); u != x.units {
			t.Fatalf("%d billed bytes: %v write units, want %v", x.target, u, x.units)
		}
	}
}

// The table keeps a vector's numbers as written; the index holds (and a
// search returns) their float32 copy, as a suite run against DynamoDB finds.
func TestVectorSearchReturnsFloat32Copy(t *testing.T) {
	skipInCluster(t, "searches right after writes: a node's vector index follows the other nodes' writes within about 1 s")
	c := ddb()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "emb", 3, types.VectorDistanceFunctionEuclidean, types.ProjectionTypeAll))
	item := map[string]types.AttributeValue{"pk": S("a"), "emb": &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1"), N("16777217"), N("0")}}}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
	out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("vix"),
		SearchVector: searchVec([]float64{1, 16777216, 0}), TopK: aws.Int32(1), ProjectionExpression: aws.String("emb")})
	if err != nil || len(out.SearchResults) != 1 {
		t.Fatalf("search: %v %v", out, err)
	}
	if got := str(t, out.SearchResults[0].Item["emb"].(*types.AttributeValueMemberL).Value[1]); got != "16777216" {
		t.Fatalf("searched vector element %s, want the float32 16777216", got)
	}
	g, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("a")}})
	if err != nil || str(t, g.Item["emb"].(*types.AttributeValueMemberL).Value[1]) != "16777217" {
		t.Fatalf("stored vector: %v %v", g.Item, err)
	}
}

// SearchVectors deserialises its body strictly before validating members:
// an explicit null for a required member is a SerializationException in
// the deserialiser's words, a missing one a ValidationException naming the
// field, ahead of member constraints such as a too-short IndexName
// (us-east-1 and eu-west-2, 2026-10-09, in a public conformance suite).
// The column is the byte offset on the line after the null or the object.
func TestSearchVectorsStrictBody(t *testing.T) {
	for _, c := range []struct{ body, typ, msg string }{
		{`{"TableName":"vec_absent","IndexName":null,"SearchVector":[{"N":"1"}],"TopK":1}`,
			"SerializationException", "invalid type: null, expected a string at line 1 column 42"},
		{`{"TableName":null,"IndexName":"vix","SearchVector":[{"N":"1"}],"TopK":1}`,
			"SerializationException", "invalid type: null, expected a string at line 1 column 17"},
		{`{"TableName":"vec_absent","IndexName":"vix","SearchVector":null,"TopK":1}`,
			"SerializationException", "invalid type: null, expected a sequence at line 1 column 63"},
		{`{"TableName":"vec_absent","IndexName":"vix","SearchVector":[{"N":"1"}],"TopK":null}`,
			"SerializationException", "invalid type: null, expected i32 at line 1 column 82"},
		{`{"IndexName":"vix","SearchVector":[{"N":"1"}],"TopK":1}`,
			"ValidationException", "missing field `TableName` at line 1 column 55"},
		{`{"IndexName":"ab","SearchVector":[{"N":"1"}],"TopK":1}`,
			"ValidationException", "missing field `TableName` at line 1 column 54"},
		{"{\n \"TableName\": \"vec_absent\",\n \"SearchVector\": [{\"N\":\"1\"}]\n}",
			"ValidationException", "missing field `IndexName` at line 4 column 1"},
		{`{"IndexName":"vix","SearchVector":[{"N":"1"}],"TopK":"1"}`,
			"SerializationException", ""},
		// An optional member given as null is absent.
		{`{"TableName":"vec_absent","IndexName":"vix","SearchVector":[{"N":"1"}],"TopK":1,"SearchConditionExpression":null}`,
			"ResourceNotFoundException", "Requested resource not found"},
	} {
		typ, msg := rawCall(t, shared, "SearchVectors", c.body)
		if typ != c.typ || (c.msg != "" && msg != c.msg) {
			t.Errorf("%s\n got %s: %q\nwant %s: %q", c.body, typ, msg, c.typ, c.msg)
		}
	}
}

// A DOT_PRODUCT score past the 32-bit range is answered as the largest
// 32-bit float, signed, not an error (captured from DynamoDB, 2026-08-13,
// by another emulator's authors; ScyllaDB's Alternator tests see a very
// large score); Kura answered HTTP 500.
func TestSearchVectorsScoreOverflow(t *testing.T) {
	skipInCluster(t, "searches right after writes: a node's vector index follows the other nodes' writes within about 1 s")
	c := ddb()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "v", 3, types.VectorDistanceFunctionDotProduct, types.ProjectionTypeAll))
	for pk, v := range map[string][]float64{"high": {1e38, 0, 0}, "mid": {1, 0, 0}, "low": {-1e38, 0, 0}} {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(pk), "v": vecAV(v)}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("vix"),
		SearchVector: []types.AttributeValue{N("1e38"), N("0"), N("0")}, TopK: aws.Int32(3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.SearchResults) != 3 || out.SearchResults[0].Score != math.MaxFloat32 || out.SearchResults[2].Score != -math.MaxFloat32 {
		t.Fatalf("results %+v", out.SearchResults)
	}
}

// A GSI cannot take the name of a vector index (ScyllaDB's Alternator
// tests, which are run against DynamoDB).
func TestGSINamedLikeVectorIndex(t *testing.T) {
	c := ddb()
	table := createVectorTable(t, c, false, nil, vecIndex("vec", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll))
	wantAPIError(t, addGSI(c, table, "vec", "g"), "ValidationException", "Attempting to create an index which already exists")
}

// The vector attribute can be asked for from any index, as the key can,
// and a projection that keeps nothing answers an empty Item (ScyllaDB's
// Alternator tests, which are run against DynamoDB).
func TestSearchVectorsProjectsVectorAndEmptyItem(t *testing.T) {
	skipInCluster(t, "searches right after writes: a node's vector index follows the other nodes' writes within about 1 s")
	c := ddb()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "v", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly))
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
		Item: map[string]types.AttributeValue{"pk": S("a"), "v": vecAV([]float64{1, 0, 0}), "x": S("unprojected")}}); err != nil {
		t.Fatal(err)
	}
	search := func(proj string) map[string]types.AttributeValue {
		t.Helper()
		out, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("vix"),
			SearchVector: []types.AttributeValue{N("1"), N("0"), N("0")}, TopK: aws.Int32(1), ProjectionExpression: aws.String(proj)})
		if err != nil || len(out.SearchResults) != 1 {
			t.Fatalf("%s: %v %+v", proj, err, out)
		}
		return out.SearchResults[0].Item
	}
	if it := search("pk, v"); len(it) != 2 || it["v"] == nil {
		t.Fatalf("pk, v: %v", it)
	}
	if it := search("x"); it == nil || len(it) != 0 {
		t.Fatalf("x: %#v", it)
	}
}

// A vector index added by UpdateTable cannot use an attribute a secondary
// index keys on (ScyllaDB's Alternator tests, which are run against
// DynamoDB); CreateTable refuses the same through AttributeDefinitions.
func TestUpdateTableVectorOnIndexKey(t *testing.T) {
	c := ddb()
	name := uniqueTable("vecgsi")
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("x"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byX"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("x"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	_, err = c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(name), VectorIndexUpdates: []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{
		IndexName: aws.String("vix"), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("x")}, Dimensions: aws.Int64(3),
		DistanceFunction: types.VectorDistanceFunctionCosine, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Conflicting attribute definition for 'x'. An attribute cannot be defined in AttributeDefinitions when used as a VectorAttribute.")
}
