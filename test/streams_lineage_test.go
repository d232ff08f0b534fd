package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// consumer follows a stream the way KCL does: one shard at a time, its
// NextShardIterator until the shard ends, then the child shard.
type consumer struct {
	arn, shard string
	it         *string
	recs       []st.Record
}

// poll reads until caught up (an empty page on an open shard).
func (cn *consumer) poll(t *testing.T, sc *dynamodbstreams.Client) {
	t.Helper()
	for {
		if cn.it == nil {
			kids, err := sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(cn.arn),
				ShardFilter: &st.ShardFilter{Type: st.ShardFilterTypeChildShards, ShardId: aws.String(cn.shard)}})
			if err != nil {
				t.Fatal(err)
			}
			if len(kids.StreamDescription.Shards) == 0 {
				return // closed shard whose child is not created yet
			}
			child := kids.StreamDescription.Shards[0]
			if aws.ToString(child.ParentShardId) != cn.shard {
				t.Fatalf("child %s names parent %s, want %s", aws.ToString(child.ShardId), aws.ToString(child.ParentShardId), cn.shard)
			}
			cn.shard = aws.ToString(child.ShardId)
			cn.it = iter(t, sc, cn.arn, cn.shard, st.ShardIteratorTypeTrimHorizon, nil)
		}
		out, err := sc.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: cn.it, Limit: aws.Int32(7)})
		if err != nil {
			t.Fatal(err)
		}
		cn.recs = append(cn.recs, out.Records...)
		cn.it = out.NextShardIterator
		if len(out.Records) == 0 && cn.it != nil {
			return
		}
	}
}

// TestStreamsLineageAcrossRestarts rolls shards every second and restarts
// Kura twice (cleanly, then with SIGKILL) while a consumer follows
// NextShardIterator and the shard lineage: it sees every write exactly
// once, in order.
func TestStreamsLineageAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--stream-shard-period", "1s"}
	k := startKura(t, args...)
	c, sc := k.client(), k.streamsClient()
	table, arn := createStreamTable(t, c, types.StreamViewTypeNewAndOldImages)
	_, sh := shards(t, sc, arn)
	cn := &consumer{arn: arn, shard: aws.ToString(sh[0].ShardId)}
	cn.it = iter(t, sc, arn, cn.shard, st.ShardIteratorTypeTrimHorizon, nil)

	n := 0
	write := func(count int) {
		for i := 0; i < count; i++ {
			if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
				Item: map[string]types.AttributeValue{"pk": S(fmt.Sprintf("k%03d", n)), "sk": S("x")}}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	for round := 0; round < 3; round++ {
		write(10)
		cn.poll(t, sc)
		time.Sleep(1100 * time.Millisecond) // a rollover happens meanwhile
	}
	k.stop()
	k = startKura(t, args...)
	c, sc = k.client(), k.streamsClient()
	write(10)
	cn.poll(t, sc)
	time.Sleep(1100 * time.Millisecond)
	write(10)
	k.kill()
	k = startKura(t, args...)
	c, sc = k.client(), k.streamsClient()
	write(10)
	time.Sleep(1100 * time.Millisecond)
	cn.poll(t, sc)
	cn.poll(t, sc)

	if len(cn.recs) != n {
		t.Fatalf("consumer saw %d records, %d writes", len(cn.recs), n)
	}
	for i, r := range cn.recs {
		if got := avString(r.Dynamodb.Keys["pk"]); got != fmt.Sprintf("S:k%03d", i) {
			t.Fatalf("record %d is %s", i, got)
		}
		if i > 0 && aws.ToString(r.Dynamodb.SequenceNumber) <= aws.ToString(cn.recs[i-1].Dynamodb.SequenceNumber) {
			t.Fatalf("sequence numbers not increasing at %d", i)
		}
	}
	desc, all := shards(t, sc, arn)
	if len(all) < 4 || desc.StreamStatus != st.StreamStatusEnabled {
		t.Fatalf("%d shards, status %s", len(all), desc.StreamStatus)
	}
	for i, s := range all {
		r := s.SequenceNumberRange
		if i > 0 && aws.ToString(s.ParentShardId) != aws.ToString(all[i-1].ShardId) {
			t.Fatalf("shard %d parent %s", i, aws.ToString(s.ParentShardId))
		}
		if (i < len(all)-1) != (r.EndingSequenceNumber != nil) {
			t.Fatalf("shard %d: ending sequence number %v", i, r.EndingSequenceNumber)
		}
	}
}

// TestStreamsIteratorExpiryAndRetention moves the server clock: iterators
// expire after 15 minutes, records are trimmed after 24 hours, and a
// disabled stream disappears 24 hours after it was disabled.
func TestStreamsIteratorExpiryAndRetention(t *testing.T) {
	k := startKura(t, "--in-memory", "--admin")
	c, sc := k.client(), k.streamsClient()
	table, arn := createStreamTable(t, c, types.StreamViewTypeKeysOnly)
	for i := 0; i < 3; i++ {
		c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(fmt.Sprint(i)), "sk": S("x")}})
	}
	_, sh := shards(t, sc, arn)
	shard := aws.ToString(sh[0].ShardId)
	it := iter(t, sc, arn, shard, st.ShardIteratorTypeTrimHorizon, nil)
	recs, _ := drain(t, sc, it)
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	k.admin(t, "/admin/clock/advance?by=16m")
	_, err := sc.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	wantAPIError(t, err, "ExpiredIteratorException", "The provided iterator exceeds the maximum age allowed.")

	k.admin(t, "/admin/clock/advance?by=24h")
	time.Sleep(2500 * time.Millisecond) // the maintenance loop trims and rolls over
	_, err = sc.GetShardIterator(bg, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
		ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: recs[0].Dynamodb.SequenceNumber})
	wantAPIError(t, err, "TrimmedDataAccessException", "The data you are trying to access has been trimmed.")
	if r, _ := drain(t, sc, iter(t, sc, arn, shard, st.ShardIteratorTypeTrimHorizon, nil)); len(r) != 0 {
		t.Fatalf("%d records survived retention", len(r))
	}
	_, all := shards(t, sc, arn)
	if len(all) < 2 || all[0].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Fatalf("no rollover after 24h: %d shards", len(all))
	}

	if _, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	k.admin(t, "/admin/clock/advance?by=23h")
	time.Sleep(1500 * time.Millisecond)
	if _, err := sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}); err != nil {
		t.Fatalf("disabled stream gone before 24h: %v", err)
	}
	k.admin(t, "/admin/clock/advance?by=2h")
	time.Sleep(2500 * time.Millisecond)
	_, err = sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+arn+" not found")
	ls, err := sc.ListStreams(bg, &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
	if err != nil || len(ls.Streams) != 0 {
		t.Fatalf("ListStreams after retention: %v %+v", err, ls)
	}
}
