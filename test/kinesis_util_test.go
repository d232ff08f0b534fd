package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	ktypes "github.com/aws/aws-sdk-go-v2/service/kinesis/types"
)

// The Kinesis streaming destination tests run against kinesalite (npm
// kinesalite@3.3.3, test/kinesis/): .ci/run starts one and sets
// KURA_TEST_KINESIS_ENDPOINT to it, and KURA_REQUIRE_KINESIS so that the
// tests fail rather than skip without it. Tests that stop Kinesis start
// their own with test/kinesis/kinesalite.sh (installed by .ci/run too).

// kinesisEndpoint is KURA_TEST_KINESIS_ENDPOINT, or skips the test (fails
// it under KURA_REQUIRE_KINESIS).
func kinesisEndpoint(t *testing.T) string {
	t.Helper()
	ep := os.Getenv("KURA_TEST_KINESIS_ENDPOINT")
	if ep == "" {
		if os.Getenv("KURA_REQUIRE_KINESIS") != "" {
			t.Fatal("KURA_REQUIRE_KINESIS is set but KURA_TEST_KINESIS_ENDPOINT is not")
		}
		t.Skip("set KURA_TEST_KINESIS_ENDPOINT to a kinesalite (test/kinesis/kinesalite.sh start DIR) to run the Kinesis streaming destination tests")
	}
	return ep
}

// kinesisCreds are the credentials Kura's SDK client signs with (any do for
// kinesalite), given to the server process through the environment.
func kinesisCreds(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDKINESIS")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "kinesis-secret")
	t.Setenv("AWS_REGION", "us-east-1")
}

// startKuraKinesis starts a server putting to the Kinesis at ep.
func startKuraKinesis(t *testing.T, ep string, args ...string) *kura {
	t.Helper()
	kinesisCreds(t)
	return startKura(t, append([]string{"--kinesis-endpoint", ep}, args...)...)
}

func kinesisClient(ep string) *kinesis.Client {
	return kinesis.New(kinesis.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(ep),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
	})
}

// createKinesisStream creates a stream of n shards, waits until it is
// ACTIVE and returns its ARN.
func createKinesisStream(t *testing.T, kc *kinesis.Client, n int32) (name, arn string) {
	t.Helper()
	name = uniqueTable(strings.ReplaceAll(t.Name(), "/", "_"))
	if _, err := kc.CreateStream(bg, &kinesis.CreateStreamInput{StreamName: aws.String(name), ShardCount: aws.Int32(n)}); err != nil {
		t.Fatalf("CreateStream: %v", err)
	}
	t.Cleanup(func() { kc.DeleteStream(bg, &kinesis.DeleteStreamInput{StreamName: aws.String(name)}) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := kc.DescribeStream(bg, &kinesis.DescribeStreamInput{StreamName: aws.String(name)})
		if err != nil {
			t.Fatalf("DescribeStream: %v", err)
		}
		if out.StreamDescription.StreamStatus == ktypes.StreamStatusActive {
			return name, aws.ToString(out.StreamDescription.StreamARN)
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream %s still %s", name, out.StreamDescription.StreamStatus)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ddbKinesisRecord is a DynamoDB Kinesis record as a consumer reads it.
type ddbKinesisRecord struct {
	AwsRegion    string          `json:"awsRegion"`
	EventID      string          `json:"eventID"`
	EventName    string          `json:"eventName"`
	UserIdentity json.RawMessage `json:"userIdentity"`
	RecordFormat string          `json:"recordFormat"`
	TableName    string          `json:"tableName"`
	Dynamodb     struct {
		ApproximateCreationDateTime          int64                      `json:"ApproximateCreationDateTime"`
		ApproximateCreationDateTimePrecision string                     `json:"ApproximateCreationDateTimePrecision"`
		Keys                                 map[string]json.RawMessage `json:"Keys"`
		NewImage                             map[string]json.RawMessage `json:"NewImage"`
		OldImage                             map[string]json.RawMessage `json:"OldImage"`
		SizeBytes                            int64                      `json:"SizeBytes"`
	} `json:"dynamodb"`
	EventSource string `json:"eventSource"`

	partitionKey string // the Kinesis record's
	raw          []byte
}

// readKinesis reads every record of the stream, shard by shard from the
// start, in each shard's order.
func readKinesis(t *testing.T, kc *kinesis.Client, stream string) []ddbKinesisRecord {
	t.Helper()
	shards, err := kc.ListShards(bg, &kinesis.ListShardsInput{StreamName: aws.String(stream)})
	if err != nil {
		t.Fatalf("ListShards: %v", err)
	}
	var out []ddbKinesisRecord
	for _, sh := range shards.Shards {
		it, err := kc.GetShardIterator(bg, &kinesis.GetShardIteratorInput{StreamName: aws.String(stream), ShardId: sh.ShardId, ShardIteratorType: ktypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatalf("GetShardIterator: %v", err)
		}
		iter := it.ShardIterator
		for iter != nil {
			got, err := kc.GetRecords(bg, &kinesis.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				t.Fatalf("GetRecords: %v", err)
			}
			for _, r := range got.Records {
				var rec ddbKinesisRecord
				if err := json.Unmarshal(r.Data, &rec); err != nil {
					t.Fatalf("record %q: %v", r.Data, err)
				}
				rec.partitionKey, rec.raw = aws.ToString(r.PartitionKey), r.Data
				out = append(out, rec)
			}
			if len(got.Records) == 0 {
				break
			}
			iter = got.NextShardIterator
		}
	}
	return out
}

// waitKinesis reads the stream until it holds at least n records (or
// fails the test after within).
func waitKinesis(t *testing.T, kc *kinesis.Client, stream string, n int, within time.Duration) []ddbKinesisRecord {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		recs := readKinesis(t, kc, stream)
		if len(recs) >= n {
			return recs
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream %s has %d records after %v, want %d", stream, len(recs), within, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// enableAndWait enables the destination and waits until it is ACTIVE.
func enableAndWait(t *testing.T, c *dynamodb.Client, table, arn string, cfg *types.EnableKinesisStreamingConfiguration) {
	t.Helper()
	if _, err := c.EnableKinesisStreamingDestination(bg, &dynamodb.EnableKinesisStreamingDestinationInput{
		TableName: aws.String(table), StreamArn: aws.String(arn), EnableKinesisStreamingConfiguration: cfg,
	}); err != nil {
		t.Fatalf("EnableKinesisStreamingDestination: %v", err)
	}
	waitDestination(t, c, table, arn, types.DestinationStatusActive)
}

// waitDestination waits until the table's destination of arn is in state.
func waitDestination(t *testing.T, c *dynamodb.Client, table, arn string, state types.DestinationStatus) types.KinesisDataStreamDestination {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var last []types.KinesisDataStreamDestination
	for time.Now().Before(deadline) {
		out, err := c.DescribeKinesisStreamingDestination(bg, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatalf("DescribeKinesisStreamingDestination: %v", err)
		}
		last = out.KinesisDataStreamDestinations
		for _, d := range last {
			if aws.ToString(d.StreamArn) == arn && d.DestinationStatus == state {
				return d
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("destination %s of %s not %s: %s", arn, table, state, describeDests(last))
	return types.KinesisDataStreamDestination{}
}

func describeDests(ds []types.KinesisDataStreamDestination) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "[%s %s %q %s] ", aws.ToString(d.StreamArn), d.DestinationStatus, aws.ToString(d.DestinationStatusDescription), d.ApproximateCreationDateTimePrecision)
	}
	return b.String()
}

// privateKinesalite starts a kinesalite of the test's own (to stop and
// start it), keeping its streams in a folder of the test's; it returns its
// endpoint, and a function to stop it and one to start it again on the
// same port.
func privateKinesalite(t *testing.T) (ep string, stop, restart func()) {
	t.Helper()
	kinesisEndpoint(t) // skip with the others when there is no kinesalite here
	script, err := filepath.Abs("kinesis/kinesalite.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var pid string
	start := func(port string) string {
		out, err := exec.Command(script, "start", dir, port).Output()
		if err != nil {
			t.Fatalf("kinesalite.sh start: %v %s", err, out)
		}
		f := strings.Fields(string(out))
		if len(f) != 2 {
			t.Fatalf("kinesalite.sh start printed %q", out)
		}
		pid = f[1]
		return f[0]
	}
	ep = start("")
	port := ep[strings.LastIndex(ep, ":")+1:]
	stop = func() {
		if pid != "" {
			exec.Command(script, "stop", pid).Run()
			pid = ""
		}
	}
	restart = func() { start(port) }
	t.Cleanup(stop)
	return ep, stop, restart
}
