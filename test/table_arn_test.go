package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestTableARNAsTableName: every operation that reads a TableName accepts
// the table's ARN instead (the SDK's documentation of TableName), and the
// answer names the table by its name (BatchGetItem keys its Responses by
// the ARN as sent: TestBatchAnswersKeyedAsRequested).
func TestTableARNAsTableName(t *testing.T) {
	c := ddb()
	name := createTable(t, c, "pk", "", "")
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	arn := d.Table.TableArn

	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: arn, Item: map[string]types.AttributeValue{"pk": S("a"), "v": N("1")}}); err != nil {
		t.Fatalf("PutItem by ARN: %v", err)
	}
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: arn, Key: map[string]types.AttributeValue{"pk": S("a")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || got.Item == nil {
		t.Fatalf("GetItem by ARN: %v %v", got, err)
	}
	if n := aws.ToString(got.ConsumedCapacity.TableName); n != name {
		t.Errorf("ConsumedCapacity.TableName = %q, want %q", n, name)
	}
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: arn, KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("a")}})
	if err != nil || q.Count != 1 {
		t.Fatalf("Query by ARN: %v %v", q, err)
	}
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: arn, Key: map[string]types.AttributeValue{"pk": S("a")},
		UpdateExpression: aws.String("ADD v :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": N("1")}}); err != nil {
		t.Fatalf("UpdateItem by ARN: %v", err)
	}
	bg1, err := c.BatchGetItem(bg, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		*arn: {Keys: []map[string]types.AttributeValue{{"pk": S("a")}}}}})
	if err != nil {
		t.Fatalf("BatchGetItem by ARN: %v", err)
	}
	if len(bg1.Responses[*arn]) != 1 || len(bg1.Responses) != 1 {
		t.Errorf("BatchGetItem Responses = %v, want the item under the ARN as sent, %q", bg1.Responses, *arn)
	}
	if _, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		*arn: {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": S("b")}}}}}}); err != nil {
		t.Fatalf("BatchWriteItem by ARN: %v", err)
	}
	if _, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: arn, Item: map[string]types.AttributeValue{"pk": S("c")}}}}}); err != nil {
		t.Fatalf("TransactWriteItems by ARN: %v", err)
	}
	// The same item named once by ARN and once by name is one item.
	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: arn, Item: map[string]types.AttributeValue{"pk": S("c")}}},
		{Delete: &types.Delete{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": S("c")}}}}})
	wantAPIError(t, err, "ValidationException", "Transaction request cannot include multiple operations on one item")
	s, err := c.Scan(bg, &dynamodb.ScanInput{TableName: arn})
	if err != nil || s.Count != 3 {
		t.Fatalf("Scan by ARN: %v %v", s, err)
	}
	if _, err := c.DescribeTimeToLive(bg, &dynamodb.DescribeTimeToLiveInput{TableName: arn}); err != nil {
		t.Fatalf("DescribeTimeToLive by ARN: %v", err)
	}
	if _, err := c.DescribeContinuousBackups(bg, &dynamodb.DescribeContinuousBackupsInput{TableName: arn}); err != nil {
		t.Fatalf("DescribeContinuousBackups by ARN: %v", err)
	}
	u, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: arn, DeletionProtectionEnabled: aws.Bool(false)})
	if err != nil || aws.ToString(u.TableDescription.TableName) != name {
		t.Fatalf("UpdateTable by ARN: %v %v", u, err)
	}

	// An index ARN is not a table.
	_, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(*arn + "/index/gsi"), Key: map[string]types.AttributeValue{"pk": S("a")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")

	del, err := c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: arn})
	if err != nil || aws.ToString(del.TableDescription.TableName) != name {
		t.Fatalf("DeleteTable by ARN: %v %v", del, err)
	}
	_, err = c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")
}

// TestCreateTableByARN: CreateTable names the table by the name in a table
// ARN; another kind of ARN fails the name pattern.
func TestCreateTableByARN(t *testing.T) {
	c := ddb()
	name := uniqueTable("ByARN")
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(arn),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}
	out, err := c.CreateTable(bg, in)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	if got := aws.ToString(out.TableDescription.TableName); got != name {
		t.Errorf("TableName = %q, want %q", got, name)
	}
	in.TableName = aws.String(arn + "/index/x")
	_, err = c.CreateTable(bg, in)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '"+arn+"/index/x' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
}
