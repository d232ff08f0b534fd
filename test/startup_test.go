package test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runKuraToFailure runs kura with args to its exit (within 10 s) and returns what
// it printed; the test fails if it exits cleanly or does not exit.
func runKuraToFailure(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, kuraBin, args...).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("kura %v: %v (timed out: %v)\n%s", args, err, ctx.Err() != nil, out)
	}
	return string(out)
}

// A port in use stops the start before storage is opened: no fresh data
// directory is left behind (the issue: Kura opened storage first).
func TestBusyPortLeavesNoDataDir(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	data := filepath.Join(t.TempDir(), "fresh")
	out := runKuraToFailure(t, "--listen", ln.Addr().String(), "--data-dir", data)
	if !strings.Contains(out, "address already in use") {
		t.Fatalf("output:\n%s", out)
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the data directory was created (%v)", err)
	}
}

// A second Kura on a data directory in use says which process holds it.
func TestDataDirInUseNamesThePid(t *testing.T) {
	if onStore {
		t.Skip("on TiKV and PostgreSQL the namespace's lease refuses the second server")
	}
	for _, shared := range []string{"true", "false"} {
		data := t.TempDir()
		first := startKura(t, "--data-dir", data, "--shared-db="+shared)
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		out := runKuraToFailure(t, "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--data-dir", data, "--shared-db="+shared)
		want := fmt.Sprintf("data directory %s is already in use by another Kura (pid %d): stop it, or give this one another --data-dir", data, first.cmd.Process.Pid)
		if !strings.Contains(out, want) {
			t.Fatalf("--shared-db=%s: output\n%s\nwant %s", shared, out, want)
		}
		first.stop()
	}
}
