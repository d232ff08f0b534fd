// Package robustness holds Kura's hostile-load and fault tests: each starts
// a real kura process, attacks or faults it as an adversary or a bad day
// would, and checks it stays bounded and correct (memory it holds, answers
// it gives, data it keeps). TestMain builds cmd/kura once, or takes the
// binary in KURA_ROBUSTNESS_BIN (to measure another build, as
// BENCHMARKS.md records).
package robustness

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

var kuraBin string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if bin := os.Getenv("KURA_ROBUSTNESS_BIN"); bin != "" {
		kuraBin = bin
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "kura-robustness-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	kuraBin = filepath.Join(dir, "kura")
	build := exec.Command("go", "build", "-o", kuraBin, "../../cmd/kura")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building kura:", err)
		return 1
	}
	return m.Run()
}

// server is one running kura process.
type server struct {
	cmd      *exec.Cmd
	addr     string // host:port
	endpoint string // http://host:port
	log      *lockedLog
}

// lockedLog is a process's output, read while the process writes it.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer starts kura on a free loopback port with extra flags, waits
// until it answers its health check, and stops it when t ends.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &server{addr: addr, endpoint: "http://" + addr, log: &lockedLog{}}
	s.cmd = exec.Command(kuraBin, append([]string{"--listen", addr, "--log-level", "warn"}, args...)...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(s.endpoint + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("kura did not start: %v\n%s", err, s.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop ends the process (SIGTERM, then SIGKILL after 10 s).
func (s *server) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// rss is the process's resident memory in bytes (Linux /proc).
func (s *server) rss(t testing.TB) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc to measure memory with: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/PID/status")
	return 0
}

// peakRSS samples rss every 20 ms while f runs and returns the highest.
func (s *server) peakRSS(t testing.TB, f func()) int64 {
	t.Helper()
	var peak int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if r := s.rss(t); r > peak {
				peak = r
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return max(peak, s.rss(t))
}

// client is an SDK client of the server; retries off, so every error
// reaches the test.
func (s *server) client() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Retryer:      aws.NopRetryer{},
	})
}

var bg = context.Background()

// mb formats a byte count in MB for messages.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
