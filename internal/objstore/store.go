package objstore

import (
	"context"
	"errors"
	"io"
)

// Store holds objects by bucket and key.
type Store interface {
	// Create starts writing the object; it exists, whole, once the writer
	// is closed without error (an object is never seen half written).
	Create(ctx context.Context, bucket, key string) (Writer, error)
	// Open reads an object (an error wrapping fs.ErrNotExist when there is
	// none).
	Open(ctx context.Context, bucket, key string) (io.ReadCloser, error)
	// List is every object of bucket whose key starts with prefix, in key
	// order.
	List(ctx context.Context, bucket, prefix string) ([]Object, error)
}

// Writer is an object being written.
type Writer interface {
	Write(p []byte) (int, error)
	// Close makes the object exist, whole; after an error it does not.
	Close() error
	// Abort discards what was written (nothing exists afterwards); it is
	// for a writer that will not be closed.
	Abort()
	// ETag is the object's entity tag as S3 gives it (hex MD5 of a
	// single-part object, without quotes), once Close succeeded.
	ETag() string
}

// Object is one listed object.
type Object struct {
	Key  string
	Size int64
}

// ErrNoSuchBucket is a bucket that does not exist.
var ErrNoSuchBucket = errors.New("The specified bucket does not exist")

// ErrAccessDenied is a bucket or object Kura may not read or write.
var ErrAccessDenied = errors.New("Access Denied")

// ErrInvalidKey is a bucket name or key Store does not accept.
var ErrInvalidKey = errors.New("invalid bucket name or object key")
