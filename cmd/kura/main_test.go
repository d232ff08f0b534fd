package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
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

func TestRunServesAndShutsDown(t *testing.T) {
	cfg, err := parseConfig([]string{"--in-memory", "--listen", "127.0.0.1:0"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		err := run(ctx, cfg, pw)
		pw.Close()
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line (%v); run: %v", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	addr := strings.TrimSpace(strings.TrimPrefix(line, "kura listening on "))
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := time.Since(start); resp.StatusCode != 200 || d > 500*time.Millisecond {
		t.Fatalf("first answer: status %d after %v", resp.StatusCode, d)
	}
	t.Logf("start to first answer: %v", time.Since(start))
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no shutdown")
	}
}
