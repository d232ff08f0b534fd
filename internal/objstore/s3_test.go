package objstore_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
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

// A request S3 refuses for a passing reason (503 SlowDown) is sent again,
// after a backoff: the first two PUTs are answered 503 before they reach
// the server, and the write still succeeds.
func TestS3RetriesSlowDown(t *testing.T) {
	ep := objstoretest.Endpoint(t)
	slow := &slowDown{next: awshttp.NewBuildableClient()}
	s, err := objstore.NewS3(t.Context(), objstore.S3Config{Endpoint: ep, PathStyle: true, Region: "us-east-1", HTTPClient: slow})
	if err != nil {
		t.Fatal(err)
	}
	bucket := objstoretest.BucketName()
	if _, err := s.Client().CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	slow.left.Store(2)
	w, _ := s.Create(t.Context(), bucket, "k")
	w.Write([]byte("hello"))
	if err := w.Close(); err != nil {
		t.Fatalf("a write S3 slowed down twice: %v", err)
	}
	if slow.left.Load() != 0 {
		t.Fatalf("%d refusals left", slow.left.Load())
	}
	r, err := s.Open(t.Context(), bucket, "k")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if b, _ := io.ReadAll(r); string(b) != "hello" {
		t.Fatalf("read %q", b)
	}
}

// slowDown answers the next left PUTs with S3's 503 SlowDown.
type slowDown struct {
	next s3.HTTPClient
	left atomic.Int32
}

func (c *slowDown) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && c.take() {
		if req.Body != nil {
			io.Copy(io.Discard, req.Body)
			req.Body.Close()
		}
		body := `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>R</RequestId></Error>`
		return &http.Response{StatusCode: http.StatusServiceUnavailable, Status: "503 Slow Down", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"application/xml"}}, Body: io.NopCloser(strings.NewReader(body)),
			ContentLength: int64(len(body)), Request: req}, nil
	}
	return c.next.Do(req)
}

// take uses up one refusal, if one is left.
func (c *slowDown) take() bool {
	for {
		n := c.left.Load()
		if n <= 0 {
			return false
		}
		if c.left.CompareAndSwap(n, n-1) {
			return true
		}
	}
}
