package test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type item = map[string]types.AttributeValue

func ks(pairs ...string) []types.KeySchemaElement {
	var out []types.KeySchemaElement
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(pairs[i]), KeyType: types.KeyType(pairs[i+1])})
	}
	return out
}

func defs(pairs ...string) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(pairs[i]), AttributeType: types.ScalarAttributeType(pairs[i+1])})
	}
	return out
}

// createIndexed creates an on-demand table pk/sk (S) with the given indexes
// and deletes it when the test ends.
func createIndexed(t *testing.T, c *dynamodb.Client, ad []types.AttributeDefinition, gsis []types.GlobalSecondaryIndex, lsis []types.LocalSecondaryIndex) string {
	t.Helper()
	name := uniqueTable(strings.ReplaceAll(t.Name(), "/", "_"))
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:              aws.String(name),
		BillingMode:            types.BillingModePayPerRequest,
		AttributeDefinitions:   ad,
		KeySchema:              ks("pk", "HASH", "sk", "RANGE"),
		GlobalSecondaryIndexes: gsis,
		LocalSecondaryIndexes:  lsis,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return name
}

func put(t *testing.T, c *dynamodb.Client, table string, it item) {
	t.Helper()
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		t.Fatalf("PutItem %v: %v", it, err)
	}
}

// queryAll pages through a Query and returns every item.
func queryAll(t *testing.T, c *dynamodb.Client, in *dynamodb.QueryInput) []item {
	t.Helper()
	var out []item
	p := dynamodb.NewQueryPaginator(c, in)
	for p.HasMorePages() {
		page, err := p.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
	}
	return out
}

// scanAll pages through a Scan and returns every item.
func scanAll(t *testing.T, c *dynamodb.Client, in *dynamodb.ScanInput) []item {
	t.Helper()
	var out []item
	p := dynamodb.NewScanPaginator(c, in)
	for p.HasMorePages() {
		page, err := p.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
	}
	return out
}

func attrNames(it item) string {
	var names []string
	for k := range it {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

func threeIndexTable(t *testing.T, c *dynamodb.Client) string {
	return createIndexed(t, c, defs("pk", "S", "sk", "S", "g", "S", "gs", "N", "l", "S"),
		[]types.GlobalSecondaryIndex{
			{IndexName: aws.String("GAll"), KeySchema: ks("g", "HASH", "gs", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("GKeys"), KeySchema: ks("g", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("GInc"), KeySchema: ks("g", "HASH", "gs", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"a"}}},
		},
		[]types.LocalSecondaryIndex{
			{IndexName: aws.String("LKeys"), KeySchema: ks("pk", "HASH", "l", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
		})
}

// Sparse indexes, projections, ordering, updates that move entries.
func TestIndexMaintenanceAndProjection(t *testing.T) {
	c := ddb()
	table := threeIndexTable(t, c)
	put(t, c, table, item{"pk": S("p1"), "sk": S("a"), "g": S("G"), "gs": N("2"), "a": S("x"), "b": S("y"), "l": S("l2")})
	put(t, c, table, item{"pk": S("p1"), "sk": S("b"), "g": S("G"), "gs": N("1"), "a": S("x"), "b": S("y"), "l": S("l1")})
	put(t, c, table, item{"pk": S("p2"), "sk": S("a"), "g": S("G"), "gs": N("1"), "b": S("y")})
	put(t, c, table, item{"pk": S("p3"), "sk": S("a"), "g": S("G")}) // no gs: only in GKeys
	put(t, c, table, item{"pk": S("p4"), "sk": S("a"), "b": S("y")}) // in no index

	q := func(index string, fwd bool) []item {
		return queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": S("G")}, ScanIndexForward: aws.Bool(fwd)})
	}
	keysOf := func(items []item) string {
		var s []string
		for _, it := range items {
			s = append(s, str(t, it["pk"])+"/"+str(t, it["sk"]))
		}
		return strings.Join(s, " ")
	}
	// gs=1 entries come first, ordered by table key (p1/b before p2/a).
	if got := keysOf(q("GAll", true)); got != "p1/b p2/a p1/a" {
		t.Fatalf("GAll forward: %s", got)
	}
	if got := keysOf(q("GAll", false)); got != "p1/a p2/a p1/b" {
		t.Fatalf("GAll backward: %s", got)
	}
	if got := keysOf(q("GKeys", true)); got != "p1/a p1/b p2/a p3/a" {
		t.Fatalf("GKeys: %s", got)
	}
	if got := attrNames(q("GKeys", true)[0]); got != "g,pk,sk" {
		t.Fatalf("KEYS_ONLY attributes: %s", got)
	}
	inc := q("GInc", true)
	if got := attrNames(inc[0]); got != "a,g,gs,pk,sk" {
		t.Fatalf("INCLUDE attributes: %s", got)
	}
	if got := attrNames(inc[1]); got != "g,gs,pk,sk" {
		t.Fatalf("INCLUDE attributes without a: %s", got)
	}
	if got := attrNames(q("GAll", true)[2]); got != "a,b,g,gs,l,pk,sk" {
		t.Fatalf("ALL attributes: %s", got)
	}

	// Moving an entry: change the index key; remove it: drop the attribute.
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": S("p2"), "sk": S("a")},
		UpdateExpression: aws.String("SET gs = :v"), ExpressionAttributeValues: item{":v": N("9")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": S("p1"), "sk": S("b")},
		UpdateExpression: aws.String("REMOVE g")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": S("p3"), "sk": S("a")}}); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(q("GAll", true)); got != "p1/a p2/a" {
		t.Fatalf("GAll after updates: %s", got)
	}
	if got := keysOf(q("GKeys", true)); got != "p1/a p2/a" {
		t.Fatalf("GKeys after updates: %s", got)
	}

	// LSI: same partition, ordered by l; a non-projected attribute is
	// fetched from the table.
	lsi := queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("LKeys"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("p1")}})
	if got := keysOf(lsi); got != "p1/b p1/a" {
		t.Fatalf("LSI order: %s", got)
	}
	lsi = queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("LKeys"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("p1")},
		Select: types.SelectAllAttributes})
	if got := attrNames(lsi[1]); got != "a,b,g,gs,l,pk,sk" {
		t.Fatalf("LSI ALL_ATTRIBUTES fetch: %s", got)
	}
	lsi = queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("LKeys"),
		KeyConditionExpression: aws.String("pk = :p AND l > :l"), ExpressionAttributeValues: item{":p": S("p1"), ":l": S("l1")},
		ProjectionExpression: aws.String("b, l")})
	if len(lsi) != 1 || attrNames(lsi[0]) != "b,l" {
		t.Fatalf("LSI projection fetch: %v", lsi)
	}

	// Scan of an index, parallel segments together.
	var all []item
	for seg := int32(0); seg < 3; seg++ {
		all = append(all, scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("GKeys"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(3)})...)
	}
	if len(all) != 2 {
		t.Fatalf("parallel index scan: %d items", len(all))
	}
	// An index Scan's start key without the index's key attributes gets
	// the short text (as an index Query does; a table Scan's is longer).
	_, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("GKeys"), ExclusiveStartKey: item{"pk": S("p1"), "sk": S("a")}})
	wantAPIError(t, err, "ValidationException", "The provided starting key is invalid")

	// DescribeTable counts entries.
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, g := range d.Table.GlobalSecondaryIndexes {
		counts[*g.IndexName] = *g.ItemCount
		if g.IndexStatus != types.IndexStatusActive || g.IndexArn == nil || *g.IndexSizeBytes <= 0 {
			t.Fatalf("GSI description: %+v", g)
		}
	}
	for _, l := range d.Table.LocalSecondaryIndexes {
		counts[*l.IndexName] = *l.ItemCount
	}
	if !onCluster && fmt.Sprint(counts) != "map[GAll:2 GInc:2 GKeys:2 LKeys:2]" { // per node in the cluster run (countIs)
		t.Fatalf("index item counts: %v", counts)
	}
}

// Index key validation on writes, and read-side validation.
func TestIndexValidation(t *testing.T) {
	c := ddb()
	table := threeIndexTable(t, c)
	_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": S("p"), "sk": S("s"), "g": N("1")}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: GAll")
	_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": S("p"), "sk": S("s"), "l": S("")}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: LKeys, IndexKey: l")
	_, err = c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {{PutRequest: &types.PutRequest{Item: item{"pk": S("p"), "sk": S("s"), "gs": S("x")}}}}}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key gs Expected: N Actual: S IndexName: GAll")
	put(t, c, table, item{"pk": S("p"), "sk": S("s"), "g": S("G")})
	_, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": S("p"), "sk": S("s")},
		UpdateExpression: aws.String("SET g = :v"), ExpressionAttributeValues: item{":v": BOOL(true)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: BOOL IndexName: GAll")
	_, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": S("p"), "sk": S("s")},
		UpdateExpression: aws.String("SET g = :v"), ExpressionAttributeValues: item{":v": S("")}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.")
	// The failed writes changed nothing.
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: item{"pk": S("p"), "sk": S("s")}})
	if err != nil || str(t, got.Item["g"]) != "G" {
		t.Fatalf("item after failed writes: %v %v", got.Item, err)
	}

	qi := func(index string, mod func(*dynamodb.QueryInput)) error {
		in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": S("G")}}
		if mod != nil {
			mod(in)
		}
		_, err := c.Query(bg, in)
		return err
	}
	wantAPIError(t, qi("Nope", nil), "ValidationException", "The table does not have the specified index: Nope")
	wantAPIError(t, qi("GAll", func(in *dynamodb.QueryInput) { in.ConsistentRead = aws.Bool(true) }), "ValidationException", "Consistent reads are not supported on global secondary indexes")
	wantAPIError(t, qi("GKeys", func(in *dynamodb.QueryInput) { in.Select = types.SelectAllAttributes }), "ValidationException",
		"One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index GKeys because its projection type is not ALL")
	wantAPIError(t, qi("GAll", func(in *dynamodb.QueryInput) {
		in.FilterExpression = aws.String("gs > :z")
		in.ExpressionAttributeValues[":z"] = N("0")
	}), "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: gs")
	wantAPIError(t, qi("GAll", func(in *dynamodb.QueryInput) {
		in.KeyConditionExpression = aws.String("pk = :g")
	}), "ValidationException", "Query condition missed key schema element: g")
	wantAPIError(t, qi("GAll", func(in *dynamodb.QueryInput) {
		in.ExpressionAttributeValues[":g"] = N("1")
	}), "ValidationException", "One or more parameter values were invalid: Condition parameter type does not match schema type")
	_, err = c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("GAll"), ConsistentRead: aws.Bool(true)})
	wantAPIError(t, err, "ValidationException", "Consistent reads are not supported on global secondary indexes")
	// A table filter on the table's own key is fine on an index query.
	if err := qi("GAll", func(in *dynamodb.QueryInput) {
		in.FilterExpression = aws.String("pk = :p")
		in.ExpressionAttributeValues[":p"] = S("p")
	}); err != nil {
		t.Fatal(err)
	}
}

// Pagination over an index: LastEvaluatedKey carries table and index keys,
// and pages concatenate to the full result in both directions.
func TestIndexPagination(t *testing.T) {
	c := ddb()
	table := threeIndexTable(t, c)
	var items []item
	for i := 0; i < 60; i++ {
		items = append(items, item{"pk": S(fmt.Sprintf("p%02d", i)), "sk": S("s"), "g": S("G"), "gs": N(fmt.Sprint(i % 7)), "a": S("x")})
	}
	batchPut(t, c, table, items)
	full := queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GInc"),
		KeyConditionExpression: aws.String("g = :g AND gs BETWEEN :lo AND :hi"), ExpressionAttributeValues: item{":g": S("G"), ":lo": N("2"), ":hi": N("5")}})
	if len(full) != 34 {
		t.Fatalf("full: %d", len(full))
	}
	for _, fwd := range []bool{true, false} {
		in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GInc"), Limit: aws.Int32(4), ScanIndexForward: aws.Bool(fwd),
			KeyConditionExpression: aws.String("g = :g AND gs BETWEEN :lo AND :hi"), ExpressionAttributeValues: item{":g": S("G"), ":lo": N("2"), ":hi": N("5")}}
		out, err := c.Query(bg, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := attrNames(out.LastEvaluatedKey); got != "g,gs,pk,sk" {
			t.Fatalf("LastEvaluatedKey: %s", got)
		}
		paged := queryAll(t, c, in)
		if len(paged) != len(full) {
			t.Fatalf("paged %d items, want %d", len(paged), len(full))
		}
		for i := range paged {
			j := i
			if !fwd {
				j = len(full) - 1 - i
			}
			if str(t, paged[i]["pk"]) != str(t, full[j]["pk"]) {
				t.Fatalf("fwd=%v: item %d is %s, want %s", fwd, i, str(t, paged[i]["pk"]), str(t, full[j]["pk"]))
			}
		}
	}
	scanned := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("GKeys"), Limit: aws.Int32(7)})
	if len(scanned) != 60 {
		t.Fatalf("paged index scan: %d", len(scanned))
	}
}

// ReturnConsumedCapacity INDEXES reports the table and each index written.
func TestIndexConsumedCapacity(t *testing.T) {
	c := ddb()
	table := threeIndexTable(t, c)
	out, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		Item: item{"pk": S("p"), "sk": S("s"), "g": S("G"), "gs": N("1"), "l": S("l")}})
	if err != nil {
		t.Fatal(err)
	}
	cc := out.ConsumedCapacity
	if *cc.CapacityUnits != 5 || *cc.Table.CapacityUnits != 1 || len(cc.GlobalSecondaryIndexes) != 3 || *cc.LocalSecondaryIndexes["LKeys"].CapacityUnits != 1 {
		t.Fatalf("put capacity: %+v", cc)
	}
	// Moving the GSI key costs two writes in GAll and GInc; GKeys is untouched.
	uout, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": S("p"), "sk": S("s")},
		UpdateExpression: aws.String("SET gs = :v"), ExpressionAttributeValues: item{":v": N("2")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	cc = uout.ConsumedCapacity
	if *cc.CapacityUnits != 5 || *cc.GlobalSecondaryIndexes["GAll"].CapacityUnits != 2 || *cc.GlobalSecondaryIndexes["GInc"].CapacityUnits != 2 || len(cc.LocalSecondaryIndexes) != 0 {
		t.Fatalf("update capacity: %+v %+v", cc, cc.GlobalSecondaryIndexes)
	}
	pout, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
		Item: item{"pk": S("p"), "sk": S("t"), "l": S("l")}})
	if err != nil {
		t.Fatal(err)
	}
	if m := pout.ItemCollectionMetrics; m == nil || str(t, m.ItemCollectionKey["pk"]) != "p" || fmt.Sprint(m.SizeEstimateRangeGB) != "[0 1]" {
		t.Fatalf("ItemCollectionMetrics: %+v", pout.ItemCollectionMetrics)
	}
	qout, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GAll"), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": S("G")}})
	if err != nil {
		t.Fatal(err)
	}
	cc = qout.ConsumedCapacity
	if *cc.CapacityUnits != 0.5 || *cc.GlobalSecondaryIndexes["GAll"].CapacityUnits != 0.5 || *cc.Table.CapacityUnits != 0 {
		t.Fatalf("query capacity: %+v", cc)
	}
}

// Multi-attribute GSI keys: equality on every HASH attribute, range
// conditions left to right.
func TestIndexMultiAttributeKeys(t *testing.T) {
	c := ddb()
	table := createIndexed(t, c, defs("pk", "S", "sk", "S", "tour", "S", "region", "S", "round", "N", "match", "S"),
		[]types.GlobalSecondaryIndex{{IndexName: aws.String("TourRegion"), KeySchema: ks("tour", "HASH", "region", "HASH", "round", "RANGE", "match", "RANGE"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}, nil)
	var items []item
	for i := 0; i < 24; i++ {
		items = append(items, item{"pk": S(fmt.Sprint("m", i)), "sk": S("x"), "tour": S("T1"), "region": S([]string{"EU", "US"}[i%2]),
			"round": N(fmt.Sprint(i % 3)), "match": S(fmt.Sprintf("M%02d", i))})
	}
	batchPut(t, c, table, items)
	q := func(cond string, vals item) []item {
		return queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TourRegion"),
			KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: vals,
			ExpressionAttributeNames: namesIn(cond, map[string]string{"#r": "region", "#rd": "round", "#m": "match"})})
	}
	if got := q("tour = :t AND #r = :r AND #rd >= :z", item{":t": S("T1"), ":r": S("EU"), ":z": N("0")}); len(got) != 12 {
		t.Fatalf("hash only: %d", len(got))
	}
	got := q("tour = :t AND #r = :r AND #rd = :n AND #m > :m", item{":t": S("T1"), ":r": S("EU"), ":n": N("0"), ":m": S("M05")})
	if len(got) != 3 || str(t, got[0]["match"]) != "M06" {
		t.Fatalf("round=0 match>M05: %v", got)
	}
	_, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TourRegion"),
		KeyConditionExpression: aws.String("tour = :t"), ExpressionAttributeValues: item{":t": S("T1")}})
	wantAPIError(t, err, "ValidationException", "Query condition missed key schema element: region")
	// RANGE attributes are constrained left to right: a condition on one
	// needs equalities on all before it (texts as real DynamoDB words them).
	gap := func(cond string, vals item, prior, later string) {
		t.Helper()
		_, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("TourRegion"),
			KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: vals,
			ExpressionAttributeNames: namesIn(cond, map[string]string{"#r": "region", "#rd": "round", "#m": "match"})})
		wantAPIError(t, err, "ValidationException", "RANGE key attributes "+prior+" must have equality conditions specified in the query because a condition is present on key attribute "+later)
	}
	gap("tour = :t AND #r = :r AND #m = :m", item{":t": S("T1"), ":r": S("EU"), ":m": S("M05")}, "round", "match")
	gap("tour = :t AND #r = :r AND #rd > :n AND #m = :m", item{":t": S("T1"), ":r": S("EU"), ":n": N("0"), ":m": S("M05")}, "round", "match")
}

// DynamoDB lets an index be deleted while it is being created, as long as
// it is still backfilling; the table keeps working and the index goes away.
func TestIndexDeleteWhileBackfilling(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	var items []item
	for i := 0; i < 3000; i++ {
		items = append(items, item{"pk": S(fmt.Sprint("p", i%50)), "sk": S(fmt.Sprint("s", i)), "v": N(fmt.Sprint(i % 9))})
	}
	batchPut(t, c, table, items)
	out, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), AttributeDefinitions: defs("v", "N"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("ByV"), KeySchema: ks("v", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	if err != nil {
		t.Fatal(err)
	}
	// The response shows the index CREATING and, as DynamoDB's does while it
	// allocates resources, not yet Backfilling.
	if g := out.TableDescription.GlobalSecondaryIndexes[0]; g.IndexStatus != types.IndexStatusCreating || g.Backfilling == nil || *g.Backfilling {
		t.Fatalf("new index: %s backfilling %v", g.IndexStatus, g.Backfilling)
	}
	_, err = c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("ByV")}}}})
	if err != nil {
		t.Fatalf("deleting the index being backfilled: %v", err)
	}
	waitIndex(t, c, table, 30*time.Second, func(gs []types.GlobalSecondaryIndexDescription) bool { return len(gs) == 0 })
	_, err = c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("ByV"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: item{":v": N("3")}})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: ByV")
	put(t, c, table, item{"pk": S("after"), "sk": S("x"), "v": N("1")})
}

// waitIndex polls DescribeTable until pred holds for the table's GSIs.
func waitIndex(t *testing.T, c *dynamodb.Client, table string, within time.Duration, pred func([]types.GlobalSecondaryIndexDescription) bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		if pred(d.Table.GlobalSecondaryIndexes) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("index state not reached within %v", within)
}

// UpdateTable adds a GSI online (backfilled, mistyped items skipped) and
// deletes it; the limit on concurrent index changes applies.
func TestIndexOnlineCreateAndDelete(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	var items []item
	for i := 0; i < 3000; i++ {
		it := item{"pk": S(fmt.Sprint("p", i%50)), "sk": S(fmt.Sprint(i)), "v": N(fmt.Sprint(i % 10))}
		if i%100 == 0 {
			it["v"] = S("not a number")
		}
		items = append(items, it)
	}
	batchPut(t, c, table, items)
	out, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), AttributeDefinitions: defs("v", "N", "sk", "S"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("ByV"), KeySchema: ks("v", "HASH", "sk", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	if err != nil {
		t.Fatal(err)
	}
	g := out.TableDescription.GlobalSecondaryIndexes[0]
	if g.IndexStatus != types.IndexStatusCreating {
		t.Fatalf("new index status %s", g.IndexStatus)
	}
	// Writes during the backfill are indexed.
	put(t, c, table, item{"pk": S("new"), "sk": S("n"), "v": N("3")})
	// A second index change while one runs is refused (deleting the index
	// being backfilled is the exception: TestIndexDeleteWhileBackfilling).
	_, err = c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), AttributeDefinitions: defs("w", "N"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("ByW"), KeySchema: ks("w", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	if err == nil || !strings.Contains(err.Error(), "Only 1 online index can be created or deleted simultaneously per table") {
		t.Fatalf("concurrent index change: %v", err)
	}
	waitIndex(t, c, table, 30*time.Second, func(gs []types.GlobalSecondaryIndexDescription) bool {
		return len(gs) == 1 && gs[0].IndexStatus == types.IndexStatusActive && gs[0].Backfilling == nil
	})
	got := queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("ByV"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: item{":v": N("3")}})
	if len(got) != 301 {
		t.Fatalf("v=3 entries: %d", len(got))
	}
	all := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("ByV")})
	if len(all) != 2971 {
		t.Fatalf("backfilled entries: %d", len(all))
	}
	d, _ := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if n := d.Table.GlobalSecondaryIndexes[0].ItemCount; !countIs(n, 2971) {
		t.Fatalf("ItemCount %d", *n)
	}

	if _, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("ByV")}}}}); err != nil {
		t.Fatal(err)
	}
	waitIndex(t, c, table, 10*time.Second, func(gs []types.GlobalSecondaryIndexDescription) bool { return len(gs) == 0 })
	waitDefinitions()
	_, err = c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("ByV"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: item{":v": N("3")}})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: ByV")
}

// CreateTable validation of index definitions.
func TestIndexCreateTableValidation(t *testing.T) {
	c := ddb()
	try := func(g types.GlobalSecondaryIndex, ad []types.AttributeDefinition) error {
		_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("idxval")), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: ad, KeySchema: ks("pk", "HASH"), GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{g}})
		return err
	}
	err := try(types.GlobalSecondaryIndex{IndexName: aws.String("G"), KeySchema: ks("a", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly, NonKeyAttributes: []string{"x"}}}, defs("pk", "S", "a", "S"))
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'G' at 'globalSecondaryIndexes.1.member.indexName' failed to satisfy constraint: Member must have length greater than or equal to 3")
	err = try(types.GlobalSecondaryIndex{IndexName: aws.String("GSI"), KeySchema: ks("a", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly, NonKeyAttributes: []string{"x"}}}, defs("pk", "S", "a", "S"))
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified")
	err = try(types.GlobalSecondaryIndex{IndexName: aws.String("GSI"), KeySchema: ks("a", "HASH", "b", "RANGE", "c", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}, defs("pk", "S", "a", "S", "b", "S", "c", "S"))
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: All HASH key attributes must precede RANGE key attributes in the KeySchema")
	err = try(types.GlobalSecondaryIndex{IndexName: aws.String("GSI"), KeySchema: ks("a", "HASH", "b", "HASH", "c", "HASH", "d", "HASH", "e", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}, defs("pk", "S", "a", "S", "b", "S", "c", "S", "d", "S", "e", "S"))
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of HASH key attributes")
	err = try(types.GlobalSecondaryIndex{IndexName: aws.String("GSI"), KeySchema: ks("a", "HASH", "b", "HASH", "a", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}, defs("pk", "S", "a", "S", "b", "S"))
	wantAPIError(t, err, "ValidationException", "The KeySchema contains multiple key attributes with the same name")
}

// namesIn keeps the placeholders of all that occur in expr.
func namesIn(expr string, all map[string]string) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Fields(expr) {
		if v, ok := all[f]; ok {
			out[f] = v
		}
	}
	return out
}

// Index key size limits, item collection metrics of BatchWriteItem and
// reads naming a vector index, through the SDK.
func TestIndexLimitsAndCollectionMetrics(t *testing.T) {
	c := ddb()
	table := threeIndexTable(t, c)
	_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": S("p"), "sk": S("s"), "g": S(strings.Repeat("g", 2049))}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Size limit exceeded for Index Key g Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: GAll")
	_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": S("p"), "sk": S("s"), "l": S(strings.Repeat("l", 1025))}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Size limit exceeded for Index Key l Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: LKeys")
	put(t, c, table, item{"pk": S("p"), "sk": S("s"), "g": S(strings.Repeat("g", 2048)), "l": S(strings.Repeat("l", 1024))})

	out, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
		RequestItems: map[string][]types.WriteRequest{table: {
			{PutRequest: &types.PutRequest{Item: item{"pk": S("p"), "sk": S("t"), "l": S("x")}}},
			{PutRequest: &types.PutRequest{Item: item{"pk": S("q"), "sk": S("t")}}},
			{DeleteRequest: &types.DeleteRequest{Key: item{"pk": S("p"), "sk": S("s")}}},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	ms := out.ItemCollectionMetrics[table]
	if len(ms) != 2 || str(t, ms[0].ItemCollectionKey["pk"]) != "p" || str(t, ms[1].ItemCollectionKey["pk"]) != "q" ||
		fmt.Sprint(ms[0].SizeEstimateRangeGB) != "[0 1]" {
		t.Fatalf("ItemCollectionMetrics: %+v", out.ItemCollectionMetrics)
	}

	vt := createVectorTable(t, c, false, nil, vecIndex("vix", "emb", 3, types.VectorDistanceFunctionCosine, types.ProjectionTypeAll))
	_, err = c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(vt), IndexName: aws.String("vix"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("x")}})
	wantAPIError(t, err, "ValidationException", "Query operation not supported on this index type.")
	_, err = c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(vt), IndexName: aws.String("vix")})
	if err == nil || (!strings.Contains(err.Error(), "Scan operation not supported on this index type") &&
		!strings.Contains(err.Error(), "Cannot read from backfilling global secondary index: vix")) {
		t.Fatalf("Scan of a vector index: %v", err)
	}
}

// A GSI added by UpdateTable has every key attribute defined in the
// request, even one the table already knows, and with the type the table
// knows it by (ScyllaDB's Alternator tests, which are run against
// DynamoDB, quoting its redefinition text).
func TestUpdateTableGSIKeyDefinitions(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	create := func(d []types.AttributeDefinition, keys []types.KeySchemaElement) error {
		_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), AttributeDefinitions: d,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("bySk"), KeySchema: keys, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
		return err
	}
	wantAPIError(t, create(nil, ks("sk", "HASH")), "ValidationException",
		"One or more parameter values were invalid: AttributeDefinitions is not specified for index: bySk")
	wantAPIError(t, create(defs("sk", "N"), ks("sk", "HASH")), "ValidationException",
		"One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. "+
			"Existing schema: Schema:[SchemaElement: key{sk:S:RANGE}] New schema: Schema:[SchemaElement: key{sk:N:HASH}]")
	if err := create(defs("sk", "S"), ks("sk", "HASH")); err != nil {
		t.Fatal(err)
	}
}
