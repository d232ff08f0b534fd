package test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	dto "github.com/prometheus/client_model/go"
)

// metricsKura starts a Kura of two regions with --metrics (and args),
// returning it and its metrics address.
func metricsKura(t *testing.T, args ...string) (*kura, string) {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	k := startKura(t, append([]string{"--in-memory", "--regions", "us-east-1,eu-west-1", "--metrics", addr}, args...)...)
	return k, addr
}

// waitReplicaActive waits until table's replica in region is ACTIVE as c
// describes it.
func waitReplicaActive(t *testing.T, c *dynamodb.Client, table, region string) {
	t.Helper()
	eventually(t, "the replica in "+region, func() bool { return replicaStatus(t, c, table, region) == "ACTIVE" })
}

// A replicated write consumes write capacity on the replica it is applied
// to, by the same size rules as the write in its own region (DynamoDB's
// replicated write units: one per KB written, in every replica), and the
// reads replication makes to apply it consume none.
func TestGlobalTableReplicatedWriteCapacity(t *testing.T) {
	k, addr := metricsKura(t)
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Orders")
	if _, err := addReplica(east, "Orders", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	waitReplicaActive(t, east, "Orders", "eu-west-1")
	for i := range 3 {
		if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Orders"),
			Item: map[string]types.AttributeValue{"pk": S("o" + strconv.Itoa(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	// 2.5 KB: three write units.
	if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{
		"pk": S("big"), "v": S(string(make([]byte, 2500)))}}); err != nil {
		t.Fatal(err)
	}
	if _, err := east.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{"pk": S("o0")}}); err != nil {
		t.Fatal(err)
	}
	want := tableItems(t, east, "Orders")
	eventually(t, "the writes in eu-west-1", func() bool { return sameStrings(tableItems(t, west, "Orders"), want) })
	// The scans above read both regions: measure the writes from now on.
	before := scrape(t, addr)
	readBefore := value(before, "kura_consumed_read_capacity_units_total", "region", "eu-west-1", "table", "Orders")
	if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": S("late")}}); err != nil {
		t.Fatal(err)
	}
	// Waiting on the metrics, not on reads of the replica.
	var f map[string]*dto.MetricFamily
	eventually(t, "the last write in eu-west-1", func() bool {
		f = scrape(t, addr)
		return value(f, "kura_consumed_write_capacity_units_total", "region", "eu-west-1", "table", "Orders") == 8
	})
	// 3 small puts, the 3-unit put, the delete of a small item, the last
	// put: 8 units, in each region.
	if got := value(f, "kura_consumed_write_capacity_units_total", "region", "us-east-1", "table", "Orders"); got != 8 {
		t.Errorf("write units consumed in us-east-1: %v, want 8", got)
	}
	// Applying the last write read nothing on the replica's capacity.
	if got := value(f, "kura_consumed_read_capacity_units_total", "region", "eu-west-1", "table", "Orders"); got != readBefore {
		t.Errorf("read units consumed in eu-west-1 by replication: %v, want %v", got, readBefore)
	}
}

// With --enforce-throughput, a replica out of write capacity makes the
// writes replicated to it wait (counted as its throttled writes) until
// its capacity refills: they arrive late, none is lost.
func TestGlobalTableReplicatedWritesThrottled(t *testing.T) {
	k, addr := metricsKura(t, "--admin", "--enforce-throughput", "--burst-capacity", "1s")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	_, err := east.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String("Slow"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(100), WriteCapacityUnits: aws.Int64(1)},
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		StreamSpecification:   &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := addReplica(east, "Slow", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	waitReplicaActive(t, east, "Slow", "eu-west-1")
	// A write in us-east-1 waits for eu-west-1, whose capacity a write of
	// its own (4 units against 1 a second) then uses up for 3 seconds.
	backlog(t, k, "/admin/replication/pause?region=eu-west-1")
	if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Slow"), Item: map[string]types.AttributeValue{"pk": S("east")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := west.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Slow"), Item: bigItem("west")}); err != nil {
		t.Fatal(err)
	}
	backlog(t, k, "/admin/replication/resume?region=eu-west-1")
	eventually(t, "the replicated write throttled in eu-west-1", func() bool {
		return value(scrape(t, addr), "kura_write_throttle_events_total", "region", "eu-west-1", "table", "Slow") > 0
	})
	eventually(t, "the write in eu-west-1", func() bool { return backlog(t, k, "/admin/replication/status")["eu-west-1"] == 0 })
	out, err := west.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("Slow"), Key: map[string]types.AttributeValue{"pk": S("east")}})
	if err != nil || out.Item == nil {
		t.Fatalf("the write did not arrive: %v %v", out, err)
	}
}
