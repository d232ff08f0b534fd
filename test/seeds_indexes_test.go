package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// createSeedTable creates an on-demand table keyed hash/range (S/S) with
// GSIs given as name → key attributes (hash, range, both S) and projection.
func createSeedTable(t *testing.T, c *dynamodb.Client, hash, rng string, gsis []types.GlobalSecondaryIndex, extra ...string) string {
	t.Helper()
	ad := defs(hash, "S", rng, "S")
	for _, a := range extra {
		ad = append(ad, defs(a, "S")...)
	}
	name := uniqueTable(strings.ReplaceAll(t.Name(), "/", "_"))
	if _, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: ad, KeySchema: ks(hash, "HASH", rng, "RANGE"), GlobalSecondaryIndexes: gsis}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return name
}

// W1: running analyses through GSI1 (GSI1PK = STEP#ANALYSIS_STATUS, GSI1SK =
// current status); nested step updates move the entry.
func TestSeedW1RunningAnalyses(t *testing.T) {
	c := ddb()
	table := createSeedTable(t, c, "PK", "SK", []types.GlobalSecondaryIndex{
		{IndexName: aws.String("GSI1"), KeySchema: ks("GSI1PK", "HASH", "GSI1SK", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		{IndexName: aws.String("GSI2"), KeySchema: ks("GSI2PK", "HASH", "GSI2SK", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
	}, "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK")
	for i := 0; i < 10; i++ {
		status := []string{"pending", "in_progress", "completed"}[i%3]
		steps := &types.AttributeValueMemberM{Value: item{"ocr": &types.AttributeValueMemberM{Value: item{"status": S(status), "label": S("OCR")}}}}
		put(t, c, table, item{"PK": S(fmt.Sprint("WF#", i)), "SK": S("STEP"), "GSI1PK": S("STEP#ANALYSIS_STATUS"), "GSI1SK": S(status),
			"data": &types.AttributeValueMemberM{Value: item{"steps": steps}}})
		put(t, c, table, item{"PK": S(fmt.Sprint("WF#", i)), "SK": S("SEG#0001"), "s3_key": S("k")}) // not in GSI1
	}
	running := func() int {
		return len(queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GSI1"),
			KeyConditionExpression:    aws.String("GSI1PK = :pk AND GSI1SK = :s"),
			ExpressionAttributeValues: item{":pk": S("STEP#ANALYSIS_STATUS"), ":s": S("in_progress")}}))
	}
	if n := running(); n != 3 {
		t.Fatalf("running analyses: %d", n)
	}
	// A step finishes: nested status and GSI1SK change together.
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"PK": S("WF#1"), "SK": S("STEP")},
		UpdateExpression:          aws.String("SET #d.steps.ocr.#st = :s, GSI1SK = :s"),
		ExpressionAttributeNames:  map[string]string{"#st": "status", "#d": "data"},
		ExpressionAttributeValues: item{":s": S("completed")}}); err != nil {
		t.Fatal(err)
	}
	if n := running(); n != 2 {
		t.Fatalf("running analyses after completion: %d", n)
	}
}

// W3: reverse lookup of a group's domain through GroupIdIndex (ALL).
func TestSeedW3GroupIdIndex(t *testing.T) {
	c := ddb()
	table := createSeedTable(t, c, "pk", "sk", []types.GlobalSecondaryIndex{
		{IndexName: aws.String("GroupIdIndex"), KeySchema: ks("gsi_pk", "HASH", "gsi_sk", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
	}, "gsi_pk", "gsi_sk")
	domain := "ドメイン.example.com"
	for g := 0; g < 3; g++ {
		gid := fmt.Sprint("g", g)
		put(t, c, table, item{"pk": S("DOMAIN#" + domain), "sk": S("GROUP#" + gid + "#METADATA"), "fullId": S(gid + "@" + domain),
			"gsi_pk": S("GROUP#" + gid), "gsi_sk": S("DOMAIN#" + domain)})
		for n := 0; n < 4; n++ {
			put(t, c, table, item{"pk": S("DOMAIN#" + domain), "sk": S(fmt.Sprintf("GROUP#%s#NODE#n%d", gid, n)),
				"data": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: item{"key": S("temp"), "value": N("21.5")}}}}})
		}
	}
	got := queryAll(t, c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GroupIdIndex"),
		KeyConditionExpression: aws.String("gsi_pk = :g"), ExpressionAttributeValues: item{":g": S("GROUP#g1")}})
	if len(got) != 1 || str(t, got[0]["fullId"]) != "g1@"+domain || str(t, got[0]["gsi_sk"]) != "DOMAIN#"+domain {
		t.Fatalf("group lookup: %v", got)
	}
}

// W4: a user's conversations newest first, 20 at a time, from a sparse GSI
// carrying only each conversation's first message.
func TestSeedW4UserConversations(t *testing.T) {
	c := ddb()
	table := createSeedTable(t, c, "conversation_id", "timestamp", []types.GlobalSecondaryIndex{
		{IndexName: aws.String("UserConversationsIndex"), KeySchema: ks("gsi_pk_user", "HASH", "timestamp", "RANGE"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"conversation_id", "message_content"}}},
	}, "gsi_pk_user")
	var items []item
	for conv := 0; conv < 45; conv++ {
		for m := 0; m < 3; m++ {
			ts := fmt.Sprintf("2025-11-05T10:%02d:%02dZ", conv, m)
			it := item{"conversation_id": S(fmt.Sprint("c", conv)), "timestamp": S(ts), "message_content": S("hello"),
				"metadata": &types.AttributeValueMemberM{Value: item{"rag_sources": &types.AttributeValueMemberL{Value: []types.AttributeValue{S("doc1")}}}}}
			if m == 0 {
				it["gsi_pk_user"] = S("U456")
			}
			items = append(items, it)
		}
	}
	batchPut(t, c, table, items)
	in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("UserConversationsIndex"),
		KeyConditionExpression: aws.String("gsi_pk_user = :u"), ExpressionAttributeValues: item{":u": S("U456")},
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(20)}
	out, err := c.Query(bg, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 20 || str(t, out.Items[0]["conversation_id"]) != "c44" || str(t, out.Items[19]["conversation_id"]) != "c25" {
		t.Fatalf("first page: %d items, first %v", len(out.Items), out.Items[0])
	}
	if got := attrNames(out.Items[0]); got != "conversation_id,gsi_pk_user,message_content,timestamp" {
		t.Fatalf("projected attributes: %s", got)
	}
	if out.LastEvaluatedKey == nil {
		t.Fatal("no LastEvaluatedKey after a full page")
	}
	if all := queryAll(t, c, in); len(all) != 45 || str(t, all[44]["conversation_id"]) != "c0" {
		t.Fatalf("all conversations: %d", len(all))
	}
}
