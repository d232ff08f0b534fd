package test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// legacyCond is one KeyConditions/QueryFilter entry.
func legacyCond(op types.ComparisonOperator, vals ...types.AttributeValue) types.Condition {
	return types.Condition{ComparisonOperator: op, AttributeValueList: vals}
}

// TestLegacyKeyConditionsMultiAttributeGSI: KeyConditions may name more
// than two attributes when the index's key has them (moto's tests run
// against DynamoDB: hash EQ, first RANGE EQ, second RANGE GT returns the
// matching items; skipping a RANGE attribute is refused naming it). On a
// key of one or two attributes the old limit's text stays.
func TestLegacyKeyConditionsMultiAttributeGSI(t *testing.T) {
	c := ddb()
	table := createIndexed(t, c, defs("pk", "S", "sk", "S", "g", "S", "r1", "S", "r2", "N"),
		[]types.GlobalSecondaryIndex{
			{IndexName: aws.String("multi"), KeySchema: ks("g", "HASH", "r1", "RANGE", "r2", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("plain"), KeySchema: ks("g", "HASH", "r1", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		}, nil)
	for i, it := range []item{
		{"g": S("p1"), "r1": S("a"), "r2": N("100")},
		{"g": S("p1"), "r1": S("a"), "r2": N("200")},
		{"g": S("p1"), "r1": S("a"), "r2": N("300")},
		{"g": S("p1"), "r1": S("b"), "r2": N("150")},
		{"g": S("p2"), "r1": S("a"), "r2": N("250")},
	} {
		it["pk"], it["sk"] = S(string(rune('0'+i))), S("x")
		put(t, c, table, it)
	}
	query := func(index string, kc map[string]types.Condition) (*dynamodb.QueryOutput, error) {
		return c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index), KeyConditions: kc})
	}
	out, err := query("multi", map[string]types.Condition{
		"g":  legacyCond(types.ComparisonOperatorEq, S("p1")),
		"r1": legacyCond(types.ComparisonOperatorEq, S("a")),
		"r2": legacyCond(types.ComparisonOperatorGt, N("100")),
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 2 || str(t, out.Items[0]["r2"]) != "200" || str(t, out.Items[1]["r2"]) != "300" {
		t.Fatalf("hash EQ, r1 EQ, r2 GT: %d %v", out.Count, out.Items)
	}
	_, err = query("multi", map[string]types.Condition{
		"g":  legacyCond(types.ComparisonOperatorEq, S("p1")),
		"r2": legacyCond(types.ComparisonOperatorGt, N("100")),
	})
	wantAPIError(t, err, "ValidationException", "RANGE key attributes r1 must have equality conditions specified in the query because a condition is present on key attribute r2")

	three := map[string]types.Condition{
		"g":  legacyCond(types.ComparisonOperatorEq, S("p1")),
		"r1": legacyCond(types.ComparisonOperatorEq, S("a")),
		"r2": legacyCond(types.ComparisonOperatorGt, N("100")),
	}
	_, err = query("plain", three)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Conditions can be of length 1 or 2 only")
	_, err = c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditions: three})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Conditions can be of length 1 or 2 only")
}

// TestScanParameterTexts: a Segment out of range is refused with the
// figures (dynalite's tests and a conformance suite, both run against
// DynamoDB), and Select=SPECIFIC_ATTRIBUTES without a projection is
// refused bare by Scan and with the prefix by Query (moto's aws_verified
// tests and that suite).
func TestScanParameterTexts(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	_, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(3), TotalSegments: aws.Int32(3)})
	wantAPIError(t, err, "ValidationException", "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 3 is not less than TotalSegments: 3")
	_, err = c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(7), TotalSegments: aws.Int32(2)})
	wantAPIError(t, err, "ValidationException", "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 7 is not less than TotalSegments: 2")
	const specific = "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
	_, err = c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectSpecificAttributes})
	wantAPIError(t, err, "ValidationException", specific)
	_, err = c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), Select: types.SelectSpecificAttributes,
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("a")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: "+specific)
}

// TestSelectAllAttributesOnPartialGSI: Select=ALL_ATTRIBUTES on a GSI that
// projects less than ALL is refused in every form of Query and Scan: key
// condition expression or KeyConditions, with and without a filter of
// either kind (dynalite's tests, which are run against DynamoDB, record
// the text; issue 33 item 12 found this already so).
func TestSelectAllAttributesOnPartialGSI(t *testing.T) {
	c := ddb()
	table := threeIndexTable(t, c)
	put(t, c, table, item{"pk": S("a"), "sk": S("b"), "g": S("G"), "gs": N("1"), "x": N("1")})
	tn := aws.String(table)
	hash := map[string]types.Condition{"g": legacyCond(types.ComparisonOperatorEq, S("G"))}
	filter := map[string]types.Condition{"x": legacyCond(types.ComparisonOperatorEq, N("1"))}
	for _, idx := range []string{"GKeys", "GInc"} {
		want := "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index " + idx + " because its projection type is not ALL"
		ix, all := aws.String(idx), types.SelectAllAttributes
		for i, in := range []*dynamodb.QueryInput{
			{KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": S("G")}},
			{KeyConditionExpression: aws.String("g = :g"), FilterExpression: aws.String("x = :x"), ExpressionAttributeValues: item{":g": S("G"), ":x": N("1")}},
			{KeyConditions: hash},
			{KeyConditions: hash, QueryFilter: filter},
		} {
			in.TableName, in.IndexName, in.Select = tn, ix, all
			_, err := c.Query(bg, in)
			if err == nil {
				t.Fatalf("%s Query form %d: no error", idx, i)
			}
			wantAPIError(t, err, "ValidationException", want)
		}
		for i, in := range []*dynamodb.ScanInput{
			{},
			{FilterExpression: aws.String("x = :x"), ExpressionAttributeValues: item{":x": N("1")}},
			{ScanFilter: filter},
		} {
			in.TableName, in.IndexName, in.Select = tn, ix, all
			_, err := c.Scan(bg, in)
			if err == nil {
				t.Fatalf("%s Scan form %d: no error", idx, i)
			}
			wantAPIError(t, err, "ValidationException", want)
		}
	}
	// An index projecting ALL answers whole items.
	out, err := c.Query(bg, &dynamodb.QueryInput{TableName: tn, IndexName: aws.String("GAll"), Select: types.SelectAllAttributes,
		KeyConditions: hash, QueryFilter: filter})
	if err != nil || out.Count != 1 || len(out.Items[0]) != 5 {
		t.Fatalf("GAll: %v %v", out, err)
	}
}

// TestListIndexOutOfRange: a document path's list index past Java's int
// range (or of more than ten digits) is refused as out of range, not as a
// syntax error on the token (emulators' tests written against DynamoDB);
// the largest int is a valid index.
func TestListIndexOutOfRange(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	put(t, c, table, item{"pk": S("a"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1")}}})
	tn, key := aws.String(table), item{"pk": S("a")}
	for _, idx := range []string{"99999999999999", "2147483648"} {
		_, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: tn, Key: key, ProjectionExpression: aws.String("l[" + idx + "]")})
		wantAPIError(t, err, "ValidationException", "Invalid ProjectionExpression: List index is not within the allowable range; index: ["+idx+"]")
	}
	_, err := c.Query(bg, &dynamodb.QueryInput{TableName: tn, KeyConditionExpression: aws.String("pk = :p"),
		FilterExpression: aws.String("l[99999999999999] = :p"), ExpressionAttributeValues: item{":p": S("a")}})
	wantAPIError(t, err, "ValidationException", "Invalid FilterExpression: List index is not within the allowable range; index: [99999999999999]")
	_, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: tn, Key: key, UpdateExpression: aws.String("SET l[4294967295] = :v"),
		ExpressionAttributeValues: item{":v": N("2")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Invalid UpdateExpression: List index is not within the allowable range; index: [4294967295]")
	// A syntax error elsewhere is reported first.
	_, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: tn, Key: key, ProjectionExpression: aws.String("l[99999999999999], ,")})
	var ae smithy.APIError
	if !errorsAs(err, &ae) || !strings.HasPrefix(ae.ErrorMessage(), "Invalid ProjectionExpression: Syntax error; token: ") {
		t.Fatalf("syntax error and index out of range: %v", err)
	}

	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: tn, Key: key, ProjectionExpression: aws.String("l[2147483647], l[0]")})
	if err != nil || len(got.Item) != 1 {
		t.Fatalf("largest index: %v %v", got, err)
	}
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: tn, Key: key, UpdateExpression: aws.String("SET l[2147483647] = :v"),
		ExpressionAttributeValues: item{":v": N("2")}}); err != nil {
		t.Fatalf("SET past the end with the largest index: %v", err)
	}
	got, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: tn, Key: key, ConsistentRead: aws.Bool(true)})
	if l, ok := got.Item["l"].(*types.AttributeValueMemberL); err != nil || !ok || len(l.Value) != 2 {
		t.Fatalf("after SET past the end: %v %v", got.Item, err)
	}
}

// TestExclusiveStartKeySchemaTexts: a table ExclusiveStartKey that does not
// match the key schema is refused, an extra (sort) attribute on a
// hash-only table included. A Scan says "The provided starting key is
// invalid: The provided key element does not match the schema" for every
// mismatch; a Query says "The provided starting key is invalid" for the
// wrong attributes and "The provided key element does not match the
// schema" for a key attribute of the wrong type (dynalite's tests, run
// against DynamoDB).
func TestExclusiveStartKeySchemaTexts(t *testing.T) {
	c := ddb()
	hash := createTable(t, c, "pk", "", "")
	rng := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	const short, schema = "The provided starting key is invalid", "The provided key element does not match the schema"
	long := short + ": " + schema
	scan := func(table string, esk item) error {
		_, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), ExclusiveStartKey: esk})
		return err
	}
	query := func(table string, esk item) error {
		_, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), ExclusiveStartKey: esk,
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("a")}})
		return err
	}
	legacy := func(table string, esk item) error {
		_, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), ExclusiveStartKey: esk,
			KeyConditions: map[string]types.Condition{"pk": legacyCond(types.ComparisonOperatorEq, S("a"))}})
		return err
	}
	for _, x := range []struct {
		table               string
		esk                 item
		scanWant, queryWant string
	}{
		{hash, item{"pk": S("a"), "sk": S("b")}, long, short}, // an extra sort attribute
		{hash, item{"bad": S("a")}, long, short},
		{hash, item{"pk": N("1")}, long, schema},
		{hash, item{"pk": BOOL(true)}, long, schema},
		{rng, item{"pk": S("a")}, long, short},
		{rng, item{"pk": S("a"), "sk": S("b"), "x": S("c")}, long, short},
		{rng, item{"pk": S("a"), "x": S("c")}, long, short},
		{rng, item{"pk": N("1"), "x": S("c")}, long, schema},
		{rng, item{"pk": S("a"), "sk": N("1")}, long, schema},
	} {
		wantAPIError(t, scan(x.table, x.esk), "ValidationException", x.scanWant)
		wantAPIError(t, query(x.table, x.esk), "ValidationException", x.queryWant)
		wantAPIError(t, legacy(x.table, x.esk), "ValidationException", x.queryWant)
	}
	// A matching key is accepted.
	if err := scan(hash, item{"pk": S("a")}); err != nil {
		t.Fatal(err)
	}
	if err := query(rng, item{"pk": S("a"), "sk": S("b")}); err != nil {
		t.Fatal(err)
	}
}

// TestEmptyAttributeNames: an attribute named "" outside the key is
// refused wherever a request names one, in an item, through an
// ExpressionAttributeNames value, in AttributesToGet, AttributeUpdates,
// Expected and the legacy filters (issue 33 item 11). The single-item
// writes send the text with the "1 validation error detected: " prefix,
// the other operations bare (ddberr.RequestInvalid).
func TestEmptyAttributeNames(t *testing.T) {
	c, table := ddb(), tableWithItemA(t)
	const bare, enveloped = "Empty attribute name", "1 validation error detected: Empty attribute name"
	key := item{"pk": S("a")}
	tn := aws.String(table)
	_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: tn, Item: item{"pk": S("a"), "": N("1")}})
	wantAPIError(t, err, "ValidationException", enveloped)
	_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: tn, Item: item{"pk": S("a"), "m": &types.AttributeValueMemberM{Value: item{"": N("1")}}}})
	wantAPIError(t, err, "ValidationException", enveloped)
	_, err = c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		table: {{PutRequest: &types.PutRequest{Item: item{"pk": S("a"), "": N("1")}}}}}})
	wantAPIError(t, err, "ValidationException", bare)
	_, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: tn, Key: key, ProjectionExpression: aws.String("#n"), ExpressionAttributeNames: map[string]string{"#n": ""}})
	wantAPIError(t, err, "ValidationException", "ExpressionAttributeNames contains invalid value: Empty attribute name for key #n")
	_, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: tn, Key: key, UpdateExpression: aws.String("SET #n = :v"),
		ExpressionAttributeNames: map[string]string{"#n": ""}, ExpressionAttributeValues: item{":v": N("1")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: ExpressionAttributeNames contains invalid value: Empty attribute name for key #n")

	// The legacy parameters.
	_, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: tn, Key: key, AttributesToGet: []string{""}})
	wantAPIError(t, err, "ValidationException", bare)
	_, err = c.Query(bg, &dynamodb.QueryInput{TableName: tn, AttributesToGet: []string{"n", ""},
		KeyConditions: map[string]types.Condition{"pk": legacyCond(types.ComparisonOperatorEq, S("a"))}})
	wantAPIError(t, err, "ValidationException", bare)
	_, err = c.Scan(bg, &dynamodb.ScanInput{TableName: tn, AttributesToGet: []string{""}})
	wantAPIError(t, err, "ValidationException", bare)
	_, err = c.BatchGetItem(bg, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		table: {Keys: []map[string]types.AttributeValue{key}, AttributesToGet: []string{""}}}})
	wantAPIError(t, err, "ValidationException", bare)
	_, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: tn, Key: key,
		AttributeUpdates: map[string]types.AttributeValueUpdate{"": {Action: types.AttributeActionPut, Value: N("1")}}})
	wantAPIError(t, err, "ValidationException", enveloped)
	_, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: tn, Key: key,
		AttributeUpdates: map[string]types.AttributeValueUpdate{"": {Action: types.AttributeActionDelete}}})
	wantAPIError(t, err, "ValidationException", enveloped)
	_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: tn, Item: key,
		Expected: map[string]types.ExpectedAttributeValue{"": {Exists: aws.Bool(false)}}})
	wantAPIError(t, err, "ValidationException", enveloped)
	_, err = c.Scan(bg, &dynamodb.ScanInput{TableName: tn, ScanFilter: map[string]types.Condition{"": legacyCond(types.ComparisonOperatorNull)}})
	wantAPIError(t, err, "ValidationException", bare)

	// Nothing was written.
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: tn, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || len(got.Item) != 2 {
		t.Fatalf("item after the refusals: %v %v", got.Item, err)
	}
}

// TestIndexExclusiveStartKeySchemaTexts: an index read's ExclusiveStartKey
// is checked as dynalite's Query and Scan tests (run against DynamoDB)
// record: the wrong attributes or a missing index key attribute get the
// short text, a mistyped index key attribute the schema text alone, a
// missing or mistyped table key attribute the long text.
func TestIndexExclusiveStartKeySchemaTexts(t *testing.T) {
	c := ddb()
	table := threeIndexTable(t, c)
	const short, schema = "The provided starting key is invalid", "The provided key element does not match the schema"
	long := short + ": " + schema
	for _, x := range []struct {
		esk  item
		want string
	}{
		{item{"pk": S("a"), "sk": S("b")}, short},
		{item{"pk": S("a"), "sk": S("b"), "g": S("G"), "x": N("1")}, short},
		{item{"pk": S("a"), "sk": S("b"), "g": N("1"), "gs": N("1")}, schema},
		{item{"pk": S("a"), "sk": S("b"), "g": S("G"), "gs": S("1")}, schema},
		{item{"pk": S("a"), "sk": N("1"), "g": S("G"), "gs": N("1")}, long},
		{item{"pk": S("a"), "x": S("b"), "g": S("G"), "gs": N("1")}, long},
	} {
		_, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("GAll"), ExclusiveStartKey: x.esk})
		wantAPIError(t, err, "ValidationException", x.want)
		_, err = c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GAll"), ExclusiveStartKey: x.esk,
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": S("G")}})
		wantAPIError(t, err, "ValidationException", x.want)
	}
	// A local index's hash is the table's: its range attribute mistyped is
	// the schema text, the table's sort key mistyped the long one.
	_, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("LKeys"),
		ExclusiveStartKey: item{"pk": S("a"), "sk": S("b"), "l": N("1")}})
	wantAPIError(t, err, "ValidationException", schema)
	_, err = c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("LKeys"),
		ExclusiveStartKey: item{"pk": S("a"), "sk": N("1"), "l": S("l")}})
	wantAPIError(t, err, "ValidationException", long)
	if _, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("GAll"),
		ExclusiveStartKey: item{"pk": S("a"), "sk": S("b"), "g": S("G"), "gs": N("1")}}); err != nil {
		t.Fatal(err)
	}
}
