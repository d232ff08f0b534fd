package objstoretest

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/kura-db/kura/internal/objstore"
)

// Harness is a store under test and how to make a bucket in it.
type Harness struct {
	Store objstore.Store
	// NewBucket makes an empty bucket and returns its name (unique to
	// the call).
	NewBucket func(t *testing.T) string
	// Large is the size of an object the store writes in several parts,
	// or 0 when it has no parts.
	Large int
}

var ctx = context.Background()

// Run runs the suite.
func Run(t *testing.T, h Harness) {
	t.Run("MissingBucket", func(t *testing.T) { missingBucket(t, h) })
	t.Run("InvalidNames", func(t *testing.T) { invalidNames(t, h) })
	t.Run("RoundTrip", func(t *testing.T) { roundTrip(t, h, 5) })
	t.Run("Empty", func(t *testing.T) { roundTrip(t, h, 0) })
	t.Run("NotSeenBeforeClose", func(t *testing.T) { notSeenBeforeClose(t, h) })
	t.Run("Abort", func(t *testing.T) { abort(t, h, 3) })
	t.Run("Replace", func(t *testing.T) { replace(t, h) })
	t.Run("List", func(t *testing.T) { list(t, h) })
	t.Run("NoSuchKey", func(t *testing.T) {
		b := h.NewBucket(t)
		if _, err := h.Store.Open(ctx, b, "nothing/here"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Open of a missing key: %v", err)
		}
	})
	if h.Large > 0 {
		t.Run("Multipart", func(t *testing.T) { roundTrip(t, h, h.Large) })
		t.Run("AbortMultipart", func(t *testing.T) { abort(t, h, h.Large) })
	}
}

// put writes body to bucket/key in writes of at most 1 MiB.
func put(t *testing.T, s objstore.Store, bucket, key string, body []byte) objstore.Writer {
	t.Helper()
	w, err := s.Create(ctx, bucket, key)
	if err != nil {
		t.Fatalf("Create %s/%s: %v", bucket, key, err)
	}
	for rest := body; len(rest) > 0; {
		n := min(len(rest), 1<<20)
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatalf("Write %s/%s: %v", bucket, key, err)
		}
		rest = rest[n:]
	}
	return w
}

// get is the object's content.
func get(t *testing.T, s objstore.Store, bucket, key string) []byte {
	t.Helper()
	r, err := s.Open(ctx, bucket, key)
	if err != nil {
		t.Fatalf("Open %s/%s: %v", bucket, key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %s/%s: %v", bucket, key, err)
	}
	return b
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(n)})
	_, _ = r.Read(b)
	return b
}

// missingBucket: every operation on a bucket that does not exist fails
// with ErrNoSuchBucket (a write by the time it is closed).
func missingBucket(t *testing.T, h Harness) {
	const b = "kura-no-such-bucket"
	if _, err := h.Store.List(ctx, b, ""); !errors.Is(err, objstore.ErrNoSuchBucket) {
		t.Errorf("List: %v", err)
	}
	if _, err := h.Store.Open(ctx, b, "k"); !errors.Is(err, objstore.ErrNoSuchBucket) {
		t.Errorf("Open: %v", err)
	}
	w, err := h.Store.Create(ctx, b, "k")
	if err == nil {
		_, err = w.Write([]byte("x"))
		if err == nil {
			err = w.Close()
		}
	}
	if !errors.Is(err, objstore.ErrNoSuchBucket) {
		t.Errorf("Create/Close: %v", err)
	}
}

// invalidNames: bucket names S3 does not allow and empty keys are refused
// with ErrInvalidKey.
func invalidNames(t *testing.T, h Harness) {
	b := h.NewBucket(t)
	for _, bucket := range []string{"..", "UPPER", "a", "x/y", ""} {
		if _, err := h.Store.Create(ctx, bucket, "k"); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Errorf("Create in bucket %q: %v", bucket, err)
		}
		if _, err := h.Store.List(ctx, bucket, ""); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Errorf("List of bucket %q: %v", bucket, err)
		}
	}
	if _, err := h.Store.Create(ctx, b, ""); !errors.Is(err, objstore.ErrInvalidKey) {
		t.Errorf("Create of an empty key: %v", err)
	}
}

// roundTrip: an object of n bytes reads back whole, is listed with its
// size, and its ETag is S3's (the hex MD5 of a single-part object).
func roundTrip(t *testing.T, h Harness, n int) {
	b := h.NewBucket(t)
	body := randomBytes(n)
	key := "p/AWSDynamoDB/1/data/f.json.gz"
	w := put(t, h.Store, b, key, body)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, h.Store, b, key); !bytes.Equal(got, body) {
		t.Fatalf("read %d bytes back, wrote %d", len(got), len(body))
	}
	if l, err := h.Store.List(ctx, b, "p/"); err != nil || len(l) != 1 || l[0] != (objstore.Object{Key: key, Size: int64(n)}) {
		t.Fatalf("List: %+v %v", l, err)
	}
	sum := md5.Sum(body)
	if n < h.Large || h.Large == 0 {
		if w.ETag() != hex.EncodeToString(sum[:]) {
			t.Fatalf("ETag %q, want the hex MD5 %x", w.ETag(), sum)
		}
	} else if w.ETag() == "" {
		t.Fatal("a multipart object without an ETag")
	}
}

// notSeenBeforeClose: an object being written is neither read nor listed.
func notSeenBeforeClose(t *testing.T, h Harness) {
	b := h.NewBucket(t)
	w := put(t, h.Store, b, "a/b", []byte("hello"))
	if _, err := h.Store.Open(ctx, b, "a/b"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("an object is readable before it is closed: %v", err)
	}
	if l, err := h.Store.List(ctx, b, ""); err != nil || len(l) != 0 {
		t.Fatalf("an object is listed before it is closed: %+v %v", l, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// abort: an aborted object does not exist.
func abort(t *testing.T, h Harness, n int) {
	b := h.NewBucket(t)
	put(t, h.Store, b, "gone", randomBytes(n)).Abort()
	if _, err := h.Store.Open(ctx, b, "gone"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open of an aborted object: %v", err)
	}
	if l, err := h.Store.List(ctx, b, ""); err != nil || len(l) != 0 {
		t.Fatalf("an aborted object is listed: %+v %v", l, err)
	}
}

// replace: writing a key again replaces its object.
func replace(t *testing.T, h Harness) {
	b := h.NewBucket(t)
	for _, s := range []string{"first, longer", "second"} {
		if err := put(t, h.Store, b, "k", []byte(s)).Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := get(t, h.Store, b, "k"); string(got) != "second" {
		t.Fatalf("read %q", got)
	}
}

// list: every object under the prefix, in key order, none outside it.
func list(t *testing.T, h Harness) {
	b := h.NewBucket(t)
	keys := []string{"data/b.json", "data/a.json", "data/sub/c", "datb", "manifest", "data-x"}
	for _, k := range keys {
		if err := put(t, h.Store, b, k, []byte(k)).Close(); err != nil {
			t.Fatal(err)
		}
	}
	for prefix, want := range map[string][]string{
		"data/": {"data/a.json", "data/b.json", "data/sub/c"},
		"":      {"data-x", "data/a.json", "data/b.json", "data/sub/c", "datb", "manifest"},
		"nope":  nil,
		"data":  {"data-x", "data/a.json", "data/b.json", "data/sub/c"},
	} {
		l, err := h.Store.List(ctx, b, prefix)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range l {
			got = append(got, o.Key)
			if o.Size != int64(len(o.Key)) {
				t.Errorf("%s: size %d", o.Key, o.Size)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("List %q: %v, want %v", prefix, got, want)
		}
	}
}

// Endpoint is the S3-compatible server the tests that need one use: the
// URL in KURA_TEST_S3_ENDPOINT (.ci/run starts SeaweedFS with
// test/s3/weed.sh and sets it). Without it the test is skipped and says
// so, or fails when KURA_REQUIRE_S3 is set (as .ci/run sets it).
func Endpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv("KURA_TEST_S3_ENDPOINT")
	if ep == "" {
		if os.Getenv("KURA_REQUIRE_S3") != "" {
			t.Fatal("KURA_REQUIRE_S3 is set but KURA_TEST_S3_ENDPOINT is not")
		}
		t.Skip("no S3-compatible server: start one with `test/s3/weed.sh start DIR` and set KURA_TEST_S3_ENDPOINT to the URL it prints")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	t.Setenv("AWS_SESSION_TOKEN", "")
	return ep
}

// The identities of the test server (test/s3/weed.sh configures them):
// AccessKey may do anything, ReaderKey only read and list.
const (
	AccessKey, SecretKey    = "kura", "kura-secret"
	ReaderKey, ReaderSecret = "reader", "reader-secret"
)

// BucketName is a new bucket's name, unique to this process and call.
func BucketName() string {
	return fmt.Sprintf("kura-test-%d-%d", os.Getpid(), bucketSeq.Add(1))
}

var bucketSeq atomic.Int64
