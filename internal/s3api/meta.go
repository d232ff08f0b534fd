package s3api

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/objstore"
)

// An object is its file, Root/BUCKET/KEY (objstore.Dir's, so exports,
// imports and bulk operations see the same objects), and a sidecar of
// what S3 keeps beside the bytes: ETag, Content-Type and the other
// content headers, x-amz-meta-* and checksums, at
// Root/.kura-s3/meta/BUCKET/KEY.meta (".kura-s3" is no bucket name, so no
// bucket holds it). A file without a sidecar (an export's), or whose
// sidecar was written for other bytes (a file replaced outside the S3
// API: the size and modification time differ), gets one computed from the
// file when first asked for.

// stateDir is the folder of the S3 API's own state under Root.
const stateDir = ".kura-s3"

// meta is an object's sidecar.
type meta struct {
	ETag      string            `json:"etag"` // without quotes
	Size      int64             `json:"size"`
	ModNano   int64             `json:"mod"`                 // the file's modification time it was written for
	Headers   map[string]string `json:"headers,omitempty"`   // Content-Type, Cache-Control ... as received
	User      map[string]string `json:"user,omitempty"`      // x-amz-meta-NAME (lower case) → value
	Checksums map[string]string `json:"checksums,omitempty"` // crc32 ... → base64
}

// contentHeaders are the headers S3 stores with an object and answers on
// GET and HEAD.
var contentHeaders = []string{"Content-Type", "Content-Encoding", "Content-Disposition", "Content-Language", "Cache-Control", "Expires"}

// defaultContentType is S3's type of an object stored without one.
const defaultContentType = "binary/octet-stream"

// object is an existing object: its file's path and facts, and its sidecar.
type object struct {
	path string
	size int64
	mod  time.Time
	meta meta
}

func (h *Handler) metaPath(bucket, key string) string {
	return filepath.Join(h.store.Root, stateDir, "meta", bucket, filepath.FromSlash(key)+".meta")
}

// file is the path of bucket/key, or S3's error for a bucket that does
// not exist or a key the folder cannot hold.
func (h *Handler) file(bucket, key string) (string, *Error) {
	p, err := h.store.File(bucket, key)
	switch {
	case errors.Is(err, objstore.ErrNoSuchBucket):
		return "", errNoSuchBucket(bucket)
	case errors.Is(err, objstore.ErrInvalidKey) && !objstore.ValidBucket(bucket):
		return "", errNoSuchBucket(bucket) // no such bucket can exist
	case errors.Is(err, objstore.ErrInvalidKey):
		return "", errUnstorable(key)
	case err != nil:
		return "", h.internal(err)
	}
	return p, nil
}

// lookup finds an existing object.
func (h *Handler) lookup(bucket, key string) (*object, *Error) {
	p, e := h.file(bucket, key)
	if e != nil {
		if e.Code == "InvalidArgument" {
			return nil, errNoSuchKey(key) // it cannot have been stored
		}
		return nil, e
	}
	st, err := os.Stat(p)
	if err != nil || st.IsDir() {
		return nil, errNoSuchKey(key)
	}
	o := &object{path: p, size: st.Size(), mod: st.ModTime()}
	if b, err := os.ReadFile(h.metaPath(bucket, key)); err == nil && json.Unmarshal(b, &o.meta) == nil &&
		o.meta.Size == o.size && o.meta.ModNano == o.mod.UnixNano() {
		return o, nil
	}
	etag, err := fileMD5(p)
	if err != nil {
		return nil, errNoSuchKey(key)
	}
	o.meta = meta{ETag: etag}
	h.saveMeta(bucket, key, o)
	return o, nil
}

func fileMD5(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum := md5.New()
	if _, err := io.Copy(sum, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// saveMeta writes o's sidecar for its file as it is now (a failure only
// costs recomputing the ETag later, and loses the headers: logged).
func (h *Handler) saveMeta(bucket, key string, o *object) {
	if st, err := os.Stat(o.path); err == nil {
		o.size, o.mod = st.Size(), st.ModTime()
	}
	o.meta.Size, o.meta.ModNano = o.size, o.mod.UnixNano()
	b, _ := json.Marshal(o.meta)
	p := h.metaPath(bucket, key)
	err := os.MkdirAll(filepath.Dir(p), 0o755)
	if err == nil {
		err = writeFileAtomic(p, b)
	}
	if err != nil {
		h.log.Warn("s3: writing an object's metadata", "bucket", bucket, "key", key, "err", err)
	}
}

// writeFileAtomic writes a small file through a temporary one renamed into
// place.
func writeFileAtomic(p string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".kura-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// removeObject deletes an object's file and sidecar, and the folders they
// leave empty (S3 has no folders: a "folder" goes with its last key).
func (h *Handler) removeObject(bucket, key string) error {
	p, e := h.file(bucket, key)
	if e != nil {
		return nil
	}
	err := os.Remove(p)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	os.Remove(h.metaPath(bucket, key))
	bucketDir, _ := h.store.BucketDir(bucket)
	pruneEmpty(filepath.Dir(p), bucketDir)
	pruneEmpty(filepath.Dir(h.metaPath(bucket, key)), filepath.Join(h.store.Root, stateDir, "meta", bucket))
	return err
}

// pruneEmpty removes dir and its parents while they are empty, up to (not
// including) top.
func pruneEmpty(dir, top string) {
	for top != "" && dir != top && strings.HasPrefix(dir, top+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// metaFromRequest is the sidecar a PUT (or CreateMultipartUpload) asks
// for: its content headers and x-amz-meta-* headers.
func metaFromRequest(r *http.Request) meta {
	m := meta{Headers: map[string]string{}}
	for _, name := range contentHeaders {
		if v := r.Header.Get(name); v != "" {
			m.Headers[name] = v
		}
	}
	if enc := m.Headers["Content-Encoding"]; enc != "" {
		// aws-chunked is how the body was sent, not what it is.
		var kept []string
		for _, e := range strings.Split(enc, ",") {
			if e = strings.TrimSpace(e); e != "" && !strings.EqualFold(e, "aws-chunked") {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			delete(m.Headers, "Content-Encoding")
		} else {
			m.Headers["Content-Encoding"] = strings.Join(kept, ",")
		}
	}
	for name, vals := range r.Header {
		if n, ok := strings.CutPrefix(strings.ToLower(name), "x-amz-meta-"); ok && len(vals) > 0 {
			if m.User == nil {
				m.User = map[string]string{}
			}
			m.User[n] = strings.Join(vals, ",")
		}
	}
	return m
}
