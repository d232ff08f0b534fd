package objstore_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/objstore/objstoretest"
)

// The S3 store against a real S3-compatible server (SeaweedFS in CI).
func TestS3Conformance(t *testing.T) {
	ep := objstoretest.Endpoint(t)
	s, err := objstore.NewS3(t.Context(), objstore.S3Config{Endpoint: ep, PathStyle: true, Region: "us-east-1", PartSize: 5 << 20, MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	objstoretest.Run(t, objstoretest.Harness{
		Store: s,
		NewBucket: func(t *testing.T) string {
			name := objstoretest.BucketName()
			if _, err := s.Client().CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
				t.Fatal(err)
			}
			return name
		},
		Large: 11<<20 + 123, // three parts of 5 MiB
	})
}
