package jobs

import (
	"context"
	"errors"
	"io"

	"github.com/kura-db/kura/internal/objstore"
)

// ErrStopped is background work a Close interrupted (it runs again at the
// next start).
var ErrStopped = errors.New("stopped by Close")

// Context is the context of a background job's S3 requests: cancelled
// when closing is closed (the engine closes; the job runs again at the
// next start) or when cancel is called.
func Context(closing <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Failure is the FailureCode and FailureMessage of a job that could not
// read or write its S3 objects: S3's error code with "S3" before it, and
// S3's text with where it came from, as DynamoDB reports them (its
// developer guide's S3NoSuchBucket example; moto's AWS-verified
// test_import_from_missing_s3_table).
func Failure(err error) (code, msg string) {
	msg = err.Error()
	var se *objstore.Error
	if errors.As(err, &se) {
		msg = se.Describe()
	}
	switch {
	case errors.Is(err, objstore.ErrNoSuchBucket):
		code = "S3NoSuchBucket"
		if se == nil {
			msg = objstore.ErrNoSuchBucket.Error()
		}
	case errors.Is(err, objstore.ErrAccessDenied):
		code = "S3AccessDenied"
		if se == nil {
			msg = objstore.ErrAccessDenied.Error()
		}
	case errors.Is(err, objstore.ErrInvalidKey):
		code = "S3InvalidKey"
	default:
		code = "UNKNOWN"
	}
	return code, msg
}

// PutObject writes one whole object.
func PutObject(ctx context.Context, objects objstore.Store, bucket, key string, body []byte) error {
	w, err := objects.Create(ctx, bucket, key)
	if err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// CountingReader counts the bytes read through it (a job's processed
// size).
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
