package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

func updateTTL(c *dynamodb.Client, table, attr string, on bool) error {
	_, err := c.UpdateTimeToLive(bg, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(on)}})
	return err
}

func describeTTL(t *testing.T, c *dynamodb.Client, table string) (string, string) {
	t.Helper()
	d, err := c.DescribeTimeToLive(bg, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	return string(d.TimeToLiveDescription.TimeToLiveStatus), aws.ToString(d.TimeToLiveDescription.AttributeName)
}

// expireNow runs one TTL pass through the admin endpoint.
func (k *kura) expireNow(t *testing.T) int {
	t.Helper()
	resp, err := http.Post(k.endpoint+"/admin/ttl/expire", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Deleted int }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("expire: %v status %d", err, resp.StatusCode)
	}
	return out.Deleted
}

func TestTTLUpdateRules(t *testing.T) {
	k := startKura(t, "--in-memory", "--admin")
	c := k.client()
	table := createTable(t, c, "pk", "", "")
	if s, a := describeTTL(t, c, table); s != "DISABLED" || a != "" {
		t.Fatalf("fresh table: %s %s", s, a)
	}
	wantAPIError(t, updateTTL(c, table, "ttl", false), "ValidationException", "TimeToLive is already disabled")
	out, err := c.UpdateTimeToLive(bg, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	if err != nil || aws.ToString(out.TimeToLiveSpecification.AttributeName) != "ttl" || !aws.ToBool(out.TimeToLiveSpecification.Enabled) {
		t.Fatalf("enable: %v %+v", err, out)
	}
	if s, a := describeTTL(t, c, table); s != "ENABLED" || a != "ttl" {
		t.Fatalf("after enable: %s %s", s, a)
	}
	wantAPIError(t, updateTTL(c, table, "ttl", true), "ValidationException", "TimeToLive is already enabled")
	wantAPIError(t, updateTTL(c, table, "other", true), "ValidationException", "TimeToLive is active on a different AttributeName: current AttributeName is ttl")
	wantAPIError(t, updateTTL(c, table, "other", false), "ValidationException", "TimeToLive is active on a different AttributeName: current AttributeName is ttl")
	wantAPIError(t, updateTTL(c, table, "ttl", false), "ValidationException", "Time to live has been modified multiple times within a fixed interval")
	k.admin(t, "/admin/clock/advance?by=61m")
	if err := updateTTL(c, table, "ttl", false); err != nil {
		t.Fatal(err)
	}
	if s, _ := describeTTL(t, c, table); s != "DISABLED" {
		t.Fatalf("after disable: %s", s)
	}
	wantAPIError(t, updateTTL(c, table, "ttl2", true), "ValidationException", "Time to live has been modified multiple times within a fixed interval")

	wantAPIError(t, updateTTL(c, table+"_missing", "ttl", true), "ResourceNotFoundException", "Requested resource not found: Table: "+table+"_missing not found")
	long := strings.Repeat("a", 256)
	wantAPIError(t, updateTTL(c, table, long, true), "ValidationException",
		"1 validation error detected: Value '"+long+"' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255")
	typ, msg := rawCall(t, k, "UpdateTimeToLive", `{"TableName":"`+table+`","TimeToLiveSpecification":{"AttributeName":"ttl"}}`)
	if typ != "ValidationException" || msg != "1 validation error detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null" {
		t.Fatalf("missing Enabled: %s %s", typ, msg)
	}
}

// TestTTLChatHistoryFlow is W4 end to end: a chat table with a sparse GSI,
// Streams NEW_AND_OLD_IMAGES and TTL on "ttl". Expired messages are
// deleted from the table and the index, with REMOVE records marked as the
// service's; the rest (future, not a number, missing, over five years old)
// stay; the setting survives a restart.
func TestTTLChatHistoryFlow(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--admin", "--ttl-interval", "0"}
	k := startKura(t, args...)
	c := k.client()
	table := uniqueTable("ChatMessages")
	ct, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("conversation_id"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("timestamp"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("gsi_pk_user"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("conversation_id"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("timestamp"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("UserConversationsIndex"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("gsi_pk_user"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("timestamp"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"conversation_id", "message_content"}},
		}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(ct.TableDescription.LatestStreamArn)
	if err := updateTTL(c, table, "ttl", true); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	msg := func(conv, ts string, ttl types.AttributeValue, user string) {
		t.Helper()
		item := map[string]types.AttributeValue{"conversation_id": S(conv), "timestamp": S(ts), "message_content": S("hi " + conv),
			"metadata": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"rag_sources": &types.AttributeValueMemberL{Value: []types.AttributeValue{S("doc1")}}}}}
		if ttl != nil {
			item["ttl"] = ttl
		}
		if user != "" {
			item["gsi_pk_user"] = S(user)
		}
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	msg("c1", "2025-11-05T10:00:00Z", N(fmt.Sprint(now-3600)), "U456#2025-11-05") // expired, first message
	msg("c1", "2025-11-05T10:01:00Z", N(fmt.Sprint(now-10)), "")                  // expired
	msg("c2", "2025-11-05T11:00:00Z", N(fmt.Sprint(now+2*365*86400)), "U456#2025-11-05")
	msg("c3", "2025-11-05T12:00:00Z", N(fmt.Sprint(now-6*365*86400)), "") // over five years old: kept
	msg("c4", "2025-11-05T13:00:00Z", S(fmt.Sprint(now-10)), "")          // not a number: kept
	msg("c5", "2025-11-05T14:00:00Z", nil, "")                            // no TTL: kept
	msg("c6", "2025-11-05T15:00:00Z", N(fmt.Sprint(now+3600)), "")
	if _, err := c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"conversation_id": S("c6"), "timestamp": S("2025-11-05T15:00:00Z")}}); err != nil { // a user delete
		t.Fatal(err)
	}

	// The setting and the data survive a restart; expiry runs after it.
	k.stop()
	k = startKura(t, args...)
	c = k.client()
	if s, a := describeTTL(t, c, table); s != "ENABLED" || a != "ttl" {
		t.Fatalf("after restart: %s %s", s, a)
	}
	if n := k.expireNow(t); n != 2 {
		t.Fatalf("expired %d items, want 2", n)
	}
	if n := k.expireNow(t); n != 0 {
		t.Fatalf("second pass expired %d items", n)
	}
	sc, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	var convs []string
	for _, it := range sc.Items {
		convs = append(convs, avString(it["conversation_id"])[2:])
	}
	if len(convs) != 4 || strings.Contains(strings.Join(convs, ","), "c1") {
		t.Fatalf("left after expiry: %v", convs)
	}
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("UserConversationsIndex"),
		KeyConditionExpression: aws.String("gsi_pk_user = :u"), ScanIndexForward: aws.Bool(false), Limit: aws.Int32(20),
		ExpressionAttributeValues: map[string]types.AttributeValue{":u": S("U456#2025-11-05")}})
	if err != nil || len(q.Items) != 1 || avString(q.Items[0]["conversation_id"]) != "S:c2" {
		t.Fatalf("GSI after expiry: %v %v", err, q.Items)
	}

	// The stream: REMOVE records of TTL deletions carry the service
	// identity and the old image; the user's delete does not.
	strm := k.streamsClient()
	_, sh := shards(t, strm, arn)
	var recs []st.Record
	for _, s := range sh {
		r, _ := drain(t, strm, iter(t, strm, arn, aws.ToString(s.ShardId), st.ShardIteratorTypeTrimHorizon, nil))
		recs = append(recs, r...)
	}
	var ttlRemoves, userRemoves int
	for _, r := range recs {
		if r.EventName != st.OperationTypeRemove {
			continue
		}
		if u := r.UserIdentity; u != nil {
			if aws.ToString(u.Type) != "Service" || aws.ToString(u.PrincipalId) != "dynamodb.amazonaws.com" ||
				avString(r.Dynamodb.Keys["conversation_id"]) != "S:c1" || r.Dynamodb.OldImage["ttl"] == nil {
				t.Fatalf("TTL REMOVE record: %+v %+v", u, r.Dynamodb)
			}
			ttlRemoves++
		} else {
			userRemoves++
		}
	}
	if len(recs) != 10 || ttlRemoves != 2 || userRemoves != 1 {
		t.Fatalf("%d records, %d TTL removes, %d user removes", len(recs), ttlRemoves, userRemoves)
	}

	// The clock is injectable: moving it past c6's neighbour's TTL expires it.
	msg("c7", "2025-11-05T16:00:00Z", N(fmt.Sprint(time.Now().Unix()+60)), "")
	if n := k.expireNow(t); n != 0 {
		t.Fatalf("expired %d future items", n)
	}
	k.admin(t, "/admin/clock/advance?by=2m")
	if n := k.expireNow(t); n != 1 {
		t.Fatalf("expired %d items after advancing the clock, want 1", n)
	}
}

// TestTTLBackgroundExpirer checks that expiry runs on its own.
func TestTTLBackgroundExpirer(t *testing.T) {
	k := startKura(t, "--in-memory", "--ttl-interval", "100ms")
	c := k.client()
	table := createTable(t, c, "pk", "", "")
	if err := updateTTL(c, table, "exp", true); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 600; i++ { // more than one page
		exp := time.Now().Unix() - 5
		if i%2 == 0 {
			exp += 3600
		}
		c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(fmt.Sprint(i)), "exp": N(fmt.Sprint(exp))}})
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
		if err != nil {
			t.Fatal(err)
		}
		if out.Count == 300 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d items left, want 300", out.Count)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
