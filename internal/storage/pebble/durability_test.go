package pebble_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/pebble"
)

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := pebble.Open(dir, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := s.Begin()
	for i := 0; i < 1000; i++ {
		_ = tx.Set([]byte(fmt.Sprintf("k%04d", i)), []byte(fmt.Sprint(i)))
	}
	if err := tx.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	tx, _ = s.Begin()
	_ = tx.Delete([]byte("k0007"))
	if err := tx.Commit(storage.CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = pebble.Open(dir, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, _ := s.NewSnapshot()
	defer sn.Close()
	if v, err := sn.Get([]byte("k0999")); err != nil || string(v) != "999" {
		t.Fatalf("k0999 = %q, %v", v, err)
	}
	if _, err := sn.Get([]byte("k0007")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("deleted key: %v", err)
	}
	it, _ := sn.NewIterator(storage.IterOptions{})
	n := 0
	for it.Next() {
		n++
	}
	_ = it.Close()
	if n != 999 {
		t.Fatalf("reopened store has %d keys, want 999", n)
	}
	// A transaction after reopen must not conflict with history.
	tx, _ = s.Begin()
	if _, err := tx.Get([]byte("k0001")); err != nil {
		t.Fatal(err)
	}
	_ = tx.Set([]byte("k0001"), []byte("x"))
	if err := tx.Commit(storage.CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
}

// crashEnv names the directory the crash helper writes to.
const crashEnv = "KURA_PEBBLE_CRASH_DIR"

// TestCrashHelper runs only as the child of TestKill9: it commits keys with
// Sync from several goroutines and prints each acknowledged key, until it
// is killed.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("helper for TestKill9")
	}
	s, err := pebble.Open(dir, pebble.Options{})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	acks := make(chan string, 64)
	for w := 0; w < 4; w++ {
		go func(w int) {
			for i := 0; ; i++ {
				k := fmt.Sprintf("w%d-%06d", w, i)
				tx, err := s.Begin()
				if err != nil {
					return
				}
				_ = tx.Set([]byte(k), []byte(k))
				if err := tx.Commit(storage.CommitOptions{Sync: true}); err != nil {
					return
				}
				acks <- k
			}
		}(w)
	}
	for k := range acks {
		fmt.Println("ACK", k)
	}
}

// TestKill9 kills a process that is committing with Sync and checks that
// every acknowledged commit survived.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.v")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	sc := bufio.NewScanner(out)
	deadline := time.Now().Add(20 * time.Second)
	for sc.Scan() {
		line := sc.Text()
		if k, ok := strings.CutPrefix(line, "ACK "); ok {
			acked = append(acked, k)
		} else if strings.HasPrefix(line, "ERR") {
			t.Fatal(line)
		}
		if len(acked) >= 200 || time.Now().After(deadline) {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	// Keep reading: lines already printed were acknowledged too.
	for sc.Scan() {
		if k, ok := strings.CutPrefix(sc.Text(), "ACK "); ok {
			acked = append(acked, k)
		}
	}
	_ = cmd.Wait()
	if len(acked) == 0 {
		t.Fatal("helper acknowledged nothing")
	}

	s, err := pebble.Open(dir, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sn, _ := s.NewSnapshot()
	defer sn.Close()
	for _, k := range acked {
		if v, err := sn.Get([]byte(k)); err != nil || string(v) != k {
			t.Fatalf("acknowledged %s lost after kill -9: %q, %v", k, v, err)
		}
	}
	t.Logf("%d acknowledged commits survived kill -9", len(acked))
}
