package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckpointNames(t *testing.T) {
	dir := t.TempDir()
	s, err := Start(Config{DataDir: filepath.Join(dir, "data"), CheckpointDir: filepath.Join(dir, "ck")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	seen := map[string]bool{}
	for i := 0; i < 3; i++ { // within a millisecond or not: three names
		p, err := s.Checkpoint()
		if err != nil || seen[p] || !strings.HasPrefix(filepath.Base(p), "kura-") {
			t.Fatalf("checkpoint %d: %q %v", i, p, err)
		}
		seen[p] = true
		if !isStore(p) {
			t.Fatalf("no store in %s", p)
		}
	}

	mem, err := Start(Config{InMemory: true, CheckpointDir: filepath.Join(dir, "ck2")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Shutdown(context.Background())
	if _, err := mem.Checkpoint(); err != errNoCheckpoint {
		t.Fatalf("in memory: %v", err)
	}
}

// With a database per credential, folders of the data directory that hold
// no store are not taken for databases.
func TestCheckpointSkipsOtherFolders(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(filepath.Join(data, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Start(Config{DataDir: data, PerCredential: true, CheckpointDir: filepath.Join(data, "backups")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	db, err := s.acquire("AKID_us-east-1", "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	s.release(db)
	p, err := s.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "AKID_us-east-1" {
		t.Fatalf("checkpoint holds %v", names)
	}
	if _, err := os.Stat(filepath.Join(data, "notes", "LOCK")); err == nil {
		t.Fatal("a folder without a store was opened as a database")
	}
}
