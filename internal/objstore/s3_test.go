package objstore_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
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

// S3's refusals are ErrAccessDenied: a key that may only read, writing; a
// key S3 does not know.
func TestS3AccessDenied(t *testing.T) {
	ep := objstoretest.Endpoint(t)
	admin, err := objstore.NewS3(t.Context(), objstore.S3Config{Endpoint: ep, PathStyle: true, Region: "us-east-1", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	bucket := objstoretest.BucketName()
	if _, err := admin.Client().CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	for _, key := range [][2]string{{objstoretest.ReaderKey, objstoretest.ReaderSecret}, {"nobody", "nothing"}} {
		t.Setenv("AWS_ACCESS_KEY_ID", key[0])
		t.Setenv("AWS_SECRET_ACCESS_KEY", key[1])
		s, err := objstore.NewS3(t.Context(), objstore.S3Config{Endpoint: ep, PathStyle: true, Region: "us-east-1", MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.Create(t.Context(), bucket, "k")
		if err == nil {
			w.Write([]byte("x"))
			err = w.Close()
		}
		var se *objstore.Error
		if !errors.Is(err, objstore.ErrAccessDenied) || !errors.As(err, &se) || se.Status != 403 {
			t.Errorf("%s writing: %v", key[0], err)
		} else {
			t.Logf("%s writing: %s", key[0], se.Describe())
		}
	}
}

// An object's body whose reading breaks off is read on from where it
// stopped: the first GetObject's body is cut after 1000 bytes.
func TestS3ResumesBrokenRead(t *testing.T) {
	ep := objstoretest.Endpoint(t)
	cut := &cutBodies{next: awshttp.NewBuildableClient()}
	s, err := objstore.NewS3(t.Context(), objstore.S3Config{Endpoint: ep, PathStyle: true, Region: "us-east-1", HTTPClient: cut})
	if err != nil {
		t.Fatal(err)
	}
	bucket := objstoretest.BucketName()
	if _, err := s.Client().CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("0123456789abcdef"), 10000)
	w, _ := s.Create(t.Context(), bucket, "big")
	w.Write(body)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cut.armed.Store(true)
	r, err := s.Open(t.Context(), bucket, "big")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read %d of %d bytes: %v", len(got), len(body), err)
	}
	if cut.cuts.Load() != 1 {
		t.Fatalf("%d bodies cut", cut.cuts.Load())
	}
}

// cutBodies cuts the body of the next successful GET once armed.
type cutBodies struct {
	next  s3.HTTPClient
	armed atomic.Bool
	cuts  atomic.Int32
}

func (c *cutBodies) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(req)
	if err == nil && req.Method == http.MethodGet && resp.StatusCode == http.StatusOK && c.armed.CompareAndSwap(true, false) {
		c.cuts.Add(1)
		resp.Body = &cutBody{ReadCloser: resp.Body, left: 1000}
	}
	return resp, err
}

type cutBody struct {
	io.ReadCloser
	left int
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n, err := b.ReadCloser.Read(p[:min(len(p), b.left)])
	b.left -= n
	return n, err
}
