package test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// clusterStreamTail follows every shard of a stream through one node, from
// TRIM_HORIZON, parents first, keeping what it read.
type clusterStreamTail struct {
	c    *dynamodbstreams.Client
	arn  string
	its  map[string]*string // open iterators by shard; nil once a shard is read to its end
	recs map[string][]st.Record
}

// poll reads what every shard holds now: new shards are started at
// TRIM_HORIZON, each shard read until a call returns no records.
func (f *clusterStreamTail) poll() error {
	d, err := f.c.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(f.arn)})
	if err != nil {
		return err
	}
	for _, sh := range d.StreamDescription.Shards {
		id := aws.ToString(sh.ShardId)
		it, started := f.its[id]
		if !started {
			out, err := f.c.GetShardIterator(bg, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(f.arn),
				ShardId: sh.ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
			if err != nil {
				return err
			}
			it = out.ShardIterator
		}
		for it != nil {
			out, err := f.c.GetRecords(bg, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
			if err != nil {
				return err
			}
			f.recs[id] = append(f.recs[id], out.Records...)
			it = out.NextShardIterator
			if len(out.Records) == 0 {
				break
			}
		}
		f.its[id] = it
	}
	return nil
}

// TestClusterNodeStreams: writers put new versions of their items through
// the three nodes round-robin (a failed put is retried on the next node)
// while a reader follows the stream through another node, and one node is
// SIGKILLed mid-run. The reader, and a reader through each surviving node
// at the end, see every version of every item exactly once and in order
// (a retried put whose first attempt had committed changes nothing, so
// records no second change), with sequence numbers strictly increasing
// in each shard. Seen failing with the per-process streams of a single
// server (engine.streamsConfig not handing Config.Cluster to the
// registry): node 1 answered ResourceNotFoundException for the stream
// node 0 had created.
func TestClusterNodeStreams(t *testing.T) {
	c := startNodes(t, 3)
	table, arn := createStreamTable(t, c.clients[0], types.StreamViewTypeNewImage)
	const workers, itemsEach, versions = 4, 3, 12
	tail := &clusterStreamTail{c: c.nodes[1].streamsClient(), arn: arn, its: map[string]*string{}, recs: map[string][]st.Record{}}
	var done atomic.Bool
	var tailErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			if err := tail.poll(); err != nil {
				tailErr = err
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var puts atomic.Int64
	var killed atomic.Bool
	parallel(t, workers, func(w int) error {
		node := w
		for v := 1; v <= versions; v++ {
			for i := range itemsEach {
				item := map[string]types.AttributeValue{"pk": S(fmt.Sprintf("w%d", w)), "sk": S(strconv.Itoa(i)), "v": N(strconv.Itoa(v))}
				for attempt := 0; ; attempt++ {
					if puts.Add(1) == workers*itemsEach*versions/2 && killed.CompareAndSwap(false, true) {
						c.nodes[2].kill()
					}
					_, err := c.clients[node%3].PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
					node++
					if err == nil {
						break
					}
					if attempt == 5 {
						return fmt.Errorf("put of w%d/%d v%d failed on every node: %v", w, i, v, err)
					}
				}
			}
		}
		return nil
	})
	done.Store(true)
	wg.Wait()
	if tailErr != nil {
		t.Fatalf("the reader through node 1: %v", tailErr)
	}
	if !killed.Load() {
		t.Fatal("the node was never killed")
	}
	if err := tail.poll(); err != nil { // what was committed after its last look
		t.Fatal(err)
	}
	check := func(who string, recs map[string][]st.Record) {
		t.Helper()
		last := map[string]int{}
		total := 0
		for shard, rs := range recs {
			prev := ""
			for _, r := range rs {
				seq := aws.ToString(r.Dynamodb.SequenceNumber)
				if seq <= prev {
					t.Fatalf("%s: shard %s has %s after %s", who, shard, seq, prev)
				}
				prev = seq
			}
			total += len(rs)
		}
		// Shards in lineage order: one stream here, so by ID (creation time).
		for _, shard := range slices.Sorted(maps.Keys(recs)) {
			for _, r := range recs[shard] {
				key := r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value + "/" + r.Dynamodb.Keys["sk"].(*st.AttributeValueMemberS).Value
				v, _ := strconv.Atoi(r.Dynamodb.NewImage["v"].(*st.AttributeValueMemberN).Value)
				if v != last[key]+1 {
					t.Fatalf("%s: item %s's version %d follows version %d", who, key, v, last[key])
				}
				last[key] = v
			}
		}
		if total != workers*itemsEach*versions {
			t.Fatalf("%s read %d records, want %d", who, total, workers*itemsEach*versions)
		}
	}
	check("the reader that followed the writes through node 1", tail.recs)
	for i := range 2 {
		whole := &clusterStreamTail{c: c.nodes[i].streamsClient(), arn: arn, its: map[string]*string{}, recs: map[string][]st.Record{}}
		if err := whole.poll(); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("a reader through node %d", i), whole.recs)
	}
}
