package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// S3Config says which S3 an S3 store talks to.
type S3Config struct {
	// Endpoint is the service's URL ("": Amazon S3's, by region).
	Endpoint string
	// PathStyle addresses buckets as Endpoint/bucket/key rather than as
	// bucket.host/key (what most S3-compatible servers need).
	PathStyle bool
	// Region is the region the requests are signed for when the SDK's
	// configuration (AWS_REGION, ~/.aws/config) names none.
	Region string
	// PartSize is the size of a multipart upload's parts (0: 8 MiB; S3
	// takes no part under 5 MiB but the last). An object smaller than one
	// part is written by a single PutObject.
	PartSize int
	// MaxAttempts is how many times a request is sent before its error is
	// final (0: 8), backing off exponentially with jitter between them up
	// to 20 s; an object's body whose reading breaks off is asked for again
	// from where it stopped as many times.
	MaxAttempts int
	// HTTPClient sends the requests (nil: the SDK's).
	HTTPClient s3.HTTPClient
}

// Default S3Config values.
const (
	defaultPartSize    = 8 << 20
	defaultMaxAttempts = 8
	minPartSize        = 5 << 20
)

// S3 is a Store in Amazon S3 or an S3-compatible service, reached through
// the AWS SDK for Go v2 with its usual credential chain (environment,
// shared files, SSO, web identity, container and instance roles).
type S3 struct {
	client   *s3.Client
	partSize int
	attempts int
}

// NewS3 is an S3 store as c says. It does not contact the service.
func NewS3(ctx context.Context, c S3Config) (*S3, error) {
	attempts := c.MaxAttempts
	if attempts <= 0 {
		attempts = defaultMaxAttempts
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			// A long export meets more faults than the token bucket's
			// quota allows; each request backs off on its own instead.
			o.RateLimiter = ratelimit.None
		})
	}))
	if err != nil {
		return nil, fmt.Errorf("objstore: the AWS SDK's configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = c.Region
	}
	part := c.PartSize
	if part <= 0 {
		part = defaultPartSize
	}
	part = max(part, minPartSize)
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
		o.UsePathStyle = c.PathStyle
		// Objects S3-compatible servers hold often carry no checksum: not
		// worth a line in Kura's log for every read.
		o.DisableLogOutputChecksumValidationSkipped = true
		if c.HTTPClient != nil {
			o.HTTPClient = c.HTTPClient
		}
	})
	return &S3{client: client, partSize: part, attempts: attempts}, nil
}

// Client is the SDK client the store uses (for tests and tools that set
// buckets up).
func (s *S3) Client() *s3.Client { return s.client }

// Error is a failure S3 answered: its code, text, status and request IDs,
// with the package's error it stands for (Kind: ErrNoSuchBucket,
// ErrAccessDenied, ErrInvalidKey, fs.ErrNotExist, or nil) wrapped in.
type Error struct {
	Kind                  error
	Code, Message         string
	Status                int
	RequestID, ExtendedID string
	Err                   error // the SDK's
}

func (e *Error) Error() string   { return e.Err.Error() }
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// Describe is the failure as DynamoDB words an export's or import's
// FailureMessage: S3's text, then where it came from in the form of the
// AWS SDK for Java (its developer guide's S3NoSuchBucket example: "The
// specified bucket does not exist (Service: Amazon S3; Status Code: 404;
// Error Code: NoSuchBucket; Request ID: ...; S3 Extended Request ID: ...;
// Proxy: null)").
func (e *Error) Describe() string {
	return fmt.Sprintf("%s (Service: Amazon S3; Status Code: %d; Error Code: %s; Request ID: %s; S3 Extended Request ID: %s; Proxy: null)",
		e.Message, e.Status, e.Code, cmpOr(e.RequestID, "null"), cmpOr(e.ExtendedID, "null"))
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// s3Err is err as an *Error when S3 answered it.
func s3Err(err error) error {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return err
	}
	e := &Error{Code: ae.ErrorCode(), Message: ae.ErrorMessage(), Err: err}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		e.Status = re.HTTPStatusCode()
	}
	var rid interface{ ServiceRequestID() string }
	if errors.As(err, &rid) {
		e.RequestID = rid.ServiceRequestID()
	}
	var hid interface{ ServiceHostID() string }
	if errors.As(err, &hid) {
		e.ExtendedID = hid.ServiceHostID()
	}
	switch e.Code {
	case "NoSuchBucket":
		e.Kind = ErrNoSuchBucket
	case "NoSuchKey", "NotFound":
		e.Kind = fs.ErrNotExist
	case "AccessDenied", "AllAccessDisabled", "InvalidAccessKeyId", "SignatureDoesNotMatch", "Forbidden":
		e.Kind = ErrAccessDenied
	case "InvalidBucketName", "KeyTooLongError":
		e.Kind = ErrInvalidKey
	default:
		if e.Status == http.StatusForbidden {
			e.Kind = ErrAccessDenied
		}
	}
	if e.Message == "" { // HEAD answers carry no body
		e.Message = http.StatusText(e.Status)
		if e.Kind != nil {
			e.Message = e.Kind.Error()
		}
	}
	return e
}

// checkName refuses what Dir refuses of every store: a bucket name S3's
// rules do not allow, an empty key.
func checkName(bucket, key string) error {
	if !bucketName.MatchString(bucket) || key == "" {
		return fmt.Errorf("%w: %q %q", ErrInvalidKey, bucket, key)
	}
	return nil
}

// Create buffers the object a part at a time: one PutObject when it ends
// within the first part, a multipart upload otherwise.
func (s *S3) Create(ctx context.Context, bucket, key string) (Writer, error) {
	if err := checkName(bucket, key); err != nil {
		return nil, err
	}
	return &s3Object{s: s, ctx: ctx, bucket: bucket, key: key, buf: make([]byte, 0, min(s.partSize, 64<<10))}, nil
}

// Open reads the object.
func (s *S3) Open(ctx context.Context, bucket, key string) (io.ReadCloser, error) {
	if err := checkName(bucket, key); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return nil, s3Err(err)
	}
	return &s3Reader{s: s, ctx: ctx, bucket: bucket, key: key, etag: out.ETag, body: out.Body}, nil
}

// s3Reader reads an object's body; when the reading breaks off (a dropped
// connection), it asks for the rest (Range, and If-Match its ETag, so
// that a replaced object is an error rather than a mix of two), backing
// off between attempts.
type s3Reader struct {
	s           *S3
	ctx         context.Context
	bucket, key string
	etag        *string
	body        io.ReadCloser
	off         int64
	resumed     int
	err         error // a failure to read again: every later Read returns it
}

func (r *s3Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.body.Read(p)
	r.off += int64(n)
	if err == nil || err == io.EOF || r.ctx.Err() != nil || r.resumed+1 >= r.s.attempts {
		return n, err
	}
	r.body.Close()
	r.resumed++
	if rerr := r.reopen(); rerr != nil {
		r.err = fmt.Errorf("objstore: reading %s/%s again from byte %d after %v: %w", r.bucket, r.key, r.off, err, rerr)
		return n, r.err
	}
	return n, nil
}

// reopen asks for the object from r.off on, after a backoff.
func (r *s3Reader) reopen() error {
	delay := min(time.Duration(1<<min(r.resumed, 5))*100*time.Millisecond, 20*time.Second)
	select {
	case <-time.After(delay/2 + time.Duration(rand.Int64N(int64(delay/2)+1))):
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
	out, err := r.s.client.GetObject(r.ctx, &s3.GetObjectInput{Bucket: &r.bucket, Key: &r.key, IfMatch: r.etag,
		Range: aws.String(fmt.Sprintf("bytes=%d-", r.off))})
	if err != nil {
		r.body = io.NopCloser(strings.NewReader(""))
		return s3Err(err)
	}
	r.body = out.Body
	return nil
}

func (r *s3Reader) Close() error { return r.body.Close() }

// List pages through ListObjectsV2 (which lists in key order).
func (s *S3) List(ctx context.Context, bucket, prefix string) ([]Object, error) {
	if err := checkName(bucket, "-"); err != nil {
		return nil, err
	}
	var out []Object
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s3Err(err)
		}
		for _, o := range page.Contents {
			out = append(out, Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size)})
		}
	}
	return out, nil
}

// s3Object is an object being written: buf is the part being filled;
// uploadID and parts are the multipart upload once the first part is
// full.
type s3Object struct {
	s           *S3
	ctx         context.Context
	bucket, key string
	buf         []byte
	uploadID    *string
	parts       []types.CompletedPart
	etag        string
	err         error // the first failure: every later call returns it
}

func (o *s3Object) Write(b []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n := len(b)
	for len(b) > 0 {
		room := o.s.partSize - len(o.buf)
		take := min(room, len(b))
		o.buf = append(o.buf, b[:take]...)
		b = b[take:]
		if len(o.buf) == o.s.partSize {
			if o.err = o.uploadPart(); o.err != nil {
				o.Abort()
				return 0, o.err
			}
		}
	}
	return n, nil
}

// uploadPart sends buf as the next part, starting the multipart upload
// when it is the first.
func (o *s3Object) uploadPart() error {
	if o.uploadID == nil {
		out, err := o.s.client.CreateMultipartUpload(o.ctx, &s3.CreateMultipartUploadInput{Bucket: &o.bucket, Key: &o.key})
		if err != nil {
			return s3Err(err)
		}
		o.uploadID = out.UploadId
	}
	n := int32(len(o.parts) + 1)
	out, err := o.s.client.UploadPart(o.ctx, &s3.UploadPartInput{Bucket: &o.bucket, Key: &o.key, UploadId: o.uploadID,
		PartNumber: &n, Body: bytes.NewReader(o.buf), ContentLength: aws.Int64(int64(len(o.buf)))})
	if err != nil {
		return s3Err(err)
	}
	o.parts = append(o.parts, types.CompletedPart{PartNumber: &n, ETag: out.ETag,
		ChecksumCRC32: out.ChecksumCRC32, ChecksumCRC32C: out.ChecksumCRC32C, ChecksumCRC64NVME: out.ChecksumCRC64NVME,
		ChecksumSHA1: out.ChecksumSHA1, ChecksumSHA256: out.ChecksumSHA256})
	o.buf = o.buf[:0]
	return nil
}

// Close writes the object: one PutObject, or the multipart upload's last
// part and its completion.
func (o *s3Object) Close() error {
	if o.err != nil {
		return o.err
	}
	o.err = o.finish()
	if o.err != nil {
		o.Abort()
		return o.err
	}
	o.err = errors.New("objstore: the object is closed")
	return nil
}

func (o *s3Object) finish() error {
	if o.uploadID == nil {
		out, err := o.s.client.PutObject(o.ctx, &s3.PutObjectInput{Bucket: &o.bucket, Key: &o.key,
			Body: bytes.NewReader(o.buf), ContentLength: aws.Int64(int64(len(o.buf)))})
		if err != nil {
			return s3Err(err)
		}
		o.etag = strings.Trim(aws.ToString(out.ETag), `"`)
		return nil
	}
	if len(o.buf) > 0 {
		if err := o.uploadPart(); err != nil {
			return err
		}
	}
	out, err := o.s.client.CompleteMultipartUpload(o.ctx, &s3.CompleteMultipartUploadInput{Bucket: &o.bucket, Key: &o.key,
		UploadId: o.uploadID, MultipartUpload: &types.CompletedMultipartUpload{Parts: o.parts}})
	if err != nil {
		return s3Err(err)
	}
	o.uploadID = nil // complete: nothing to abort
	o.etag = strings.Trim(aws.ToString(out.ETag), `"`)
	return nil
}

// Abort ends the multipart upload, if there is one, so that its parts are
// not kept (best effort: a bucket's lifecycle rule removes what is left).
func (o *s3Object) Abort() {
	if o.err == nil {
		o.err = errors.New("objstore: the object was aborted")
	}
	o.buf = nil
	if o.uploadID == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(o.ctx), 30*time.Second)
	defer cancel()
	_, _ = o.s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &o.bucket, Key: &o.key, UploadId: o.uploadID})
	o.uploadID = nil
}

func (o *s3Object) ETag() string { return o.etag }
