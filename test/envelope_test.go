package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB wraps the texts of its shared request checks (expressions, their
// placeholders, attribute values) in "1 validation error detected: " on
// PutItem, UpdateItem and DeleteItem only; GetItem, Query, Scan, the batch
// and transaction APIs send the same texts bare. Recorded in us-east-1,
// eu-west-2, eu-west-1 and us-west-2 on 2026-10-09 by a public conformance
// suite (value errors on every operation; transactions), in ap-southeast-1
// on 2026-09-01 by an emulator's issue (unused placeholders on PutItem,
// DeleteItem, Scan and Query), and in eu-west-2 for Query and BatchGetItem
// expression errors.
func TestRequestCheckEnvelopeByOperation(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	nTable := createTable(t, c, "pk", "", "")
	key := map[string]types.AttributeValue{"pk": S("a"), "sk": S("b")}
	const ve = "ValidationException"

	t.Run("PutItem keeps the prefix", func(t *testing.T) {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{
			TableName: aws.String(table), Item: key,
			ConditionExpression:      aws.String("attribute_exists(pk)"),
			ExpressionAttributeNames: map[string]string{"#st": "st"},
		})
		wantAPIError(t, err, ve, "1 validation error detected: Value provided in ExpressionAttributeNames unused in expressions: keys: {#st}")
	})
	t.Run("DeleteItem keeps the prefix", func(t *testing.T) {
		_, err := c.DeleteItem(bg, &dynamodb.DeleteItemInput{
			TableName: aws.String(table), Key: key,
			ConditionExpression:      aws.String("attribute_exists(pk)"),
			ExpressionAttributeNames: map[string]string{"#st": "st"},
		})
		wantAPIError(t, err, ve, "1 validation error detected: Value provided in ExpressionAttributeNames unused in expressions: keys: {#st}")
	})
	t.Run("Scan unused name", func(t *testing.T) {
		_, err := c.Scan(bg, &dynamodb.ScanInput{
			TableName:                aws.String(table),
			FilterExpression:         aws.String("attribute_exists(pk)"),
			ExpressionAttributeNames: map[string]string{"#st": "st"},
		})
		wantAPIError(t, err, ve, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#st}")
	})
	t.Run("Query unused value", func(t *testing.T) {
		_, err := c.Query(bg, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("a"), ":unused": S("x")},
		})
		wantAPIError(t, err, ve, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}")
	})
	t.Run("Query key condition operand", func(t *testing.T) {
		_, err := c.Query(bg, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("pk = :p AND begins_with(sk, :n)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("a"), ":n": N("1")},
		})
		wantAPIError(t, err, ve, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
	})
	t.Run("Query Select with a projection stays prefixed", func(t *testing.T) {
		_, err := c.Query(bg, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("a")},
			Select:                    types.SelectCount,
			ProjectionExpression:      aws.String("pk"),
		})
		wantAPIError(t, err, ve, "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count")
	})
	t.Run("Scan filter parentheses", func(t *testing.T) {
		_, err := c.Scan(bg, &dynamodb.ScanInput{
			TableName:                 aws.String(table),
			FilterExpression:          aws.String("((#a = :v))"),
			ExpressionAttributeNames:  map[string]string{"#a": "a"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
		})
		wantAPIError(t, err, ve, "Invalid FilterExpression: The expression has redundant parentheses;")
	})
	t.Run("BatchGetItem projection overlap", func(t *testing.T) {
		_, err := c.BatchGetItem(bg, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			table: {Keys: []map[string]types.AttributeValue{key}, ProjectionExpression: aws.String("a, a")},
		}})
		wantAPIError(t, err, ve, "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]")
	})
	t.Run("GetItem number", func(t *testing.T) {
		_, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(nTable),
			Key: map[string]types.AttributeValue{"pk": N("abc")}})
		wantAPIError(t, err, ve, "The parameter cannot be converted to a numeric value: abc")
	})
	t.Run("TransactWriteItems condition syntax", func(t *testing.T) {
		_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
			ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key,
				ConditionExpression: aws.String("attribute_not_exists(")},
		}}})
		wantAPIError(t, err, ve, `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("`)
	})
	t.Run("TransactWriteItems unused value", func(t *testing.T) {
		_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
			Put: &types.Put{TableName: aws.String(table), Item: key,
				ConditionExpression:       aws.String("attribute_not_exists(pk)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")}},
		}}})
		wantAPIError(t, err, ve, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}")
	})
	t.Run("TransactGetItems projection syntax", func(t *testing.T) {
		_, err := c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{
			Get: &types.Get{TableName: aws.String(table), Key: key, ProjectionExpression: aws.String("!!!")},
		}}})
		wantAPIError(t, err, ve, `Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"`)
	})
}

// Duplicate set members and unreadable numbers are worded by DynamoDB's
// current value layer on PutItem, UpdateItem, DeleteItem (enveloped),
// GetItem, BatchGetItem and Query (bare): the members quoted, as a sorted
// set lists them until the repeat. BatchWriteItem, the transaction APIs
// and Scan use the older layer: members as sent, unquoted, and other
// texts for number sets and empty numbers. Recorded in us-east-1 and
// three other regions on 2026-10-09 by a public conformance suite.
func TestValueLayersByOperation(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	const inv = "One or more parameter values were invalid: "
	sets := []types.AttributeValue{
		&types.AttributeValueMemberSS{Value: []string{"b", "a", "b"}},
		&types.AttributeValueMemberBS{Value: [][]byte{{0xff}, {0}, {0}}},
		&types.AttributeValueMemberNS{Value: []string{"2", "1", "2"}},
	}
	current := []string{
		inv + `Input collection ["a", "b", "b"] contains duplicates.`,
		inv + `Input collection ["AA==","/w==","AA=="]of type BS contains duplicates.`,
		inv + "Input collection contains duplicates.",
	}
	older := []string{
		inv + "Input collection [b, a, b] contains duplicates.",
		inv + "Input collection [/w==, AA==, AA==]of type BS contains duplicates.",
		"Input collection contains duplicates",
	}
	for i, set := range sets {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S("a"), "s": set}})
		wantAPIError(t, err, "ValidationException", "1 validation error detected: "+current[i])
		_, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table),
			Key: map[string]types.AttributeValue{"pk": set}})
		wantAPIError(t, err, "ValidationException", current[i])
		_, err = c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			table: {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": S("a"), "s": set}}}},
		}})
		wantAPIError(t, err, "ValidationException", older[i])
		_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
			Put: &types.Put{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S("a"), "s": set}},
		}}})
		wantAPIError(t, err, "ValidationException", older[i])
	}
	const notNumeric = "The parameter cannot be converted to a numeric value"
	_, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"pk": N("")}})
	wantAPIError(t, err, "ValidationException", notNumeric+": ")
	_, err = c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		table: {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": S("a"), "n": N("")}}}},
	}})
	wantAPIError(t, err, "ValidationException", notNumeric)
}

// Select=ALL_PROJECTED_ATTRIBUTES with a projection and no index breaks two
// rules; DynamoDB reports the projection one (a suite run against it),
// prefixed on Query and bare on Scan.
func TestSelectProjectedWithProjectionNoIndex(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	const msg = "Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES"
	_, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table),
		Select: types.SelectAllProjectedAttributes, ProjectionExpression: aws.String("pk")})
	wantAPIError(t, err, "ValidationException", msg)
	_, err = c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("a")},
		Select:                    types.SelectAllProjectedAttributes, ProjectionExpression: aws.String("pk")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: "+msg)
}
