package objstore

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	root := t.TempDir()
	d := Dir{Root: root}
	if _, err := d.Create("missing-bucket", "k"); !errors.Is(err, ErrNoSuchBucket) {
		t.Fatalf("a bucket that does not exist: %v", err)
	}
	if err := os.Mkdir(filepath.Join(root, "my-bucket"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"", "/abs", "a/../../escape", "a//b", "./a"} {
		if _, err := d.Create("my-bucket", key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("key %q accepted: %v", key, err)
		}
	}
	for _, bucket := range []string{"..", "UPPER", "a", "x/y"} {
		if _, err := d.Create(bucket, "k"); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("bucket %q accepted: %v", bucket, err)
		}
	}
	w, err := d.Create("my-bucket", "p/AWSDynamoDB/1/data/f.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "hello")
	if _, err := d.Open("my-bucket", "p/AWSDynamoDB/1/data/f.json.gz"); err == nil {
		t.Fatal("an object is visible before it is closed")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := d.Open("my-bucket", "p/AWSDynamoDB/1/data/f.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if b, _ := io.ReadAll(r); string(b) != "hello" {
		t.Fatalf("read %q", b)
	}
	w, _ = d.Create("my-bucket", "p/b") // open: not listed yet
	list, err := d.List("my-bucket", "p/")
	if err != nil || len(list) != 1 || list[0] != (Object{Key: "p/AWSDynamoDB/1/data/f.json.gz", Size: 5}) {
		t.Fatalf("List: %+v %v", list, err)
	}
	w.Close()
	if list, _ = d.List("my-bucket", ""); len(list) != 2 || list[0].Key != "p/AWSDynamoDB/1/data/f.json.gz" || list[1].Key != "p/b" {
		t.Fatalf("List all: %+v", list)
	}
	if _, err := d.List("none-here", ""); !errors.Is(err, ErrNoSuchBucket) {
		t.Fatalf("List of a missing bucket: %v", err)
	}
}
