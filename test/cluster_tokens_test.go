package test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestClusterTransactTokens: a ClientRequestToken is shared by the nodes
// (package transact's shared tokens): a TransactWriteItems or
// ExecuteTransaction retried through another node within the ten minutes
// is not applied again, and another request with its token gets
// IdempotentParameterMismatchException from that node. Seen failing with
// the tokens kept per node (engine.shareTokens not called): the retry
// through node 1 was applied a second time (n = 2).
func TestClusterTransactTokens(t *testing.T) {
	c := startNodes(t, 2)
	table := createTable(t, c.clients[0], "pk", "", "")
	add := func(pk, by string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("token-" + pk),
			TransactItems: []types.TransactWriteItem{{Update: &types.Update{TableName: aws.String(table),
				Key: map[string]types.AttributeValue{"pk": S(pk)}, UpdateExpression: aws.String("ADD n :by"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":by": N(by)}}}}}
	}
	n := func(pk string) int {
		t.Helper()
		it, err := consistentGet(c.clients[0], table, pk)
		if err != nil {
			t.Fatal(err)
		}
		return nOf(it, "n")
	}
	wantMismatch := func(err error) {
		t.Helper()
		var ipm *types.IdempotentParameterMismatchException
		if !errors.As(err, &ipm) || ipm.ErrorMessage() != "Request parameters do not match the parameters of the original request with the same client token" {
			t.Fatalf("got %v, want IdempotentParameterMismatchException", err)
		}
	}

	if _, err := c.clients[0].TransactWriteItems(bg, add("tw", "1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.clients[1].TransactWriteItems(bg, add("tw", "1")); err != nil {
		t.Fatal(err)
	}
	if got := n("tw"); got != 1 {
		t.Fatalf("TransactWriteItems retried through another node: n = %d, want 1", got)
	}
	_, err := c.clients[1].TransactWriteItems(bg, add("tw", "5"))
	wantMismatch(err)

	stmt := func(by string) *dynamodb.ExecuteTransactionInput {
		return &dynamodb.ExecuteTransactionInput{ClientRequestToken: aws.String("token-pq"),
			TransactStatements: []types.ParameterizedStatement{{
				Statement:  aws.String(`UPDATE "` + table + `" SET n = n + ? WHERE pk = 'pq'`),
				Parameters: []types.AttributeValue{N(by)}}}}
	}
	if _, err := c.clients[0].PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
		Item: map[string]types.AttributeValue{"pk": S("pq"), "n": N("0")}}); err != nil {
		t.Fatal(err)
	}
	for _, cl := range c.clients {
		if _, err := cl.ExecuteTransaction(bg, stmt("1")); err != nil {
			t.Fatal(err)
		}
	}
	if got := n("pq"); got != 1 {
		t.Fatalf("ExecuteTransaction retried through another node: n = %d, want 1", got)
	}
	_, err = c.clients[0].ExecuteTransaction(bg, stmt("2"))
	wantMismatch(err)
}
