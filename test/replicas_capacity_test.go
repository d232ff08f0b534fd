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
