package test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The texts below are Amazon DynamoDB's (us-east-1, newest recorded wording
// in shared/dynamodb-captures).
func TestValidationMessagesMatchDynamoDB(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	key := map[string]types.AttributeValue{"pk": S("a"), "sk": S("b")}
	const ve = "ValidationException"

	t.Run("table name missing", func(t *testing.T) {
		// The SDK refuses to send this, so it goes over raw HTTP.
		typ, msg := rawCall(t, shared, "PutItem", `{"Item":{"pk":{"S":"a"},"sk":{"S":"b"}}}`)
		if typ != ve || msg != "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null" {
			t.Fatalf("got %s: %q", typ, msg)
		}
	})
	t.Run("table name empty", func(t *testing.T) {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(""), Item: key})
		wantAPIError(t, err, ve, "1 validation error detected: Value at 'TableName' failed to satisfy constraint: Member must have length greater than or equal to 1")
	})
	t.Run("table name too long", func(t *testing.T) {
		long := strings.Repeat("a", 256)
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(long), Item: key})
		wantAPIError(t, err, ve, "1 validation error detected: Value '"+long+"' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255")
	})
	t.Run("table name bad chars", func(t *testing.T) {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("bad table!@#"), Item: key})
		wantAPIError(t, err, ve, "1 validation error detected: Value 'bad table!@#' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	})
	t.Run("create table name too short", func(t *testing.T) {
		_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
			TableName:            aws.String("ab"),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		})
		wantAPIError(t, err, ve, "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3")
	})
	put := func(extra types.AttributeValue) error {
		item := map[string]types.AttributeValue{"pk": S("a"), "sk": S("b"), "x": extra}
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		return err
	}
	t.Run("empty string set", func(t *testing.T) {
		wantAPIError(t, put(&types.AttributeValueMemberSS{Value: []string{}}), ve,
			"1 validation error detected: One or more parameter values were invalid: An string set  may not be empty")
	})
	t.Run("empty number set", func(t *testing.T) {
		wantAPIError(t, put(&types.AttributeValueMemberNS{Value: []string{}}), ve,
			"1 validation error detected: One or more parameter values were invalid: An number set  may not be empty")
	})
	t.Run("empty binary set", func(t *testing.T) {
		wantAPIError(t, put(&types.AttributeValueMemberBS{Value: [][]byte{}}), ve,
			"1 validation error detected: One or more parameter values were invalid: Binary sets should not be empty")
	})
	t.Run("duplicate string set", func(t *testing.T) {
		wantAPIError(t, put(&types.AttributeValueMemberSS{Value: []string{"a", "a"}}), ve,
			`1 validation error detected: One or more parameter values were invalid: Input collection ["a", "a"] contains duplicates.`)
	})
	t.Run("number set with empty string", func(t *testing.T) {
		wantAPIError(t, put(&types.AttributeValueMemberNS{Value: []string{""}}), ve,
			"1 validation error detected: The parameter cannot be converted to a numeric value: ")
	})
	t.Run("mixing expression and legacy", func(t *testing.T) {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{
			TableName:           aws.String(table),
			Item:                key,
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
			Expected:            map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}},
		})
		wantAPIError(t, err, ve, "1 validation error detected: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")
	})
	t.Run("values without expression", func(t *testing.T) {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{
			TableName:                 aws.String(table),
			Item:                      key,
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
		})
		wantAPIError(t, err, ve, "1 validation error detected: ExpressionAttributeValues can only be specified when using expressions")
	})
	t.Run("redundant parentheses", func(t *testing.T) {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{
			TableName:           aws.String(table),
			Item:                key,
			ConditionExpression: aws.String("((attribute_not_exists(pk)))"),
		})
		wantAPIError(t, err, ve, "1 validation error detected: Invalid ConditionExpression: The expression has redundant parentheses;")
	})
	update := func(in *dynamodb.UpdateItemInput) error {
		in.TableName = aws.String(table)
		in.Key = key
		_, err := c.UpdateItem(bg, in)
		return err
	}
	t.Run("update hash key", func(t *testing.T) {
		err := update(&dynamodb.UpdateItemInput{
			UpdateExpression:          aws.String("SET pk = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
		})
		wantAPIError(t, err, ve, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key")
	})
	t.Run("update range key", func(t *testing.T) {
		err := update(&dynamodb.UpdateItemInput{
			UpdateExpression:          aws.String("SET sk = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
		})
		wantAPIError(t, err, ve, "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key")
	})
	t.Run("update syntax", func(t *testing.T) {
		err := update(&dynamodb.UpdateItemInput{UpdateExpression: aws.String("INVALID SYNTAX")})
		wantAPIError(t, err, ve, `1 validation error detected: Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"`)
	})
	t.Run("unused name", func(t *testing.T) {
		err := update(&dynamodb.UpdateItemInput{
			UpdateExpression:          aws.String("SET a = :v"),
			ExpressionAttributeNames:  map[string]string{"#unused": "x"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
		})
		wantAPIError(t, err, ve, "1 validation error detected: Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}")
	})
	t.Run("unused value", func(t *testing.T) {
		err := update(&dynamodb.UpdateItemInput{
			UpdateExpression:          aws.String("SET a = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x"), ":unused": S("y")},
		})
		wantAPIError(t, err, ve, "1 validation error detected: Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}")
	})
	t.Run("undefined value", func(t *testing.T) {
		err := update(&dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET a = :v")})
		wantAPIError(t, err, ve, "1 validation error detected: Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :v")
	})
	t.Run("update mixing", func(t *testing.T) {
		err := update(&dynamodb.UpdateItemInput{
			UpdateExpression:          aws.String("SET a = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
			AttributeUpdates:          map[string]types.AttributeValueUpdate{"b": {Action: types.AttributeActionPut, Value: S("y")}},
		})
		wantAPIError(t, err, ve, "1 validation error detected: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}")
	})
	t.Run("update empty", func(t *testing.T) {
		err := update(&dynamodb.UpdateItemInput{UpdateExpression: aws.String("")})
		wantAPIError(t, err, ve, "1 validation error detected: Invalid UpdateExpression: The expression can not be empty;")
	})
	t.Run("bad enums", func(t *testing.T) {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{
			TableName:                   aws.String(table),
			Item:                        key,
			ReturnConsumedCapacity:      "INVALID",
			ReturnValues:                "INVALID",
			ReturnItemCollectionMetrics: "INVALID",
		})
		wantAPIError(t, err, ve, "3 validation errors detected: Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; Failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATE_NEW, NONE]; Value 'INVALID' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]")
	})
	t.Run("missing table", func(t *testing.T) {
		_, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("no_such_table_xyz"), Key: key})
		wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	})
	t.Run("batch get empty", func(t *testing.T) {
		_, err := c.BatchGetItem(bg, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}})
		wantAPIError(t, err, ve, "The requestItems parameter is required for BatchGetItem")
	})
}

// Exponents past 32 bits, and zeros written with an exponent out of range,
// are overflows and underflows, not unreadable numbers (recorded in four
// regions on 2026-10-09 by a public conformance suite): inside the
// envelope on PutItem, bare on GetItem.
func TestNumberExponentRange(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	const (
		over  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
		under = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	)
	put := func(n string) error {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S("a"), "n": N(n)}})
		return err
	}
	for n, want := range map[string]string{"1e99999999999": over, "1e2147483648": over, "0e126": over,
		"1e-99999999999": under, "1e-2147483648": under, "0e-131": under} {
		wantAPIError(t, put(n), "ValidationException", "1 validation error detected: "+want)
	}
	_, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"pk": S("a"), "x": N("-1e99999999999")}})
	wantAPIError(t, err, "ValidationException", over)
}

// An unknown ConditionalOperator is listed against [OR, AND] (UpdateItem
// with two Expected conditions and no Key: us-east-1 and eu-west-2,
// 2026-10-09, in a public conformance suite).
func TestConditionalOperatorEnumOrder(t *testing.T) {
	typ, msg := rawCall(t, shared, "UpdateItem", `{"TableName":"vo_upd_nokey_zz","AttributeUpdates":{"x":{"Action":"PUT","Value":{"S":"1"}}},`+
		`"Expected":{"a":{"Exists":false},"b":{"Exists":false}},"ConditionalOperator":"XOR"}`)
	want := "2 validation errors detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]; " +
		"Value null at 'key' failed to satisfy constraint: Member must not be null"
	if typ != "ValidationException" || msg != want {
		t.Fatalf("got %s: %q", typ, msg)
	}
}

// UpdateItem without Key reports its member faults in the older per-value
// form, joined with the missing key member by member: an empty TableName
// is echoed there instead of being reported alone, and a bad ReturnValues
// is no longer reported alone (us-east-1 and eu-west-2, 2026-10-09, in a
// public conformance suite). With Key given, both keep their own rules.
func TestUpdateItemWithoutKeyJoinsMemberFaults(t *testing.T) {
	const emptyName = "Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"
	const noKey = "Value null at 'key' failed to satisfy constraint: Member must not be null"
	update := `"UpdateExpression":"SET a = :a","ExpressionAttributeValues":{":a":{"S":"x"}}`
	for body, want := range map[string]string{
		`{"TableName":"",` + update + `}`: "2 validation errors detected: " + emptyName + "; " + noKey,
		`{"TableName":"",` + update + `,"ReturnConsumedCapacity":"INVALID","ReturnValues":"INVALID"}`: "4 validation errors detected: " +
			"Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
			emptyName + "; " +
			"Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; " +
			noKey,
		`{"TableName":"",` + update + `,"Key":{}}`: "1 validation error detected: Value at 'TableName' failed to satisfy constraint: Member must have length greater than or equal to 1",
	} {
		typ, msg := rawCall(t, shared, "UpdateItem", body)
		if typ != "ValidationException" || msg != want {
			t.Errorf("%s\n got %s: %q\nwant %q", body, typ, msg, want)
		}
	}
}

// CreateTable reports an empty TableName in the per-value form with the
// other member faults, not alone as the item operations do (a public
// conformance suite run against DynamoDB, 2026-10: the message names
// 'tableName').
func TestCreateTableEmptyName(t *testing.T) {
	typ, msg := rawCall(t, shared, "CreateTable", `{"TableName":"","KeySchema":[],"AttributeDefinitions":[]}`)
	want := "3 validation errors detected: Value '' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
		"Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
		"Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length greater than or equal to 1"
	if typ != "ValidationException" || msg != want {
		t.Fatalf("got %s: %q", typ, msg)
	}
}

// DeleteTable describes the table without its schema, indexes or creation
// time (AWS's documented example; ScyllaDB's Alternator tests, which are
// run against DynamoDB).
func TestDeleteTableDescriptionShape(t *testing.T) {
	c := ddb()
	name := uniqueTable("delshape")
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	d := out.TableDescription
	if aws.ToString(d.TableName) != name || d.TableStatus != types.TableStatusDeleting || d.TableArn == nil || d.TableId == nil ||
		d.ItemCount == nil || d.TableSizeBytes == nil || d.BillingModeSummary == nil {
		t.Fatalf("missing members: %+v", d)
	}
	if d.KeySchema != nil || d.AttributeDefinitions != nil || d.CreationDateTime != nil || d.GlobalSecondaryIndexes != nil {
		t.Fatalf("schema, indexes or creation time described: %+v", d)
	}
}

// A ConditionalOperator needs two legacy conditions to join, and counts as
// a legacy parameter when expressions are mixed in (a dual-target suite run
// against Amazon DynamoDB, 2026; the single-item writes prefix their
// request checks, as us-east-1 has since 2026-08).
func TestConditionalOperatorNeedsTwoConditions(t *testing.T) {
	table := createTable(t, ddb(), "pk", "", "")
	const (
		without = "ConditionalOperator cannot be used without Filter or Expected"
		one     = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
	)
	cond := `{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"x"}]}`
	tn := `"TableName":"` + table + `",`
	for _, c := range []struct{ op, body, want string }{
		{"Scan", `{` + tn + `"ConditionalOperator":"AND"}`, without},
		{"Scan", `{` + tn + `"ConditionalOperator":"OR","ScanFilter":{}}`, without},
		{"Scan", `{` + tn + `"ConditionalOperator":"AND","ScanFilter":{"a":` + cond + `}}`, one},
		{"Query", `{` + tn + `"ConditionalOperator":"AND"}`, without},
		{"Query", `{` + tn + `"ConditionalOperator":"AND","KeyConditions":{"pk":` + cond + `},"QueryFilter":{"a":` + cond + `}}`, one},
		{"PutItem", `{` + tn + `"Item":{"pk":{"S":"k"}},"ConditionalOperator":"AND"}`, "1 validation error detected: " + without},
		{"DeleteItem", `{` + tn + `"Key":{"pk":{"S":"k"}},"ConditionalOperator":"AND","Expected":{"a":` + cond + `}}`, "1 validation error detected: " + one},
		{"UpdateItem", `{` + tn + `"Key":{"pk":{"S":"k"}},"ConditionalOperator":"AND","UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"S":"x"}}}`,
			"1 validation error detected: Can not use both expression and non-expression parameters in the same request: " +
				"Non-expression parameters: {ConditionalOperator} Expression parameters: {UpdateExpression}"},
	} {
		typ, msg := rawCall(t, shared, c.op, c.body)
		if typ != "ValidationException" || msg != c.want {
			t.Errorf("%s %s\n got %s: %q\nwant %q", c.op, c.body, typ, msg, c.want)
		}
	}
}

// A projected attribute name is 1 to 255 bytes (the API's
// NonKeyAttributeName; ScyllaDB's Alternator tests, which are run against
// DynamoDB, see a 256-byte name refused for a GSI and an LSI).
func TestNonKeyAttributeNameLength(t *testing.T) {
	long := strings.Repeat("n", 256)
	ks := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	proj := &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{long}}
	base := func() *dynamodb.CreateTableInput {
		return &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("nka")), BillingMode: types.BillingModePayPerRequest, KeySchema: ks("a", "b"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("a"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("b"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("c"), AttributeType: types.ScalarAttributeTypeS}}}
	}
	const tail = "' failed to satisfy constraint: Member must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 1]"
	g := base()
	g.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: ks("c", "b"), Projection: proj}}
	_, err := ddb().CreateTable(bg, g)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '["+long+"]' at 'globalSecondaryIndexes.1.member.projection.nonKeyAttributes"+tail)
	l := base()
	l.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: ks("a", "c"), Projection: proj}}
	_, err = ddb().CreateTable(bg, l)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '["+long+"]' at 'localSecondaryIndexes.1.member.projection.nonKeyAttributes"+tail)
}

// A TableClass outside its set is refused in DynamoDB's own words, by
// CreateTable and UpdateTable (ScyllaDB's Alternator tests, which are run
// against DynamoDB, quote the text).
func TestTableClassText(t *testing.T) {
	const want = "Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS]."
	c := ddb()
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("tc")), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}, TableClass: "standard"})
	wantAPIError(t, err, "ValidationException", want)
	table := createTable(t, c, "pk", "", "")
	_, err = c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), TableClass: "junk"})
	wantAPIError(t, err, "ValidationException", want)
}
