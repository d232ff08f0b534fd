package pebble_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
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

// crashEnv names the directory the crash helper writes to; memtableEnv,
// when set, its memtable size, with values of valueSize bytes instead of
// the key (so the store rotates its memtables and logs).
// orderEnv, when set, makes the helper's first writer commit most of its
// keys without Sync (storage.Txn.Commit: commits become durable in order).
const (
	crashEnv    = "KURA_PEBBLE_CRASH_DIR"
	memtableEnv = "KURA_PEBBLE_CRASH_MEMTABLE"
	orderEnv    = "KURA_PEBBLE_CRASH_ORDER"
	valueSize   = 4096
)

// TestCrashHelper runs only as the child of the kill -9 tests: it commits
// keys with Sync from several goroutines and prints each acknowledged key,
// until it is killed. With orderEnv the first goroutine syncs only every
// eighth of its commits and prints only those.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("helper for TestKill9")
	}
	memtable, _ := strconv.ParseUint(os.Getenv(memtableEnv), 10, 64)
	s, err := pebble.Open(dir, pebble.Options{MemTableSize: memtable})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	mixed := os.Getenv(orderEnv) != ""
	acks := make(chan string, 64)
	for w := 0; w < 4; w++ {
		go func(w int) {
			for i := 0; ; i++ {
				k := fmt.Sprintf("w%d-%06d", w, i)
				tx, err := s.Begin()
				if err != nil {
					return
				}
				_ = tx.Set([]byte(k), crashValue(k, memtable != 0))
				sync := !mixed || w != 0 || i%8 == 7
				if err := tx.Commit(storage.CommitOptions{Sync: sync}); err != nil {
					return
				}
				if sync {
					acks <- k
				}
			}
		}(w)
	}
	for k := range acks {
		fmt.Println("ACK", k)
	}
}

// crashValue is the value the crash helper writes under key k.
func crashValue(k string, large bool) []byte {
	if !large {
		return []byte(k)
	}
	return []byte(k + strings.Repeat(".", valueSize-len(k)))
}

// TestKill9 kills a process that is committing with Sync and checks that
// every acknowledged commit survived.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	dir := t.TempDir()
	acked := killWhileCommitting(t, dir, 0, func(acks int) bool { return acks >= 200 })
	checkAcked(t, reopen(t, dir, 0), 0, acked)
}

// TestKill9WhileLogIsSpare is TestKill9 with 1 MB memtables, killed once
// the live write-ahead log is a spare (a file written full of zeros ahead
// of time, see walspare.go) holding acknowledged commits: recovery must
// end that log at its last record and keep every acknowledged commit.
func TestKill9WhileLogIsSpare(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	const memtable = 1 << 20
	spare := int64(memtable + memtable/10) // Pebble's WAL preallocation size
	dir := t.TempDir()
	var liveSpare string
	var seenAt int
	acked := killWhileCommitting(t, dir, memtable, func(acks int) bool {
		if liveSpare != "" {
			return acks >= seenAt+50 // 200 KB of commits into the spare
		}
		if name, size := liveLog(t, dir); size == spare {
			liveSpare, seenAt = name, acks
		}
		return false
	})
	if liveSpare == "" {
		t.Fatal("no spare became the live log before the deadline")
	}
	checkAcked(t, reopen(t, dir, memtable), memtable, acked)
	t.Logf("killed while %s (a spare) was the live log", liveSpare)
}

// TestKill9KeepsCommitOrder checks the order half of Commit's contract: a
// process commits mostly without Sync from one goroutine (every eighth
// commit synced) while others sync every commit, across log rotations
// (1 MB memtables), and is killed; every commit that goroutine made
// before its last acknowledged synced commit must have survived.
func TestKill9KeepsCommitOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	t.Setenv(orderEnv, "1")
	const memtable = 1 << 20
	dir := t.TempDir()
	acked := killWhileCommitting(t, dir, memtable, func(acks int) bool { return acks >= 600 })
	sn := reopen(t, dir, memtable)
	checkAcked(t, sn, memtable, acked)
	last := -1
	for _, k := range acked {
		if n, ok := strings.CutPrefix(k, "w0-"); ok {
			i, _ := strconv.Atoi(n)
			last = max(last, i)
		}
	}
	if last < 0 {
		t.Fatal("the mostly unsynced writer acknowledged nothing")
	}
	for i := range last {
		k := fmt.Sprintf("w0-%06d", i)
		if _, err := sn.Get([]byte(k)); err != nil {
			t.Fatalf("unsynced %s, committed before the synced w0-%06d, lost after kill -9: %v", k, last, err)
		}
	}
	t.Logf("the %d commits before the last synced one (w0-%06d) survived", last, last)
}

// liveLog returns the name and size of the newest write-ahead log in dir.
func liveLog(t *testing.T, dir string) (string, int64) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	var size int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".log") && e.Name() > name {
			if fi, err := e.Info(); err == nil {
				name, size = e.Name(), fi.Size()
			}
		}
	}
	return name, size
}

// killWhileCommitting runs the crash helper on dir, kills it with SIGKILL
// once enough (called after each acknowledgement with the count so far)
// says so or 20 s have passed, and returns every key it acknowledged.
func killWhileCommitting(t *testing.T, dir string, memtable uint64, enough func(acks int) bool) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.v")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir, fmt.Sprintf("%s=%d", memtableEnv, memtable))
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
		if enough(len(acked)) || time.Now().After(deadline) {
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
	return acked
}

// reopen opens the store in dir again (closed when the test ends) and
// returns a snapshot of it.
func reopen(t *testing.T, dir string, memtable uint64) storage.Snapshot {
	t.Helper()
	s, err := pebble.Open(dir, pebble.Options{MemTableSize: memtable})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sn, err := s.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sn.Close() })
	return sn
}

// checkAcked checks every acknowledged key and its value in sn.
func checkAcked(t *testing.T, sn storage.Snapshot, memtable uint64, acked []string) {
	t.Helper()
	for _, k := range acked {
		if v, err := sn.Get([]byte(k)); err != nil || string(v) != string(crashValue(k, memtable != 0)) {
			t.Fatalf("acknowledged %s lost after kill -9: %d bytes, %v", k, len(v), err)
		}
	}
	t.Logf("%d acknowledged commits survived kill -9", len(acked))
}
