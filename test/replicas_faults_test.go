package test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// backlog posts an admin fault control (or the status) and returns the
// writes queued per region.
func backlog(t *testing.T, k *kura, path string) map[string]int {
	t.Helper()
	resp, err := http.Post(k.endpoint+path, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Backlog map[string]int }
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&out) != nil {
		t.Fatalf("%s: %d", path, resp.StatusCode)
	}
	return out.Backlog
}

// The fault controls: replication to a region paused and resumed, a delay
// between two regions, and a region made unavailable (its requests refused
// as DynamoDB refuses them while it cannot serve a region) whose backlog
// replicates on recovery.
func TestGlobalTableFaultControls(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1", "--admin")
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Faults")
	if _, err := addReplica(east, "Faults", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Faults", "eu-west-1") == "ACTIVE" })
	put := func(pk, n string) {
		t.Helper()
		if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Faults"), Item: map[string]types.AttributeValue{"pk": S(pk), "n": N(n)}}); err != nil {
			t.Fatal(err)
		}
	}

	// Paused: the write waits in the backlog until replication resumes.
	backlog(t, k, "/admin/replication/pause?region=eu-west-1")
	put("paused", "1")
	eventually(t, "the write in eu-west-1's backlog", func() bool { return backlog(t, k, "/admin/replication/status")["eu-west-1"] == 1 })
	if got := getN(t, west, "Faults", "paused"); got != "" {
		t.Fatalf("replicated while paused: %q", got)
	}
	if b := backlog(t, k, "/admin/replication/resume?region=eu-west-1"); b["eu-west-1"] > 1 {
		t.Fatalf("backlog %v", b)
	}
	eventually(t, "the backlog to replicate", func() bool { return backlog(t, k, "/admin/replication/status")["eu-west-1"] == 0 })
	if got := getN(t, west, "Faults", "paused"); got != "1" {
		t.Fatalf("after resume: %q", got)
	}

	// The replicated write is in eu-west-1's stream as an ordinary INSERT.
	if !inStream(t, k, west, "eu-west-1", "Faults", "INSERT", "paused") {
		t.Fatal("the replicated write is not in eu-west-1's stream")
	}

	// A delay, timed on the clock of the region the write was made in (the
	// home region's, which an unsigned /admin/clock/advance moves): the
	// write waits in the backlog until that clock has moved past it.
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=eu-west-1&by=1h")
	put("delayed", "2")
	eventually(t, "the delayed write in eu-west-1's backlog", func() bool { return backlog(t, k, "/admin/replication/status")["eu-west-1"] == 1 })
	k.admin(t, "/admin/clock/advance?by=59m")
	for i := 0; i < 10; i++ { // the worker polls every 10 ms: give it rounds to get it wrong
		if got := getN(t, west, "Faults", "delayed"); got != "" || backlog(t, k, "/admin/replication/status")["eu-west-1"] != 1 {
			t.Fatalf("replicated before the 1h delay had passed: %q", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	k.admin(t, "/admin/clock/advance?by=1m")
	eventually(t, "the delayed write once the delay passed", func() bool { return getN(t, west, "Faults", "delayed") == "2" })
	backlog(t, k, "/admin/replication/delay?from=us-east-1&to=eu-west-1&by=0s")

	// Unavailable: eu-west-1 answers ServiceUnavailable (HTTP 503) while
	// us-east-1 serves on; on recovery the backlog replicates.
	backlog(t, k, "/admin/region/unavailable?region=eu-west-1")
	_, err := west.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("Faults"), Key: map[string]types.AttributeValue{"pk": S("paused")}})
	var ae smithy.APIError
	var re *smithyhttp.ResponseError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ServiceUnavailable" || ae.ErrorMessage() != "DynamoDB is currently unavailable. (This should be a temporary state.)" ||
		!errors.As(err, &re) || re.HTTPStatusCode() != 503 {
		t.Fatalf("an unavailable region answered %v", err)
	}
	put("during-outage", "3")
	eventually(t, "the write in eu-west-1's backlog", func() bool { return backlog(t, k, "/admin/replication/status")["eu-west-1"] == 1 })
	backlog(t, k, "/admin/region/available?region=eu-west-1")
	eventually(t, "the backlog to replicate on recovery", func() bool { return getN(t, west, "Faults", "during-outage") == "3" })

	// A region the server does not serve is refused.
	resp, err := http.Post(k.endpoint+"/admin/replication/pause?region=ap-south-1", "application/json", nil)
	if err != nil || resp.StatusCode != 400 {
		t.Fatalf("an unknown region: %v %v", err, resp)
	}
	resp.Body.Close()
}

// inStream reports whether region's stream of table has a record of event
// for the item pk, read with a Streams client for that region.
func inStream(t *testing.T, k *kura, c *dynamodb.Client, region, table, event, pk string) bool {
	t.Helper()
	d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	sc := dynamodbstreams.New(dynamodbstreams.Options{Region: region, BaseEndpoint: aws.String(k.endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", ""), Retryer: aws.NopRetryer{}, HTTPClient: keyHTTP})
	arn := aws.ToString(d.Table.LatestStreamArn)
	_, all := shards(t, sc, arn)
	for _, sh := range all {
		recs, _ := drain(t, sc, iter(t, sc, arn, aws.ToString(sh.ShardId), st.ShardIteratorTypeTrimHorizon, nil))
		for _, r := range recs {
			if s, ok := r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS); ok && s.Value == pk && string(r.EventName) == event && aws.ToString(r.AwsRegion) == region {
				return true
			}
		}
	}
	return false
}
