package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// delayedTable starts a Kura whose tables and indexes stay CREATING for
// 1.5 s, creates table name (hash key pk) and waits until it is ACTIVE; it
// returns a client and a DescribeTable of the table.
func delayedTable(t *testing.T, name string) (*dynamodb.Client, func() *types.TableDescription) {
	k := startKura(t, "--in-memory", "--create-delay", "1500ms")
	c := k.client()
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	describe := func() *types.TableDescription {
		t.Helper()
		d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return d.Table
	}
	for describe().TableStatus != types.TableStatusActive {
		time.Sleep(50 * time.Millisecond)
	}
	return c, describe
}

// DynamoDB's texts for online index changes that the delay makes visible.
const (
	msgOneOnlineIndex  = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
	msgDeleteTableBusy = "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted."
)

// msgDeleteAllocating is DynamoDB's refusal of deleting a new index still
// in resource allocation.
func msgDeleteAllocating(table, index string) string {
	return "Attempt to change a resource which is still in use: Index creation is in resource allocation phase. " +
		"Retry deletion during backfilling phase or when the index is active. Table: " + table + " Index: " + index
}

// gsiChange is an UpdateTable of table that creates GSI index (keyed on
// attribute g, KEYS_ONLY) or, with drop, deletes it.
func gsiChange(c *dynamodb.Client, table, index string, drop bool) error {
	in := &dynamodb.UpdateTableInput{TableName: aws.String(table)}
	if drop {
		in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(index)}}}
	} else {
		in.AttributeDefinitions = []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}}
		in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String(index), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}
	}
	_, err := c.UpdateTable(bg, in)
	return err
}

// putG writes n items of table, keys "0".."n-1", each with g = "x".
func putG(t *testing.T, c *dynamodb.Client, table string, n int) {
	t.Helper()
	for i := range n {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S(fmt.Sprint(i)), "g": S("x")}}); err != nil {
			t.Fatal(err)
		}
	}
}

// waitUntil polls cond for up to 10 s and fails with what when it never holds.
func waitUntil(t *testing.T, cond func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGSICreateLifecycleWithDelay: a GSI added by UpdateTable goes through
// DynamoDB's phases in order: resource allocation (table UPDATING, index
// CREATING, Backfilling false), then the table ACTIVE, and only then the
// index ACTIVE. It is never ACTIVE under an UPDATING table (it was, as soon
// as a small backfill finished).
func TestGSICreateLifecycleWithDelay(t *testing.T) {
	c, describe := delayedTable(t, "lifecycle")
	name := "lifecycle"
	putG(t, c, name, 20)
	_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byG"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := describe()
	if g := d.GlobalSecondaryIndexes[0]; d.TableStatus != types.TableStatusUpdating || g.IndexStatus != types.IndexStatusCreating || g.Backfilling == nil || *g.Backfilling {
		t.Fatalf("right after UpdateTable: table %s, index %s, Backfilling %v; want UPDATING, CREATING, false", d.TableStatus, g.IndexStatus, aws.ToBool(g.Backfilling))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := describe()
		g := d.GlobalSecondaryIndexes[0]
		if g.IndexStatus == types.IndexStatusActive {
			if d.TableStatus != types.TableStatusActive {
				t.Fatalf("index ACTIVE while the table is %s", d.TableStatus)
			}
			break
		}
		if d.TableStatus == types.TableStatusUpdating && aws.ToBool(g.Backfilling) {
			t.Fatalf("index Backfilling during resource allocation")
		}
		if time.Now().After(deadline) {
			t.Fatalf("index still %s, table %s", g.IndexStatus, d.TableStatus)
		}
		time.Sleep(50 * time.Millisecond)
	}
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": S("x")}})
	if err != nil || q.Count != 20 {
		t.Fatalf("Query the new index: %v %v", q, err)
	}
}

// TestVectorIndexCreateLifecycleWithDelay: a vector index added by
// UpdateTable goes through the phases DynamoDB shows (eu-west-2,
// 2026-08-11/23, in a public conformance suite): resource allocation
// (table UPDATING, index CREATING, Backfilling false), during which
// deleting it is refused, then the backfill (table ACTIVE, Backfilling
// true, lasting the delay too), during which deleting it cancels it and
// leaves the table ACTIVE; DeleteTable is refused while it is built.
func TestVectorIndexCreateLifecycleWithDelay(t *testing.T) {
	c, describe := delayedTable(t, "veclife")
	name := "veclife"
	create := func(index string) error {
		_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(name),
			VectorIndexUpdates: []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{IndexName: aws.String(index),
				VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")}, Dimensions: aws.Int64(3),
				DistanceFunction: types.VectorDistanceFunctionCosine, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
		return err
	}
	remove := func(index string) error {
		_, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(name),
			VectorIndexUpdates: []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String(index)}}}})
		return err
	}
	if err := create("vix"); err != nil {
		t.Fatal(err)
	}
	d := describe()
	if v := d.VectorIndexes[0]; d.TableStatus != types.TableStatusUpdating || v.IndexStatus != types.IndexStatusCreating || v.Backfilling == nil || *v.Backfilling {
		t.Fatalf("right after UpdateTable: table %s, index %s, Backfilling %v; want UPDATING, CREATING, false", d.TableStatus, v.IndexStatus, v.Backfilling)
	}
	wantAPIError(t, remove("vix"), "ResourceInUseException", "Attempt to change a resource which is still in use: Index creation is in resource allocation phase. "+
		"Retry deletion during backfilling phase or when the index is active. Table: "+name+" Index: vix")
	wantAPIError(t, create("vix2"), "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	// A search is refused through the whole creation, allocation included
	// (captured from DynamoDB by another emulator's authors).
	_, err0 := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(name), IndexName: aws.String("vix"),
		SearchVector: []types.AttributeValue{N("1"), N("0"), N("0")}, TopK: aws.Int32(1)})
	wantAPIError(t, err0, "ValidationException", "Cannot search backfilling vector index: vix")
	const busy = "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted."
	_, err := c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	var inUse *types.ResourceInUseException
	if !errorsAs(err, &inUse) {
		t.Fatalf("DeleteTable while the index is allocated: %v", err)
	}
	// The backfill: the table ACTIVE beside the CREATING index, Backfilling
	// true; DeleteTable refused, a search refused.
	backfilling := func() bool {
		d := describe()
		v := d.VectorIndexes
		return d.TableStatus == types.TableStatusActive && len(v) == 1 && v[0].IndexStatus == types.IndexStatusCreating && aws.ToBool(v[0].Backfilling)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !backfilling() {
		if time.Now().After(deadline) {
			t.Fatalf("never ACTIVE beside a backfilling index: %+v", describe())
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err = c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceInUseException", busy)
	// A GSI is a second online index change too.
	wantAPIError(t, gsiChange(c, name, "byG", false), "LimitExceededException", msgOneOnlineIndex)
	_, err = c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(name), IndexName: aws.String("vix"),
		SearchVector: []types.AttributeValue{N("1"), N("0"), N("0")}, TopK: aws.Int32(1)})
	wantAPIError(t, err, "ValidationException", "Cannot search backfilling vector index: vix")
	// A Delete now cancels the build; the table stays ACTIVE. Built again,
	// the index turns ACTIVE in the end.
	if err := remove("vix"); err != nil {
		t.Fatal(err)
	}
	if d := describe(); d.TableStatus != types.TableStatusActive || len(d.VectorIndexes) != 0 {
		t.Fatalf("after the cancel: table %s, %d vector indexes", d.TableStatus, len(d.VectorIndexes))
	}
	if err := create("vix"); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		d = describe()
		if v := d.VectorIndexes; len(v) == 1 && v[0].IndexStatus == types.IndexStatusActive && d.TableStatus == types.TableStatusActive && v[0].Backfilling == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index never ACTIVE: table %s, index %+v", d.TableStatus, d.VectorIndexes)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGSICreatePhasesWithDelay: a GSI added by UpdateTable shows the same
// phases as a vector index, even on a small table: resource allocation
// (table UPDATING, index CREATING, Backfilling false), during which
// deleting it is refused and another online index change is held to one
// at a time, then the backfill (table ACTIVE, Backfilling true, lasting
// the delay too), during which deleting it cancels the build. The rule is
// DynamoDB's documented one (GlobalSecondaryIndexDescription.Backfilling,
// aws-sdk-go-v2 service/dynamodb v1.74.0: an index being created can be
// deleted while Backfilling is true, not while it is false).
func TestGSICreatePhasesWithDelay(t *testing.T) {
	c, describe := delayedTable(t, "gsiphases")
	name := "gsiphases"
	putG(t, c, name, 5)
	if err := gsiChange(c, name, "byG", false); err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, gsiChange(c, name, "byG", true), "ResourceInUseException", msgDeleteAllocating(name, "byG"))
	wantAPIError(t, gsiChange(c, name, "byG2", false), "LimitExceededException", msgOneOnlineIndex)
	_, err := c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceInUseException", msgDeleteTableBusy)

	gsis := func() string {
		d := describe()
		return fmt.Sprintf("table %s, %+v", d.TableStatus, d.GlobalSecondaryIndexes)
	}
	waitUntil(t, func() bool {
		d := describe()
		g := d.GlobalSecondaryIndexes
		return d.TableStatus == types.TableStatusActive && len(g) == 1 && g[0].IndexStatus == types.IndexStatusCreating && aws.ToBool(g[0].Backfilling)
	}, func() string { return "never ACTIVE beside a backfilling index: " + gsis() })
	_, err = c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceInUseException", msgDeleteTableBusy)
	wantAPIError(t, gsiChange(c, name, "byG2", false), "LimitExceededException", msgOneOnlineIndex)
	// The cancel is taken; the index is DELETING, then gone.
	if err := gsiChange(c, name, "byG", true); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool {
		d := describe()
		return len(d.GlobalSecondaryIndexes) == 0 && d.TableStatus == types.TableStatusActive
	},
		func() string { return "the cancelled index never left: " + gsis() })
	// Built again, it turns ACTIVE with every item.
	if err := gsiChange(c, name, "byG", false); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool {
		g := describe().GlobalSecondaryIndexes
		return len(g) == 1 && g[0].IndexStatus == types.IndexStatusActive
	}, func() string { return "index never ACTIVE: " + gsis() })
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": S("x")}})
	if err != nil || q.Count != 5 {
		t.Fatalf("Query the new index: %v %v", q, err)
	}
}
