package robustness

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDiskFullRefusesWritesAndHeals fills the tmpfs a server's data
// directory is on: writes are refused with an InternalServerError that
// names the cause before the disk is full, reads go on, the health check
// answers 503, and the server stops and starts again in that state; once
// space is freed writes resume, the health check answers 200 again, and
// the server still stops cleanly.
func TestDiskFullRefusesWritesAndHeals(t *testing.T) {
	diskRequireRoot(t)
	mnt := diskTmpfs(t, 192<<20)
	s := diskStart(t, "--data-dir", filepath.Join(mnt, "data"), "--min-free-space-mb", "48")
	c := s.client()
	diskCreateTable(t, c)
	if err := diskPut(c, "before", 1000); err != nil {
		t.Fatal(err)
	}

	filler := filepath.Join(mnt, "filler")
	diskFill(t, mnt, filler, 24<<20)
	// The free-space reading is trusted for a short while (space.go), so
	// the first attempts may still succeed: each uses its own key, and the
	// one that was refused must not be visible.
	var err error
	var refused string
	for i, deadline := 0, time.Now().Add(5*time.Second); time.Now().Before(deadline); i++ {
		refused = fmt.Sprintf("during-%d", i)
		if err = diskPut(c, refused, 1000); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var ise *types.InternalServerError
	if !errors.As(err, &ise) {
		t.Fatalf("PutItem on a nearly full disk = %v, want InternalServerError", err)
	}
	if msg := ise.ErrorMessage(); !strings.HasPrefix(msg, "Writes are refused: the server's data disk is nearly full (") ||
		!strings.Contains(msg, "available, minimum 48 MB, --min-free-space-mb). Reads are still served; writes resume when disk space is freed.") {
		t.Fatalf("message = %q", msg)
	}
	if n, err := diskGet(c, "before"); err != nil || n != 1000 {
		t.Fatalf("GetItem while writes are refused = %d, %v", n, err)
	}
	if n, err := diskGet(c, refused); err != nil || n != -1 {
		t.Fatalf("the refused PutItem of %s is visible: %d, %v", refused, n, err)
	}
	if status, body, err := s.health(); err != nil || status != http.StatusServiceUnavailable || !strings.HasPrefix(body, "unhealthy: ") {
		t.Fatalf("health check on a nearly full disk = %d %q %v, want 503 unhealthy", status, body, err)
	}

	// It stops cleanly and starts again on the nearly full disk, serving
	// reads and refusing writes (its own bookkeeping uses the reserve).
	s.stop(t)
	s = diskStart(t, "--data-dir", filepath.Join(mnt, "data"), "--min-free-space-mb", "48")
	c = s.client()
	if n, err := diskGet(c, "before"); err != nil || n != 1000 {
		t.Fatalf("GetItem after a restart on a nearly full disk = %d, %v", n, err)
	}
	if err := diskPut(c, "during", 1000); !errors.As(err, &ise) {
		t.Fatalf("PutItem after a restart on a nearly full disk = %v, want InternalServerError", err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err = diskPut(c, "after", 1000); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("PutItem after space was freed: %v", err)
	}
	if status, body, err := s.health(); err != nil || status != http.StatusOK {
		t.Fatalf("health check after space was freed = %d %q %v, want 200", status, body, err)
	}
	s.stop(t)
	if strings.Contains(s.log.String(), "panic") {
		t.Fatalf("the server logged a panic:\n%s", s.log)
	}
}

// TestDiskFaultStopsAndRestartRecovers turns the free-space minimum off and
// fills the disk completely under a server that keeps writing, so Pebble
// itself fails to write: the server must stop with a non-zero status and
// the cause in its log (never serve on), and a restart once space is freed
// must hold every write it acknowledged.
func TestDiskFaultStopsAndRestartRecovers(t *testing.T) {
	diskRequireRoot(t)
	mnt := diskTmpfs(t, 160<<20)
	data := filepath.Join(mnt, "data")
	s := diskStart(t, "--data-dir", data, "--min-free-space-mb", "0")
	c := s.client()
	diskCreateTable(t, c)
	early := writeSmall(t, c)
	filler := filepath.Join(mnt, "filler")
	filled := diskFill(t, mnt, filler, 0)

	acked := append(early, writeUntilExit(t, s, 300<<10)...)
	code := s.waitExit(t, 20*time.Second)
	if code == 0 {
		t.Fatalf("kura exited with status 0 after a storage fault\n%s", s.log)
	}
	if log := s.log.String(); !strings.Contains(log, "storage failed") {
		t.Fatalf("the log does not say why kura stopped:\n%s", log)
	}
	// Restarted with a little space back (24 MB, below its minimum), it
	// recovers every acknowledged write, serves reads and refuses writes;
	// once space is freed it takes writes, without another restart.
	if err := os.Truncate(filler, filled-24<<20); err != nil {
		t.Fatal(err)
	}
	r := diskStart(t, "--data-dir", data, "--min-free-space-mb", "48")
	checkRecovered(t, r, acked, 300<<10)
	var ise *types.InternalServerError
	if err := diskPut(r.client(), "full", 10); !errors.As(err, &ise) {
		t.Fatalf("PutItem on the full disk after the restart = %v, want InternalServerError", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err = diskPut(r.client(), "freed", 10); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("PutItem after space was freed: %v", err)
	}
	r.stop(t)
}

// TestImmutableDataDirStopsAndRestartRecovers makes the data directory
// immutable (chattr +i) under a running server, so no new file can be
// created in it: at the next write-ahead log rotation the server must stop
// with a non-zero status and the cause in its log, and a restart once the
// directory is writable again must hold every acknowledged write.
func TestImmutableDataDirStopsAndRestartRecovers(t *testing.T) {
	diskRequireRoot(t)
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("chattr is not installed")
	}
	mnt := diskTmpfs(t, 256<<20)
	data := filepath.Join(mnt, "data")
	s := diskStart(t, "--data-dir", data)
	c := s.client()
	diskCreateTable(t, c)
	early := writeSmall(t, c)
	if out, err := exec.Command("chattr", "+i", data).CombinedOutput(); err != nil {
		t.Skipf("chattr +i is not supported here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", data).Run() })

	acked := append(early, writeUntilExit(t, s, 300<<10)...)
	code := s.waitExit(t, 20*time.Second)
	if code == 0 {
		t.Fatalf("kura exited with status 0 after a storage fault\n%s", s.log)
	}
	if log := s.log.String(); !strings.Contains(log, "storage failed") || strings.Contains(log, "unlock of unlocked mutex") {
		t.Fatalf("the log does not show a clean fail-stop:\n%s", log)
	}
	if out, err := exec.Command("chattr", "-i", data).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i: %v %s", err, out)
	}
	r := diskStart(t, "--data-dir", data)
	checkRecovered(t, r, acked, 300<<10)
	r.stop(t)
}

// smallSize is the payload of the items written before a fault.
const smallSize = 100

// writeSmall writes 20 small items (acknowledged before any fault) and
// returns their keys.
func writeSmall(t *testing.T, c *dynamodb.Client) []string {
	t.Helper()
	var keys []string
	for i := 0; i < 20; i++ {
		k := fmt.Sprintf("small%02d", i)
		if err := diskPut(c, k, smallSize); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

// writeUntilExit writes items of size bytes from 4 clients until the
// server exits (or 3000 items were acknowledged), and returns the keys it
// acknowledged.
func writeUntilExit(t *testing.T, s *diskServer, size int) []string {
	t.Helper()
	c := s.client()
	type result struct {
		key string
		err error
	}
	keys := make(chan string)
	results := make(chan result)
	for w := 0; w < 4; w++ {
		go func() {
			for k := range keys {
				results <- result{k, diskPut(c, k, size)}
			}
		}()
	}
	var acked []string
	inFlight, next, failures := 0, 0, 0
	for {
		exited := false
		select {
		case <-s.exited:
			exited = true
		default:
		}
		if !exited && failures < 50 && next < 3000 && inFlight < 4 {
			keys <- fmt.Sprintf("k%05d", next)
			next++
			inFlight++
			continue
		}
		if inFlight == 0 {
			close(keys)
			return acked
		}
		r := <-results
		inFlight--
		if r.err == nil {
			acked = append(acked, r.key)
		} else {
			failures++
		}
	}
}

// checkRecovered checks that the restarted server s holds every key in
// acked.
func checkRecovered(t *testing.T, s *diskServer, acked []string, size int) {
	t.Helper()
	if len(acked) == 0 {
		t.Fatalf("no write was acknowledged before the fault\n%s", s.log)
	}
	c := s.client()
	for _, k := range acked {
		want := size
		if strings.HasPrefix(k, "small") {
			want = smallSize
		}
		if n, err := diskGet(c, k); err != nil || n != want {
			t.Fatalf("acknowledged item %s after restart: size %d, %v (of %d acknowledged)", k, n, err, len(acked))
		}
	}
	t.Logf("%d acknowledged writes recovered", len(acked))
}
