package test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestErrorBodyMessageKeys checks the raw error bodies' message key against
// DynamoDB's: the error shape's member name in its service model
// (ddberr.MessageKey). A ConditionalCheckFailedException carrying the old
// item (ReturnValuesOnConditionCheckFailure=ALL_OLD, from PutItem,
// UpdateItem and DeleteItem) says "message" like every other one; a
// TransactionCanceledException and an IdempotentParameterMismatchException
// say "Message".
func TestErrorBodyMessageKeys(t *testing.T) {
	c, table := ddb(), tableWithItemA(t)
	ccf := `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed","Item":{"n":{"N":"1"},"pk":{"S":"a"}}}`
	cond := `"ConditionExpression":"n = :two","ExpressionAttributeValues":{":two":{"N":"2"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"`
	cases := []struct{ op, body, want string }{
		{"PutItem", `{"TableName":"` + table + `","Item":{"pk":{"S":"a"}},` + cond + `}`, ccf},
		{"UpdateItem", `{"TableName":"` + table + `","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET n = :two",` + cond + `}`, ccf},
		{"DeleteItem", `{"TableName":"` + table + `","Key":{"pk":{"S":"a"}},` + cond + `}`, ccf},
		{"DeleteItem", `{"TableName":"` + table + `","Key":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}`,
			`{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed"}`},
		{"TransactWriteItems", `{"TransactItems":[{"ConditionCheck":{"TableName":"` + table + `","Key":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}}]}`,
			`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]"}`},
	}
	for _, c := range cases {
		if status, got := rawPost(t, shared.endpoint, c.op, strings.NewReader(c.body)); status != 400 || string(got) != c.want {
			t.Errorf("%s:\n got %d %s\nwant 400 %s", c.op, status, got, c.want)
		}
	}

	// A client token reused with other parameters (at most 36 characters).
	token := uniqueTable("tok")
	tx := func(v string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token),
			TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(table), Item: item{"pk": S("t"), "v": S(v)}}}}}
	}
	if _, err := c.TransactWriteItems(bg, tx("1")); err != nil {
		t.Fatal(err)
	}
	body := `{"ClientRequestToken":"` + token + `","TransactItems":[{"Put":{"TableName":"` + table + `","Item":{"pk":{"S":"t"},"v":{"S":"2"}}}}]}`
	want := `{"__type":"com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException","Message":"Request parameters do not match the parameters of the original request with the same client token"}`
	if status, got := rawPost(t, shared.endpoint, "TransactWriteItems", strings.NewReader(body)); status != 400 || string(got) != want {
		t.Errorf("token reuse:\n got %d %s\nwant 400 %s", status, got, want)
	}
	// The SDK reads the text under either key.
	_, err := c.TransactWriteItems(bg, tx("3"))
	wantAPIError(t, err, "IdempotentParameterMismatchException", "Request parameters do not match the parameters of the original request with the same client token")
}

// tableWithItemA creates a hash-only table (key pk) holding the item
// {pk: "a", n: 1}.
func tableWithItemA(t *testing.T) string {
	t.Helper()
	table := createTable(t, ddb(), "pk", "", "")
	put(t, ddb(), table, item{"pk": S("a"), "n": N("1")})
	return table
}
