package test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Throughput enforcement (--enforce-throughput) through the Go SDK: the
// errors parse into the SDK's typed exceptions with their ThrottlingReasons
// (whose JSON member DynamoDB spells differently in ThrottlingException),
// batches return what did not fit, and time refills the capacity (the
// admin clock stands in for waiting).
//
// Items of 3 KB cost 3 write units against a rate of 1 a second with one
// second kept, so a second write within two seconds of wall time is
// always refused, however slow the machine.

const (
	msgThroughputTable = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	msgOnDemandTable   = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)

func throttleTable(t *testing.T, c *dynamodb.Client, in *dynamodb.CreateTableInput) string {
	t.Helper()
	name := uniqueTable("throttle")
	in.TableName = aws.String(name)
	in.AttributeDefinitions = []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}
	in.KeySchema = []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}
	if _, err := c.CreateTable(bg, in); err != nil {
		t.Fatal(err)
	}
	return name
}

func bigItem(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": S(pk), "v": S(strings.Repeat("x", 3000))}
}

func TestThrottleSDK(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	metrics := fmt.Sprintf("127.0.0.1:%d", port)
	k := startKura(t, "--in-memory", "--admin", "--enforce-throughput", "--burst-capacity", "1s", "--metrics", metrics)
	c := k.client()
	put := func(table, pk string) error {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: bigItem(pk)})
		return err
	}

	t.Run("provisioned", func(t *testing.T) {
		name := throttleTable(t, c, &dynamodb.CreateTableInput{BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
		if err := put(name, "a"); err != nil {
			t.Fatal(err)
		}
		err := put(name, "b")
		wantAPIError(t, err, "ProvisionedThroughputExceededException", msgThroughputTable)
		var pe *types.ProvisionedThroughputExceededException
		if !errors.As(err, &pe) || len(pe.ThrottlingReasons) != 1 ||
			aws.ToString(pe.ThrottlingReasons[0].Reason) != "TableWriteProvisionedThroughputExceeded" ||
			aws.ToString(pe.ThrottlingReasons[0].Resource) != "arn:aws:dynamodb:us-east-1:000000000000:table/"+name {
			t.Fatalf("ThrottlingReasons not as sent: %#v", pe)
		}
		k.admin(t, "/admin/clock/advance?by=5s")
		if err := put(name, "b"); err != nil {
			t.Fatalf("after the capacity refilled: %v", err)
		}
	})

	t.Run("on-demand maximum", func(t *testing.T) {
		name := throttleTable(t, c, &dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest,
			OnDemandThroughput: &types.OnDemandThroughput{MaxWriteRequestUnits: aws.Int64(1)}})
		if err := put(name, "a"); err != nil {
			t.Fatal(err)
		}
		err := put(name, "b")
		wantAPIError(t, err, "ThrottlingException", msgOnDemandTable)
		var te *types.ThrottlingException
		if !errors.As(err, &te) || len(te.ThrottlingReasons) != 1 ||
			aws.ToString(te.ThrottlingReasons[0].Reason) != "TableWriteMaxOnDemandThroughputExceeded" {
			t.Fatalf("ThrottlingReasons not as sent: %#v", te)
		}
		// Reads have no maximum here.
		if _, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": S("a")}}); err != nil {
			t.Fatal(err)
		}
	})

	var batchTable string
	t.Run("batch", func(t *testing.T) {
		name := throttleTable(t, c, &dynamodb.CreateTableInput{BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
		batchTable = name
		var reqs []types.WriteRequest
		for _, pk := range []string{"a", "b", "c"} {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: bigItem(pk)}})
		}
		out, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: reqs}})
		if err != nil {
			t.Fatal(err)
		}
		if un := out.UnprocessedItems[name]; len(un) != 2 {
			t.Fatalf("UnprocessedItems %d, want 2 (b, c)", len(un))
		}
		// The retry an application makes once capacity is back.
		k.admin(t, "/admin/clock/advance?by=10s")
		out, err = c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: out.UnprocessedItems})
		if err != nil {
			t.Fatal(err)
		}
		if un := out.UnprocessedItems[name]; len(un) != 1 {
			t.Fatalf("UnprocessedItems %d, want 1 (c)", len(un))
		}
		_, err = c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: out.UnprocessedItems})
		wantAPIError(t, err, "ProvisionedThroughputExceededException", msgThroughputTable)
	})

	// Named by ARN, the unprocessed requests come back under the ARN as
	// sent (TestBatchAnswersKeyedAsRequested has the processed ones).
	t.Run("batch by ARN", func(t *testing.T) {
		name := throttleTable(t, c, &dynamodb.CreateTableInput{BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
		arn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
		var reqs []types.WriteRequest
		var keys []map[string]types.AttributeValue
		for _, pk := range []string{"a", "b", "c"} {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: bigItem(pk)}})
			keys = append(keys, map[string]types.AttributeValue{"pk": S(pk)})
		}
		w, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{arn: reqs}})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.UnprocessedItems) != 1 || len(w.UnprocessedItems[arn]) != 2 {
			t.Fatalf("UnprocessedItems %v, want b and c under the ARN", w.UnprocessedItems)
		}
		k.admin(t, "/admin/clock/advance?by=10s")
		g, err := c.BatchGetItem(bg, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			arn: {Keys: keys, ConsistentRead: aws.Bool(true)}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.UnprocessedKeys) != 1 || len(g.UnprocessedKeys[arn].Keys) == 0 || len(g.Responses) != 1 || len(g.Responses[arn]) == 0 {
			t.Fatalf("Responses %v UnprocessedKeys %v, want both under the ARN", g.Responses, g.UnprocessedKeys)
		}
	})

	// The metrics count each refused batch request, and what the processed
	// ones consumed (a and b, 3 KB each; c never got in).
	f := scrape(t, metrics)
	if got := value(f, "kura_write_throttle_events_total", "table", batchTable); got != 4 {
		t.Errorf("write throttle events %v, want 4 (b and c, then c, then c again)", got)
	}
	if got := value(f, "kura_consumed_write_capacity_units_total", "table", batchTable); got != 6 {
		t.Errorf("consumed write units %v, want 6", got)
	}
}
