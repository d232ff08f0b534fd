package test

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestClusterPerKeyDatabases: with --shared-db=false, two cluster nodes
// serve each access key's database from the store they share: a table one
// key creates through one node serves through the other at once, their
// counters add up across the nodes (each node holds each key's database
// open with its own engine: a node of each database's cluster), and
// another key sees none of it.
func TestClusterPerKeyDatabases(t *testing.T) {
	c := startNodes(t, 2, "--shared-db=false")
	a := [2]*dynamodb.Client{keyClient(c.nodes[0], "KEYA", "us-east-1"), keyClient(c.nodes[1], "KEYA", "us-east-1")}
	b := keyClient(c.nodes[1], "KEYB", "us-east-1")
	table := createTable(t, a[0], "pk", "", "")
	out, err := a[1].DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil || out.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("KEYA's table through the other node: %v %v", out, err)
	}
	const each = 20
	parallel(t, 4, func(w int) error {
		for range each {
			if _, err := a[w%2].UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table),
				Key: map[string]types.AttributeValue{"pk": S("counter")}, UpdateExpression: aws.String("ADD n :one"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": N("1")}}); err != nil {
				return err
			}
		}
		return nil
	})
	for i, cl := range a {
		it, err := consistentGet(cl, table, "counter")
		if err != nil || nOf(it, "n") != 4*each {
			t.Fatalf("the counter through node %d: %v %v, want %d", i, it, err, 4*each)
		}
	}
	lt, err := b.ListTables(bg, &dynamodb.ListTablesInput{})
	if err != nil || slices.Contains(lt.TableNames, table) {
		t.Fatalf("KEYB's tables: %v %v (KEYA's %s must not show)", lt, err, table)
	}
	_, err = b.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"pk": S("counter")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
}
