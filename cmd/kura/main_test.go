package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{"KURA_DATA_DIR": "/env/dir", "KURA_SYNC": "false", "KURA_PORT": "9000", "KURA_LOG_LEVEL": "debug"}
	c, err := parseConfig([]string{"--data-dir", "/flag/dir", "--create-delay", "2s"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != "/flag/dir" || c.Sync || c.Addr() != "127.0.0.1:9000" || c.CreateDelay != 2*time.Second ||
		c.LogLevel.String() != "DEBUG" || c.Region != "us-east-1" || c.AccountID != "000000000000" {
		t.Fatalf("config %+v addr %s", c, c.Addr())
	}
	if _, err := parseConfig([]string{"--log-level", "loud"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Fatal("bad log level accepted")
	}
	if _, err := parseConfig(nil, func(k string) string { return map[string]string{"KURA_SYNC": "maybe"}[k] }, io.Discard); err == nil {
		t.Fatal("bad KURA_SYNC accepted")
	}
	th, err := parseConfig(nil, func(k string) string {
		return map[string]string{"KURA_ENFORCE_THROUGHPUT": "true", "KURA_BURST_CAPACITY": "10s"}[k]
	}, io.Discard)
	if err != nil || !th.EnforceThroughput || th.BurstCapacity != 10*time.Second {
		t.Fatalf("throughput flags from the environment: %+v %v", th, err)
	}
	if _, err := parseConfig([]string{"--burst-capacity", "-1s"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Fatal("negative --burst-capacity accepted")
	}
}

// startRun runs the server of args until the test ends and returns its
// start-up record (the log is JSON) and the records before it.
func startRun(t *testing.T, args ...string) (ready map[string]any, before []map[string]any) {
	t.Helper()
	cfg, err := parseConfig(append([]string{"--listen", "127.0.0.1:0", "--log-format", "json"}, args...), func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, cfg, newLogger(cfg, pw))
		pw.Close()
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Error("no shutdown")
		}
	})
	r := bufio.NewReader(pr)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no start-up record (%v)", err)
		}
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
		if rec["msg"] == "Kura is ready" {
			go io.Copy(io.Discard, r)
			return rec, before
		}
		before = append(before, rec)
	}
}

func TestRunServesAndShutsDown(t *testing.T) {
	start := time.Now()
	rec, _ := startRun(t, "--in-memory")
	resp, err := http.Get(rec["listen"].(string) + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := time.Since(start); resp.StatusCode != 200 || d > 500*time.Millisecond {
		t.Fatalf("first answer: status %d after %v", resp.StatusCode, d)
	}
	t.Logf("start to first answer: %v", time.Since(start))
}

// The start-up record says what a user needs: version, address, storage,
// authentication, console and metrics.
func TestStartupSummary(t *testing.T) {
	rec, _ := startRun(t, "--in-memory")
	listen, _ := rec["listen"].(string)
	want := map[string]string{
		"level":          "INFO",
		"storage":        "in memory (nothing survives a restart)",
		"authentication": "off: any access key and secret accepted",
		"console":        listen + "/console/",
		"metrics":        "off",
	}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("%s = %v, want %q", k, rec[k], v)
		}
	}
	if !strings.HasPrefix(listen, "http://127.0.0.1:") || !strings.HasPrefix(rec["version"].(string), "kura ") {
		t.Errorf("start-up record %v", rec)
	}

	dir := t.TempDir()
	creds := filepath.Join(dir, "creds")
	if err := os.WriteFile(creds, []byte("AKID:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, _ = startRun(t, "--data-dir", filepath.Join(dir, "data"), "--credentials-file", creds, "--console=false", "--metrics", "127.0.0.1:0", "--shared-db=false")
	metrics, _ := rec["metrics"].(string)
	if rec["storage"] != "data directory "+filepath.Join(dir, "data")+"; a database per access key and region, at most 64 open" ||
		rec["authentication"] != "on: requests must be signed with a configured key (1 configured)" || rec["console"] != "off" ||
		!strings.HasPrefix(metrics, "http://127.0.0.1:") || !strings.HasSuffix(metrics, "/metrics") {
		t.Errorf("start-up record %v", rec)
	}
}

// --in-memory (or --tikv-pd) with --data-dir warns that the folder is not
// used.
func TestInMemoryWithDataDirWarns(t *testing.T) {
	cfg, err := parseConfig([]string{"--in-memory", "--data-dir", "/srv/kura"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := "--data-dir /srv/kura is not used: --in-memory keeps the data elsewhere"; len(cfg.Warnings) != 1 || cfg.Warnings[0] != want {
		t.Fatalf("warnings %q, want %q", cfg.Warnings, want)
	}
	cfg, err = parseConfig([]string{"--in-memory"}, func(k string) string { return map[string]string{"KURA_DATA_DIR": "/d"}[k] }, io.Discard)
	if err != nil || len(cfg.Warnings) != 1 {
		t.Fatalf("KURA_DATA_DIR with --in-memory: %q %v", cfg.Warnings, err)
	}
	for _, args := range [][]string{{"--in-memory"}, {"--data-dir", "/d"}} {
		if cfg, err := parseConfig(args, func(string) string { return "" }, io.Discard); err != nil || len(cfg.Warnings) != 0 {
			t.Fatalf("%v: warnings %q (%v)", args, cfg.Warnings, err)
		}
	}
	_, before := startRun(t, "--in-memory", "--data-dir", "/srv/kura")
	if len(before) != 1 || before[0]["level"] != "WARN" || before[0]["msg"] != "--data-dir /srv/kura is not used: --in-memory keeps the data elsewhere" {
		t.Fatalf("log before the start-up record: %v", before)
	}
}
