package engine

import (
	"context"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/engine/kinesisdest"
	"github.com/kura-db/kura/internal/wire"
)

// kinStreams is a Kinesis with one stream that takes every record.
type kinStreams struct{ arn string }

func (k kinStreams) PutRecords(_ context.Context, _ string, es []kinesisdest.Entry) ([]bool, error) {
	taken := make([]bool, len(es))
	for i := range taken {
		taken[i] = true
	}
	return taken, nil
}

func (k kinStreams) StreamARN(context.Context, string) (string, bool, error) { return k.arn, true, nil }

// TestKinesisDestinationWhileDeleting: while the table is DELETING its
// destination is still described, as it was (DynamoDB's answer,
// ack-api-quirks DDB-TABLE-236); once the table is gone it is not found.
func TestKinesisDestinationWhileDeleting(t *testing.T) {
	ctx := context.Background()
	const arn = "arn:aws:kinesis:us-east-1:000000000000:stream/s1"
	clk := &ctlClock{}
	e := ctlOpen(t, Config{Clock: clk, DeleteDelay: 5 * time.Second, Kinesis: kinStreams{arn}})
	if _, err := e.CreateTable(ctx, ctlPPR("tbl")); err != nil {
		t.Fatal(err)
	}
	tn := cpPtr("tbl")
	if _, err := e.EnableKinesisStreamingDestination(ctx, &wire.EnableKinesisStreamingDestinationInput{TableName: tn, StreamArn: cpPtr(arn)}); err != nil {
		t.Fatal(err)
	}
	clk.advance(2 * time.Second)
	describe := func() string {
		t.Helper()
		out, err := e.DescribeKinesisStreamingDestination(ctx, &wire.DescribeKinesisStreamingDestinationInput{TableName: tn})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.KinesisDataStreamDestinations) != 1 {
			t.Fatalf("destinations %+v, want one", out.KinesisDataStreamDestinations)
		}
		return out.KinesisDataStreamDestinations[0].DestinationStatus
	}
	for deadline := time.Now().Add(5 * time.Second); describe() != "ACTIVE"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("destination never ACTIVE")
		}
	}
	if _, err := e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: tn}); err != nil {
		t.Fatal(err)
	}
	if got := describe(); got != "ACTIVE" {
		t.Fatalf("while DELETING the destination is %s, want ACTIVE", got)
	}
	clk.advance(5 * time.Second)
	_, err := e.DescribeKinesisStreamingDestination(ctx, &wire.DescribeKinesisStreamingDestinationInput{TableName: tn})
	ctlWantErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: tbl not found")
}
