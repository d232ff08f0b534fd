package objstore

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Dir is a Store in a local folder: object key K of bucket B is the file
// Root/B/K. A bucket is a folder that must exist already, as an S3 bucket
// must be created before anything is written to it.
type Dir struct{ Root string }

// bucketName is S3's rule for bucket names: 3 to 63 lowercase letters,
// digits, dots and hyphens, starting and ending with a letter or digit.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// tempPrefix starts the name of the temporary file of an object being
// written; such files are not objects.
const tempPrefix = ".kura-"

// path is the file of bucket/key, refused when the key would step out of
// the bucket's folder or name nothing.
func (d Dir) path(bucket, key string) (string, error) {
	if !bucketName.MatchString(bucket) || key == "" || strings.HasPrefix(key, "/") {
		return "", fmt.Errorf("%w: %q %q", ErrInvalidKey, bucket, key)
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." || strings.HasPrefix(part, tempPrefix) {
			return "", fmt.Errorf("%w: %q %q", ErrInvalidKey, bucket, key)
		}
	}
	dir, err := d.bucketDir(bucket)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(key)), nil
}

// File is the file of object key in bucket (which must exist), or
// ErrInvalidKey for a name Dir cannot hold, ErrNoSuchBucket: the S3 API
// on Kura's endpoint (internal/s3api) reads and writes the same files.
func (d Dir) File(bucket, key string) (string, error) { return d.path(bucket, key) }

// BucketDir is the folder of an existing bucket (ErrNoSuchBucket,
// ErrInvalidKey for a name that is not a bucket's).
func (d Dir) BucketDir(bucket string) (string, error) { return d.bucketDir(bucket) }

// ValidBucket reports whether name is a bucket name Dir accepts.
func ValidBucket(name string) bool { return bucketName.MatchString(name) }

// bucketDir is the folder of an existing bucket.
func (d Dir) bucketDir(bucket string) (string, error) {
	if !bucketName.MatchString(bucket) {
		return "", fmt.Errorf("%w: %q", ErrInvalidKey, bucket)
	}
	dir := filepath.Join(d.Root, bucket)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "", fmt.Errorf("%w: %v", ErrAccessDenied, err)
	case err != nil || !st.IsDir():
		return "", ErrNoSuchBucket
	}
	return dir, nil
}

// fsErr is err with ErrAccessDenied added when it is a permission error.
func fsErr(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w: %w", ErrAccessDenied, err)
	}
	return err
}

// Create writes the object to a temporary file beside it and renames it
// into place when closed.
func (d Dir) Create(_ context.Context, bucket, key string) (Writer, error) {
	p, err := d.path(bucket, key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fsErr(err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), tempPrefix+"*")
	if err != nil {
		return nil, fsErr(err)
	}
	return &dirObject{f: f, path: p, sum: md5.New()}, nil
}

// Open reads the object.
func (d Dir) Open(_ context.Context, bucket, key string) (io.ReadCloser, error) {
	p, err := d.path(bucket, key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err == nil {
		if st, serr := f.Stat(); serr == nil && st.IsDir() { // a "folder" of keys is not an object
			f.Close()
			err = fs.ErrNotExist
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no object %s/%s: %w", bucket, key, fs.ErrNotExist)
	}
	return f, fsErr(err)
}

// List walks the bucket's folder; temporary files of objects being
// written are not objects yet.
func (d Dir) List(_ context.Context, bucket, prefix string) ([]Object, error) {
	dir, err := d.bucketDir(bucket)
	if err != nil {
		return nil, err
	}
	var out []Object
	err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasPrefix(e.Name(), tempPrefix) {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		out = append(out, Object{Key: key, Size: info.Size()})
		return nil
	})
	slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	return out, fsErr(err)
}

type dirObject struct {
	f    *os.File
	path string
	sum  hash.Hash
	etag string
}

func (o *dirObject) Write(b []byte) (int, error) {
	o.sum.Write(b)
	return o.f.Write(b)
}

// Close syncs the file and renames it into place; on any error the
// temporary file is removed.
func (o *dirObject) Close() error {
	err := o.f.Sync()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.f.Name(), o.path)
	}
	if err != nil {
		os.Remove(o.f.Name())
		return fsErr(err)
	}
	o.etag = hex.EncodeToString(o.sum.Sum(nil))
	return nil
}

// Abort removes the temporary file.
func (o *dirObject) Abort() {
	o.f.Close()
	os.Remove(o.f.Name())
}

func (o *dirObject) ETag() string { return o.etag }
