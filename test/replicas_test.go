package test

import (
	"net/http"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// eventually polls cond every 20 ms until it holds, failing after 20 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// streamTable creates table name in c's region with a NEW_AND_OLD_IMAGES
// stream.
func streamTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
}

// tableItems is every item of table through c (a consistent scan), as
// sorted strings.
func tableItems(t *testing.T, c *dynamodb.Client, table string) []string {
	t.Helper()
	var out []string
	for _, it := range scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}) {
		out = append(out, itemString(it))
	}
	sort.Strings(out)
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func addReplica(c *dynamodb.Client, table, region string) (*dynamodb.UpdateTableOutput, error) {
	return c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(region)}}}})
}

// replicaStatus is the status DescribeTable through c gives table's replica
// in region ("" when there is none).
func replicaStatus(t *testing.T, c *dynamodb.Client, table, region string) string {
	t.Helper()
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	for _, r := range d.Table.Replicas {
		if aws.ToString(r.RegionName) == region {
			return string(r.ReplicaStatus)
		}
	}
	return ""
}

// A replica added under write load is filled from the existing items,
// ends identical to its source (full scans compared), and from then on
// writes, deletes and TTL deletions made in either region reach the other.
func TestGlobalTableReplicaUnderLoad(t *testing.T) {
	k := startKura(t, "--data-dir", t.TempDir(), "--regions", "us-east-1,eu-west-1", "--admin")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Orders")
	for i := range 300 {
		if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Orders"),
			Item: map[string]types.AttributeValue{"pk": S("o" + strconv.Itoa(i)), "n": N("0")}}); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // writes continue while the replica is created
		defer wg.Done()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			pk := "o" + strconv.Itoa(n%400)
			if n%7 == 0 {
				east.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{"pk": S(pk)}})
			} else {
				east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": S(pk), "n": N(strconv.Itoa(n))}})
			}
		}
	}()
	out, err := addReplica(east, "Orders", "eu-west-1")
	if err != nil {
		t.Fatalf("UpdateTable ReplicaUpdates Create: %v", err)
	}
	d := out.TableDescription
	if aws.ToString(d.GlobalTableVersion) != "2019.11.21" || len(d.Replicas) != 1 || aws.ToString(d.Replicas[0].RegionName) != "eu-west-1" ||
		d.Replicas[0].ReplicaStatus != types.ReplicaStatusCreating || d.TableStatus != types.TableStatusUpdating {
		t.Fatalf("UpdateTable answer: %+v %+v", d, d.Replicas)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Orders", "eu-west-1") == "ACTIVE" })
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	var a, b []string
	eventually(t, "the replica to match its source", func() bool {
		a, b = tableItems(t, east, "Orders"), tableItems(t, west, "Orders")
		return sameStrings(a, b)
	})
	// 300 items were there before the replica; the writer deletes about
	// one key in seven while it runs (how many depends on the backend's
	// speed: on the TiKV mock only 261 were left once), so only a table
	// with most of them proves the backfill copied the existing items.
	if len(a) < 200 {
		t.Fatalf("only %d items", len(a))
	}
	wd, err := west.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
	if err != nil || aws.ToString(wd.Table.GlobalTableVersion) != "2019.11.21" || len(wd.Table.Replicas) != 1 ||
		aws.ToString(wd.Table.Replicas[0].RegionName) != "us-east-1" || wd.Table.Replicas[0].ReplicaStatus != types.ReplicaStatusActive ||
		wd.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("eu-west-1 DescribeTable: %v %+v", err, wd)
	}

	// Both ways: a put and a delete in eu-west-1 reach us-east-1.
	if _, err := west.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": S("from-west"), "n": N("1")}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "eu-west-1's put in us-east-1", func() bool { return getN(t, east, "Orders", "from-west") == "1" })
	if _, err := west.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{"pk": S("from-west")}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "eu-west-1's delete in us-east-1", func() bool { return getN(t, east, "Orders", "from-west") == "" })

	// A TTL deletion in us-east-1 (the home region: the admin requests are
	// unsigned; its clock moved past the expiry time) reaches eu-west-1.
	if _, err := east.UpdateTimeToLive(bg, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Orders"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": S("expiring"), "n": N("5"), "exp": N(strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the expiring item in eu-west-1", func() bool { return getN(t, west, "Orders", "expiring") == "5" })
	for _, path := range []string{"/admin/clock/advance?by=2h", "/admin/ttl/expire"} {
		resp, err := http.Post(k.endpoint+path, "application/json", nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", path, err, resp)
		}
		resp.Body.Close()
	}
	eventually(t, "the TTL deletion in eu-west-1", func() bool { return getN(t, west, "Orders", "expiring") == "" })

	// Replication resumes after a restart.
	k.stop()
	k2 := startKura(t, k.args[4:]...)
	east, west = keyClient(k2, "AKID", "us-east-1"), keyClient(k2, "AKID", "eu-west-1")
	if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{"pk": S("after-restart"), "n": N("7")}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a write after the restart in eu-west-1", func() bool { return getN(t, west, "Orders", "after-restart") == "7" })

	// Deleting the replica deletes eu-west-1's table.
	if _, err := east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Orders"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatalf("ReplicaUpdates Delete: %v", err)
	}
	eventually(t, "eu-west-1's table to go", func() bool {
		_, err := west.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
		var nf *types.ResourceNotFoundException
		return errorsAs(err, &nf)
	})
	eventually(t, "us-east-1's table to be a table of its region alone", func() bool {
		d, err := east.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
		return err == nil && d.Table.GlobalTableVersion == nil && len(d.Table.Replicas) == 0 && d.Table.TableStatus == types.TableStatusActive
	})
}

// getN is attribute n of table's item pk through c ("" when absent).
func getN(t *testing.T, c *dynamodb.Client, table, pk string) string {
	t.Helper()
	out, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{"pk": S(pk)}})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	if n, ok := out.Item["n"].(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

// Concurrent writes of one item in two regions converge to the same item
// in both (last writer wins).
func TestGlobalTableConcurrentWritesConverge(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Counters")
	if _, err := addReplica(east, "Counters", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Counters", "eu-west-1") == "ACTIVE" })
	var wg sync.WaitGroup
	for i, c := range []*dynamodb.Client{east, west} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 200 {
				pk := "k" + strconv.Itoa(n%5)
				c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Counters"), Item: map[string]types.AttributeValue{"pk": S(pk), "n": N(strconv.Itoa(i*1000 + n))}})
			}
		}()
	}
	wg.Wait()
	var a, b []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		a, b = tableItems(t, east, "Counters"), tableItems(t, west, "Counters")
		if len(a) == 5 && sameStrings(a, b) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the regions differ:\n%v\n%v", a, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ReplicaUpdates are checked as DynamoDB checks them.
func TestGlobalTableReplicaUpdatesRefused(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	createNotes(t, east, "east") // no stream
	_, err := addReplica(east, "Notes", "eu-west-1")
	wantAPIError(t, err, "ValidationException", "A replica can be added only to a table with DynamoDB Streams enabled with StreamViewType NEW_AND_OLD_IMAGES.")
	_, err = addReplica(east, "Notes", "us-east-1")
	wantAPIError(t, err, "ValidationException", "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
	_, err = addReplica(east, "Notes", "ap-south-1")
	wantAPIError(t, err, "ValidationException", "Region 'ap-south-1' is not a region this Kura serves (--regions).")
	_, err = addReplica(east, "Missing", "eu-west-1")
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Missing not found")

	streamTable(t, east, "Both")
	streamTable(t, west, "Both")
	_, err = addReplica(east, "Both", "eu-west-1")
	wantAPIError(t, err, "ValidationException", "Failed to create a the new replica of table with name: 'Both' because one or more replicas already existed as tables.")

	streamTable(t, east, "Twice")
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Twice"), ReplicaUpdates: []types.ReplicationGroupUpdate{
		{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}},
		{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}})
	wantAPIError(t, err, "ValidationException", "Update table operation with more than one create or delete replica actions not allowed")
	_, err = east.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Twice"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}})
	wantAPIError(t, err, "ValidationException", "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [eu-west-1].")
}
