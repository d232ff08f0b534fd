package objstore_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/objstore/objstoretest"
)

func TestDirConformance(t *testing.T) {
	root := t.TempDir()
	objstoretest.Run(t, objstoretest.Harness{
		Store: objstore.Dir{Root: root},
		NewBucket: func(t *testing.T) string {
			name := objstoretest.BucketName()
			if err := os.Mkdir(filepath.Join(root, name), 0o755); err != nil {
				t.Fatal(err)
			}
			return name
		},
	})
}

// Keys that would name a file outside the bucket's folder, or nothing, are
// refused by the folder store.
func TestDirKeys(t *testing.T) {
	root := t.TempDir()
	d := objstore.Dir{Root: root}
	if err := os.Mkdir(filepath.Join(root, "my-bucket"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"", "/abs", "a/../../escape", "a//b", "./a", "a/.kura-tmp"} {
		if _, err := d.Create(t.Context(), "my-bucket", key); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Errorf("key %q accepted: %v", key, err)
		}
	}
}

// A bucket folder Kura may not enter is ErrAccessDenied.
func TestDirAccessDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may enter any folder")
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "locked"), 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := (objstore.Dir{Root: root}).Create(t.Context(), "locked", "k"); !errors.Is(err, objstore.ErrAccessDenied) {
		t.Fatalf("Create in a locked folder: %v", err)
	}
}
