package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestBatchAnswersKeyedAsRequested: a multi-table answer is keyed by the
// table as the request named it. Named by ARN, BatchGetItem's Responses,
// BatchWriteItem's and TransactWriteItems' ItemCollectionMetrics come
// back under that ARN (DynamoDB does so; the SDK documents Responses as
// "A map of table name or table ARN" and the unprocessed maps as "in the
// same form as RequestItems"); named by name, under the name.
func TestBatchAnswersKeyedAsRequested(t *testing.T) {
	c := ddb()
	table := threeIndexTable(t, c)
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(d.Table.TableArn)
	for _, key := range []string{arn, table} {
		w, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
			RequestItems: map[string][]types.WriteRequest{key: {{PutRequest: &types.PutRequest{Item: item{"pk": S("p"), "sk": S("1")}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.ItemCollectionMetrics) != 1 || len(w.ItemCollectionMetrics[key]) != 1 {
			t.Errorf("BatchWriteItem ItemCollectionMetrics = %v, want one under %q", w.ItemCollectionMetrics, key)
		}
		tx, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
			TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(key), Item: item{"pk": S("p"), "sk": S("2")}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(tx.ItemCollectionMetrics) != 1 || len(tx.ItemCollectionMetrics[key]) != 1 {
			t.Errorf("TransactWriteItems ItemCollectionMetrics = %v, want one under %q", tx.ItemCollectionMetrics, key)
		}
		g, err := c.BatchGetItem(bg, &dynamodb.BatchGetItemInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			RequestItems: map[string]types.KeysAndAttributes{key: {Keys: []map[string]types.AttributeValue{
				{"pk": S("p"), "sk": S("1")}, {"pk": S("p"), "sk": S("2")}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Responses) != 1 || len(g.Responses[key]) != 2 {
			t.Errorf("BatchGetItem Responses = %v, want two items under %q", g.Responses, key)
		}
		if len(g.ConsumedCapacity) != 1 || aws.ToString(g.ConsumedCapacity[0].TableName) != table {
			t.Errorf("BatchGetItem ConsumedCapacity = %+v, want the table's name", g.ConsumedCapacity)
		}
	}
}
