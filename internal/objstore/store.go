package objstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Store holds objects by bucket and key.
type Store interface {
	// Create starts writing the object; it exists, whole, once the writer
	// is closed without error (an object is never seen half written).
	Create(bucket, key string) (io.WriteCloser, error)
	// Open reads an object.
	Open(bucket, key string) (io.ReadCloser, error)
	// List is every object of bucket whose key starts with prefix, in key
	// order.
	List(bucket, prefix string) ([]Object, error)
}

// Object is one listed object.
type Object struct {
	Key  string
	Size int64
}

// ErrNoSuchBucket is a bucket that does not exist.
var ErrNoSuchBucket = errors.New("the specified bucket does not exist")

// ErrInvalidKey is a bucket name or key Store does not accept.
var ErrInvalidKey = errors.New("invalid bucket name or object key")

// Dir is a Store in a local folder: object key K of bucket B is the file
// Root/B/K. A bucket is a folder that must exist already, as an S3 bucket
// must be created before anything is written to it.
type Dir struct{ Root string }

// bucketName is S3's rule for bucket names: 3 to 63 lowercase letters,
// digits, dots and hyphens, starting and ending with a letter or digit.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// path is the file of bucket/key, refused when the key would step out of
// the bucket's folder or name nothing.
func (d Dir) path(bucket, key string) (string, error) {
	if !bucketName.MatchString(bucket) || key == "" || strings.HasPrefix(key, "/") {
		return "", fmt.Errorf("%w: %q %q", ErrInvalidKey, bucket, key)
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return "", fmt.Errorf("%w: %q %q", ErrInvalidKey, bucket, key)
		}
	}
	dir := filepath.Join(d.Root, bucket)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", ErrNoSuchBucket
	}
	return filepath.Join(dir, filepath.FromSlash(key)), nil
}

// Create writes the object to a temporary file beside it and renames it
// into place when closed.
func (d Dir) Create(bucket, key string) (io.WriteCloser, error) {
	p, err := d.path(bucket, key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".kura-*")
	if err != nil {
		return nil, err
	}
	return &dirObject{f: f, path: p}, nil
}

// Open reads the object (fs.ErrNotExist when there is none).
func (d Dir) Open(bucket, key string) (io.ReadCloser, error) {
	p, err := d.path(bucket, key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no object %s/%s: %w", bucket, key, fs.ErrNotExist)
	}
	return f, err
}

// List walks the bucket's folder; temporary files of objects being
// written are not objects yet.
func (d Dir) List(bucket, prefix string) ([]Object, error) {
	if !bucketName.MatchString(bucket) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidKey, bucket)
	}
	dir := filepath.Join(d.Root, bucket)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, ErrNoSuchBucket
	}
	var out []Object
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasPrefix(e.Name(), ".kura-") {
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
	return out, err
}

type dirObject struct {
	f    *os.File
	path string
}

func (o *dirObject) Write(b []byte) (int, error) { return o.f.Write(b) }

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
	}
	return err
}
