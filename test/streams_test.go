package test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// streamsClient is a DynamoDB Streams SDK client for this server.
func (k *kura) streamsClient() *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(k.endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   memBodyClient{awshttp.NewBuildableClient()},
	})
}

// admin posts to one of the --admin endpoints (of every node, in the
// cluster run).
func (k *kura) admin(t *testing.T, path string) {
	t.Helper()
	if k.nodes != nil { // the operator endpoints act on one process: each node's clock
		for _, n := range k.nodes {
			n.admin(t, path)
		}
		return
	}
	resp, err := http.Post(k.endpoint+path, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: status %d", path, resp.StatusCode)
	}
}

// createStreamTable creates a pk/sk table with a stream of the given view
// type and returns its name and stream ARN.
func createStreamTable(t *testing.T, c *dynamodb.Client, view types.StreamViewType) (string, string) {
	t.Helper()
	name := uniqueTable(strings.ReplaceAll(t.Name(), "/", "_"))
	out, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return name, aws.ToString(out.TableDescription.LatestStreamArn)
}

// shards describes every shard of a stream (following pagination).
func shards(t *testing.T, sc *dynamodbstreams.Client, arn string) (*st.StreamDescription, []st.Shard) {
	t.Helper()
	var all []st.Shard
	var start *string
	for {
		d, err := sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start, Limit: aws.Int32(2)})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, d.StreamDescription.Shards...)
		if start = d.StreamDescription.LastEvaluatedShardId; start == nil {
			return d.StreamDescription, all
		}
	}
}

func iter(t *testing.T, sc *dynamodbstreams.Client, arn, shard string, typ st.ShardIteratorType, seq *string) *string {
	t.Helper()
	out, err := sc.GetShardIterator(bg, &dynamodbstreams.GetShardIteratorInput{
		StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: typ, SequenceNumber: seq})
	if err != nil {
		t.Fatal(err)
	}
	return out.ShardIterator
}

// drain reads a shard from it until no record comes back (or the shard
// ends) and returns the records and the next iterator (nil at the end of a
// closed shard).
func drain(t *testing.T, sc *dynamodbstreams.Client, it *string) ([]st.Record, *string) {
	t.Helper()
	var recs []st.Record
	for it != nil {
		out, err := sc.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, out.Records...)
		it = out.NextShardIterator
		if len(out.Records) == 0 {
			break
		}
	}
	return recs, it
}

// avString renders a streams AttributeValue (or a dynamodb one) for comparison.
func avString(v any) string {
	switch x := v.(type) {
	case *st.AttributeValueMemberS:
		return "S:" + x.Value
	case *st.AttributeValueMemberN:
		return "N:" + x.Value
	case *st.AttributeValueMemberM:
		return "M:" + itemString(x.Value)
	case *types.AttributeValueMemberS:
		return "S:" + x.Value
	case *types.AttributeValueMemberN:
		return "N:" + x.Value
	case *types.AttributeValueMemberM:
		return "M:" + itemString(x.Value)
	}
	return fmt.Sprintf("%T", v)
}

func itemString[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s;", k, avString(m[k]))
	}
	return b.String()
}

func TestStreamsRecordsAndControlPlane(t *testing.T) {
	c, sc := ddb(), shared.streamsClient()
	table, arn := createStreamTable(t, c, types.StreamViewTypeNewAndOldImages)
	if !strings.Contains(arn, ":table/"+table+"/stream/") {
		t.Fatalf("LatestStreamArn %q", arn)
	}
	dt, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil || aws.ToString(dt.Table.LatestStreamArn) != arn || dt.Table.LatestStreamLabel == nil ||
		dt.Table.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Fatalf("DescribeTable stream: %v %+v", err, dt.Table)
	}
	ls, err := sc.ListStreams(bg, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
	if err != nil || len(ls.Streams) != 1 || aws.ToString(ls.Streams[0].StreamArn) != arn ||
		aws.ToString(ls.Streams[0].StreamLabel) != aws.ToString(dt.Table.LatestStreamLabel) {
		t.Fatalf("ListStreams: %v %+v", err, ls)
	}

	key := map[string]types.AttributeValue{"pk": S("p"), "sk": S("s")}
	put := func(v string) {
		t.Helper()
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S("p"), "sk": S("s"), "v": N(v)}}); err != nil {
			t.Fatal(err)
		}
	}
	put("1")
	put("1") // no-op: no record
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
		UpdateExpression: aws.String("SET v = v + :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": N("1")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key}); err != nil {
		t.Fatal(err)
	}
	// Deleting a missing item and a failed condition record nothing.
	c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key})
	c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: key, ConditionExpression: aws.String("attribute_exists(pk)")})
	// Batch writes record too.
	if _, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
		{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": S("b"), "sk": S("1")}}},
	}}}); err != nil {
		t.Fatal(err)
	}

	desc, sh := shards(t, sc, arn)
	if desc.StreamStatus != st.StreamStatusEnabled || desc.StreamViewType != st.StreamViewTypeNewAndOldImages ||
		aws.ToString(desc.TableName) != table || len(desc.KeySchema) != 2 || len(sh) != 1 ||
		sh[0].SequenceNumberRange.StartingSequenceNumber == nil || sh[0].SequenceNumberRange.EndingSequenceNumber != nil ||
		!strings.HasPrefix(aws.ToString(sh[0].ShardId), "shardId-") {
		t.Fatalf("DescribeStream: %+v %+v", desc, sh)
	}
	shard := aws.ToString(sh[0].ShardId)
	recs, next := drain(t, sc, iter(t, sc, arn, shard, st.ShardIteratorTypeTrimHorizon, nil))
	if next == nil {
		t.Fatal("open shard returned no NextShardIterator")
	}
	var events []string
	for i, r := range recs {
		events = append(events, string(r.EventName))
		if aws.ToString(r.EventSource) != "aws:dynamodb" || aws.ToString(r.AwsRegion) != "us-east-1" ||
			aws.ToString(r.EventVersion) != "1.1" || len(aws.ToString(r.EventID)) != 32 || r.UserIdentity != nil {
			t.Fatalf("record envelope: %+v", r)
		}
		d := r.Dynamodb
		if d.StreamViewType != st.StreamViewTypeNewAndOldImages || d.ApproximateCreationDateTime == nil ||
			aws.ToInt64(d.SizeBytes) <= 0 || len(d.Keys) != 2 || len(aws.ToString(d.SequenceNumber)) < 21 {
			t.Fatalf("stream record: %+v", d)
		}
		if i > 0 && aws.ToString(d.SequenceNumber) <= aws.ToString(recs[i-1].Dynamodb.SequenceNumber) {
			t.Fatal("sequence numbers do not increase")
		}
	}
	if got := strings.Join(events, ","); got != "INSERT,MODIFY,REMOVE,INSERT" {
		t.Fatalf("events %s", got)
	}
	if recs[0].Dynamodb.OldImage != nil || avString(recs[0].Dynamodb.NewImage["v"]) != "N:1" ||
		avString(recs[1].Dynamodb.OldImage["v"]) != "N:1" || avString(recs[1].Dynamodb.NewImage["v"]) != "N:2" ||
		recs[2].Dynamodb.NewImage != nil || avString(recs[2].Dynamodb.OldImage["v"]) != "N:2" {
		t.Fatalf("images: %+v / %+v / %+v", recs[0].Dynamodb, recs[1].Dynamodb, recs[2].Dynamodb)
	}

	// AT / AFTER sequence number, LATEST.
	seq1 := recs[1].Dynamodb.SequenceNumber
	at, _ := drain(t, sc, iter(t, sc, arn, shard, st.ShardIteratorTypeAtSequenceNumber, seq1))
	after, _ := drain(t, sc, iter(t, sc, arn, shard, st.ShardIteratorTypeAfterSequenceNumber, seq1))
	if len(at) != 3 || len(after) != 2 || aws.ToString(at[0].Dynamodb.SequenceNumber) != aws.ToString(seq1) {
		t.Fatalf("AT %d AFTER %d", len(at), len(after))
	}
	latest := iter(t, sc, arn, shard, st.ShardIteratorTypeLatest, nil)
	if r, _ := drain(t, sc, latest); len(r) != 0 {
		t.Fatalf("LATEST returned %d old records", len(r))
	}
	put("7")
	if r, _ := drain(t, sc, latest); len(r) != 1 || r[0].EventName != st.OperationTypeInsert {
		t.Fatalf("LATEST then put: %+v", r)
	}
	if r, _ := drain(t, sc, next); len(r) != 1 {
		t.Fatalf("NextShardIterator then put: %d records", len(r))
	}

	// Errors: a tampered iterator, a bad Limit, an unknown stream.
	raw := []byte(aws.ToString(next))
	mid := len(raw) - 30 // inside the opaque part: flip one position bit
	if raw[mid] == 'A' {
		raw[mid] = 'B'
	} else {
		raw[mid] = 'A'
	}
	bad := string(raw)
	_, err = sc.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(bad)})
	wantAPIError(t, err, "ValidationException", "Invalid ShardIterator")
	_, err = sc.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: next, Limit: aws.Int32(1001)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000")
	_, err = sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn + "x")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+arn+"x not found")
	_, err = sc.ListStreams(bg, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table),
		ExclusiveStartStreamArn: aws.String("kossaapaaasdafsdaasdasdasdasasdasfadfadfasdasdas")})
	wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
	// An ARN without a stream ARN's shape is refused, not looked up (the
	// AWS SDK for JavaScript's integration tests against DynamoDB Streams).
	for _, bad := range []string{"arn:aws:dynamodb:us-east-1:000000000000:table/" + table, "fake-stream-fake-stream-fake-stream-fake-stream",
		"arn:aws:dynamodb:us-east-1:000000000000:table//stream/x", "arn:aws:s3:us-east-1:000000000000:table/t/stream/2026-01-01"} {
		_, err = sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(bad)})
		wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
		_, err = sc.GetShardIterator(bg, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(bad),
			ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: st.ShardIteratorTypeLatest})
		wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
	}

	// Enabling again is refused; disabling closes the shard; a new stream
	// with another view type gets a new ARN, the old stays readable.
	_, err = c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	wantAPIError(t, err, "ValidationException", "Table already has an enabled stream: TableName: "+table)
	if _, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	put("8") // not recorded: the stream is disabled
	desc, sh = shards(t, sc, arn)
	if desc.StreamStatus != st.StreamStatusDisabled || sh[0].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Fatalf("disabled stream: %+v %+v", desc.StreamStatus, sh[0].SequenceNumberRange)
	}
	all, end := drain(t, sc, iter(t, sc, arn, shard, st.ShardIteratorTypeTrimHorizon, nil))
	if len(all) != 5 {
		t.Fatalf("disabled stream holds %d records, want 5", len(all))
	}
	if end != nil {
		t.Fatal("closed shard did not end with a null NextShardIterator")
	}
	waitActive(t, c, table)
	up, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	if err != nil {
		t.Fatal(err)
	}
	arn2 := aws.ToString(up.TableDescription.LatestStreamArn)
	if arn2 == arn || arn2 == "" {
		t.Fatalf("re-enabled stream ARN %q", arn2)
	}
	put("9")
	_, sh2 := shards(t, sc, arn2)
	r2, _ := drain(t, sc, iter(t, sc, arn2, aws.ToString(sh2[0].ShardId), st.ShardIteratorTypeTrimHorizon, nil))
	if len(r2) != 1 || r2[0].Dynamodb.NewImage != nil || r2[0].Dynamodb.OldImage != nil || len(r2[0].Dynamodb.Keys) != 2 ||
		r2[0].EventName != st.OperationTypeModify {
		t.Fatalf("KEYS_ONLY stream: %+v", r2)
	}
	ls, _ = sc.ListStreams(bg, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
	if len(ls.Streams) != 2 {
		t.Fatalf("ListStreams after re-enable: %d streams", len(ls.Streams))
	}
	page, _ := sc.ListStreams(bg, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table), Limit: aws.Int32(1)})
	if len(page.Streams) != 1 || page.LastEvaluatedStreamArn == nil {
		t.Fatalf("ListStreams paging: %+v", page)
	}
}

func waitActive(t *testing.T, c *dynamodb.Client, table string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		if d.Table.TableStatus == types.TableStatusActive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("table did not become ACTIVE")
}

func TestStreamsViewTypes(t *testing.T) {
	c, sc := ddb(), shared.streamsClient()
	for _, view := range []types.StreamViewType{types.StreamViewTypeKeysOnly, types.StreamViewTypeNewImage, types.StreamViewTypeOldImage, types.StreamViewTypeNewAndOldImages} {
		t.Run(string(view), func(t *testing.T) {
			table, arn := createStreamTable(t, c, view)
			key := map[string]types.AttributeValue{"pk": S("k"), "sk": S("1")}
			c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S("k"), "sk": S("1"), "a": S("x")}})
			c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S("k"), "sk": S("1"), "a": S("y")}})
			c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key})
			_, sh := shards(t, sc, arn)
			recs, _ := drain(t, sc, iter(t, sc, arn, aws.ToString(sh[0].ShardId), st.ShardIteratorTypeTrimHorizon, nil))
			if len(recs) != 3 {
				t.Fatalf("%d records", len(recs))
			}
			wantNew := view == types.StreamViewTypeNewImage || view == types.StreamViewTypeNewAndOldImages
			wantOld := view == types.StreamViewTypeOldImage || view == types.StreamViewTypeNewAndOldImages
			for i, r := range recs {
				hasNew, hasOld := r.Dynamodb.NewImage != nil, r.Dynamodb.OldImage != nil
				if hasNew != (wantNew && i < 2) || hasOld != (wantOld && i > 0) || string(r.Dynamodb.StreamViewType) != string(view) {
					t.Fatalf("record %d (%s): new=%v old=%v", i, r.EventName, hasNew, hasOld)
				}
			}
		})
	}
}

// TestStreamsConsumerReconstructsTable tails a table while concurrent
// writers put, update and delete, then checks that replaying the stream
// rebuilds exactly the table's contents.
func TestStreamsConsumerReconstructsTable(t *testing.T) {
	c, sc := ddb(), shared.streamsClient()
	table, arn := createStreamTable(t, c, types.StreamViewTypeNewAndOldImages)
	_, sh := shards(t, sc, arn)
	it := iter(t, sc, arn, aws.ToString(sh[0].ShardId), st.ShardIteratorTypeTrimHorizon, nil)

	state := map[string]string{}
	seen := map[string]bool{}
	var last string
	apply := func(recs []st.Record) {
		for _, r := range recs {
			seq := aws.ToString(r.Dynamodb.SequenceNumber)
			if seen[seq] || seq <= last {
				t.Fatalf("record %s repeated or out of order (last %s)", seq, last)
			}
			seen[seq], last = true, seq
			k := avString(r.Dynamodb.Keys["pk"]) + "/" + avString(r.Dynamodb.Keys["sk"])
			if r.EventName == st.OperationTypeRemove {
				delete(state, k)
			} else {
				state[k] = itemString(r.Dynamodb.NewImage)
			}
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := 0; i < 150; i++ {
				key := map[string]types.AttributeValue{"pk": S(fmt.Sprintf("p%d", rng.IntN(5))), "sk": S(fmt.Sprintf("s%d", rng.IntN(8)))}
				var err error
				switch rng.IntN(4) {
				case 0, 1:
					item := map[string]types.AttributeValue{"pk": key["pk"], "sk": key["sk"], "w": N(fmt.Sprint(w)), "i": N(fmt.Sprint(i))}
					_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
				case 2:
					_, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
						UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": N("1")}})
				default:
					_, err = c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	go func() { wg.Wait(); close(done) }()
	tailing := true
	for tailing {
		select {
		case <-done:
			tailing = false
		default:
		}
		out, err := sc.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(37)})
		if err != nil {
			t.Fatal(err)
		}
		apply(out.Records)
		it = out.NextShardIterator
	}
	recs, _ := drain(t, sc, it)
	apply(recs)

	want := map[string]string{}
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Items {
			want[avString(item["pk"])+"/"+avString(item["sk"])] = itemString(item)
		}
	}
	if len(want) != len(state) {
		t.Fatalf("stream rebuilt %d items, table has %d", len(state), len(want))
	}
	for k, v := range want {
		if state[k] != v {
			t.Fatalf("item %s: stream %q, table %q", k, state[k], v)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no records")
	}
}

// DescribeStream lists the shards after ExclusiveStartShardId in ID order:
// an ID past the last one lists none (a test suite run against DynamoDB:
// "real does not" throw, and Shards is empty); Kura listed every shard.
func TestStreamsUnknownStartShard(t *testing.T) {
	c, sc := ddb(), shared.streamsClient()
	_, arn := createStreamTable(t, c, types.StreamViewTypeKeysOnly)
	d, err := sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ExclusiveStartShardId: aws.String("zzzzzzzzzzzzzzzzzzzzzzzzsfasdgagadfadfgagkjsdfsfsdjfjks")})
	if err != nil || len(d.StreamDescription.Shards) != 0 {
		t.Fatalf("past the last shard: %v %+v", err, d)
	}
	d, err = sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ExclusiveStartShardId: aws.String("shardId-00000000000000000000-0")})
	if err != nil || len(d.StreamDescription.Shards) == 0 {
		t.Fatalf("before the first shard: %v %+v", err, d)
	}
}

// TestDescribeStreamShardFilterChecks: a ShardFilter without its Type, or
// a CHILD_SHARDS filter without the parent's ShardId, is refused with a
// ValidationException before the stream is looked up (ScyllaDB's
// Alternator tests, run against DynamoDB: test_streams.py's
// test_stream_shard_filtering_missing_* cases); a well-formed filter still
// answers the children.
func TestDescribeStreamShardFilterChecks(t *testing.T) {
	c, sc := ddb(), shared.streamsClient()
	_, arn := createStreamTable(t, c, types.StreamViewTypeKeysOnly)
	_, sh := shards(t, sc, arn)
	shard := aws.ToString(sh[0].ShardId)

	missingType := "1 validation error detected: Value null at 'shardFilter.type' failed to satisfy constraint: Member must not be null"
	missingShard := "1 validation error detected: Value null at 'shardFilter.shardId' failed to satisfy constraint: Member must not be null"
	for _, tc := range []struct {
		name, arn string
		f         *st.ShardFilter
		msg       string
	}{
		{"empty filter", arn, &st.ShardFilter{}, missingType},
		{"no type", arn, &st.ShardFilter{ShardId: aws.String(shard)}, missingType},
		{"no shard id", arn, &st.ShardFilter{Type: st.ShardFilterTypeChildShards}, missingShard},
		// Request checks come before the lookup: an unknown stream of a
		// valid shape gets the validation error.
		{"unknown stream", arn + "x", &st.ShardFilter{Type: st.ShardFilterTypeChildShards}, missingShard},
		{"bad type", arn, &st.ShardFilter{Type: "PARENT_SHARDS", ShardId: aws.String(shard)},
			"1 validation error detected: Value 'PARENT_SHARDS' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]"},
	} {
		_, err := sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(tc.arn), ShardFilter: tc.f})
		t.Run(tc.name, func(t *testing.T) { wantAPIError(t, err, "ValidationException", tc.msg) })
	}

	out, err := sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ShardFilter: &st.ShardFilter{Type: st.ShardFilterTypeChildShards, ShardId: aws.String(shard)}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.StreamDescription.Shards); n != 0 {
		t.Fatalf("the open shard has %d children, want 0", n)
	}
}
