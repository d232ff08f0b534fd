package kit

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// StreamReader is a minimal stream consumer in the style of a Lambda event
// source: it discovers shards with DescribeStream, starts every new shard at
// TRIM_HORIZON and keeps each shard's iterator between polls.
type StreamReader struct {
	sc    *dynamodbstreams.Client
	arn   string
	iters map[string]*string // shard ID → next iterator (nil: shard finished)
	// Calls counts GetRecords calls.
	Calls int
}

// NewStreamReader reads the stream arn.
func NewStreamReader(sc *dynamodbstreams.Client, arn string) *StreamReader {
	return &StreamReader{sc: sc, arn: arn, iters: map[string]*string{}}
}

// Shards is the number of shards seen so far.
func (r *StreamReader) Shards() int { return len(r.iters) }

// Poll returns every record written since the previous Poll, shard by shard
// (parents before children, as DescribeStream lists them).
func (r *StreamReader) Poll(ctx context.Context) ([]st.Record, error) {
	var shards []st.Shard
	var start *string
	for {
		d, err := r.sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(r.arn), ExclusiveStartShardId: start})
		if err != nil {
			return nil, fmt.Errorf("DescribeStream: %w", err)
		}
		shards = append(shards, d.StreamDescription.Shards...)
		if start = d.StreamDescription.LastEvaluatedShardId; start == nil {
			break
		}
	}
	var recs []st.Record
	for _, sh := range shards {
		id := aws.ToString(sh.ShardId)
		it, seen := r.iters[id]
		if !seen {
			out, err := r.sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
				StreamArn: aws.String(r.arn), ShardId: aws.String(id), ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
			if err != nil {
				return nil, fmt.Errorf("GetShardIterator %s: %w", id, err)
			}
			it = out.ShardIterator
		}
		for it != nil {
			out, err := r.sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
			r.Calls++
			if err != nil {
				return nil, fmt.Errorf("GetRecords %s: %w", id, err)
			}
			recs = append(recs, out.Records...)
			it = out.NextShardIterator
			if len(out.Records) == 0 {
				break // caught up with an open shard (or a closed one ended)
			}
		}
		r.iters[id] = it
	}
	return recs, nil
}

// SStr is the string value of a stream image attribute ("" if absent).
func SStr(img map[string]st.AttributeValue, name string) string {
	if s, ok := img[name].(*st.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// SMap is a map attribute of a stream image (nil if absent).
func SMap(img map[string]st.AttributeValue, name string) map[string]st.AttributeValue {
	if m, ok := img[name].(*st.AttributeValueMemberM); ok {
		return m.Value
	}
	return nil
}
