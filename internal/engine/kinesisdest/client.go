package kinesisdest

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
)

// sdkClient is Client over the AWS SDK's Kinesis client.
type sdkClient struct{ c *kinesis.Client }

// NewClient is the Kinesis Data Streams service at endpoint (Amazon's,
// https://kinesis.REGION.amazonaws.com, or a compatible one), with the AWS
// SDK's credential chain and region (AWS_REGION, else region). It does not
// contact the service. The SDK retries a call a few times; the forwarder
// retries the rest with its own backoff.
func NewClient(ctx context.Context, endpoint, region string) (Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.RateLimiter = ratelimit.None // the forwarder backs off itself
		})
	}))
	if err != nil {
		return nil, fmt.Errorf("kinesisdest: the AWS SDK's configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = region
	}
	return sdkClient{kinesis.NewFromConfig(cfg, func(o *kinesis.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	})}, nil
}

// PutRecords puts by stream name: the name is in the destination's ARN,
// and every Kinesis-compatible server knows streams by name.
func (s sdkClient) PutRecords(ctx context.Context, stream string, entries []Entry) ([]bool, error) {
	in := &kinesis.PutRecordsInput{StreamName: aws.String(stream), Records: make([]types.PutRecordsRequestEntry, len(entries))}
	for i, e := range entries {
		in.Records[i] = types.PutRecordsRequestEntry{PartitionKey: aws.String(e.PartitionKey), Data: e.Data}
	}
	out, err := s.c.PutRecords(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(out.Records) != len(entries) {
		return nil, fmt.Errorf("kinesisdest: PutRecords answered %d records for %d", len(out.Records), len(entries))
	}
	taken := make([]bool, len(entries))
	for i, r := range out.Records {
		taken[i] = r.ErrorCode == nil && r.SequenceNumber != nil
	}
	return taken, nil
}

// StreamARN describes the stream (its summary) for its ARN.
func (s sdkClient) StreamARN(ctx context.Context, stream string) (string, bool, error) {
	out, err := s.c.DescribeStreamSummary(ctx, &kinesis.DescribeStreamSummaryInput{StreamName: aws.String(stream)})
	var nf *types.ResourceNotFoundException
	switch {
	case errors.As(err, &nf):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	return aws.ToString(out.StreamDescriptionSummary.StreamARN), true, nil
}
