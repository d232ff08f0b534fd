package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestEmptyAttributeNames: an attribute named "" outside the key is
// refused wherever a request names one, in an item, through an
// ExpressionAttributeNames value, in AttributesToGet, AttributeUpdates,
// Expected and the legacy filters (issue 33 item 11). The single-item
// writes send the text with the "1 validation error detected: " prefix,
// the other operations bare (ddberr.RequestInvalid).
func TestEmptyAttributeNames(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	put(t, c, table, item{"pk": S("a"), "n": N("1")})
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
