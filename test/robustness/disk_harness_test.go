package robustness

// The process starter of the storage-fault tests (disk_test.go): unlike
// startServer (harness_test.go) it watches for the process to exit by
// itself and waits for any answer, not a healthy one, since these tests
// stop or degrade the server on purpose. The binary and the log type are
// the harness's.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// diskServer is one kura process.
type diskServer struct {
	cmd      *exec.Cmd
	endpoint string
	log      *lockedLog
	exited   chan struct{}
	waitErr  error
}

// diskStart starts kura with args on a free loopback port and waits until
// it answers HTTP (whatever its health says). The process is killed when
// the test ends if it still runs.
func diskStart(t *testing.T, args ...string) *diskServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &diskServer{endpoint: "http://" + addr, log: &lockedLog{}, exited: make(chan struct{})}
	s.cmd = exec.Command(kuraBin, append([]string{"--listen", addr, "--log-level", "warn"}, args...)...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.waitErr = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			s.cmd.Process.Kill()
			<-s.exited
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, _, err := s.health(); err == nil {
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("kura exited at start: %v\n%s", s.waitErr, s.log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("kura did not start\n%s", s.log)
		}
	}
}

// health is the status and body of GET /.
func (s *diskServer) health() (int, string, error) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(s.endpoint + "/")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// stop ends the process with SIGTERM and waits (it must exit cleanly).
func (s *diskServer) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		t.Fatalf("kura did not stop on SIGTERM\n%s", s.log)
	}
	if s.waitErr != nil {
		t.Fatalf("kura exited with %v after SIGTERM\n%s", s.waitErr, s.log)
	}
}

// waitExit waits up to d for the process to exit by itself and returns its
// exit code.
func (s *diskServer) waitExit(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-s.exited:
	case <-time.After(d):
		t.Fatalf("kura still runs %v after the fault\n%s", d, s.log)
	}
	var ee *exec.ExitError
	if errors.As(s.waitErr, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// client is an SDK client of the server that does not retry (each call is
// one request), with a short timeout.
func (s *diskServer) client() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(s.endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		RetryMaxAttempts: 1,
		HTTPClient:       &http.Client{Timeout: 10 * time.Second},
	})
}

// diskRequireRoot skips a test that mounts filesystems unless it runs as
// root (CI does).
func diskRequireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root; run as root (CI does) to test a full disk")
	}
}

// diskTmpfs mounts a tmpfs of size bytes on a new folder, unmounted when
// the test ends.
func diskTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() {
		// A killed server may still hold files for a moment.
		for i := 0; i < 50; i++ {
			if exec.Command("umount", dir).Run() == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("could not unmount %s", dir)
	})
	return dir
}

// diskAvail is the free space of dir's filesystem.
func diskAvail(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// diskFill writes a file of zeros at path until dir's free space is at most
// leave bytes (or the disk is full), and returns its size.
func diskFill(t *testing.T, dir, path string, leave int64) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	var n int64
	for {
		avail := diskAvail(t, dir)
		if avail <= leave {
			return n
		}
		c := chunk
		if rest := avail - leave; rest < int64(len(c)) {
			c = c[:rest]
		}
		w, err := f.Write(c)
		n += int64(w)
		if err != nil {
			return n // full
		}
	}
}

// diskCreateTable creates a hash-key table "disk" (key "k", a string) and
// waits for it.
func diskCreateTable(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("disk"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("k"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamodb.NewTableExistsWaiter(c).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("disk")}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

// diskPut writes item k with a payload of size bytes.
func diskPut(c *dynamodb.Client, k string, size int) error {
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String("disk"),
		Item: map[string]types.AttributeValue{
			"k": &types.AttributeValueMemberS{Value: k},
			"p": &types.AttributeValueMemberS{Value: strings.Repeat("x", size)},
		},
	})
	return err
}

// diskGet reads item k's payload size (-1: no such item).
func diskGet(c *dynamodb.Client, k string) (int, error) {
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String("disk"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: k}},
	})
	if err != nil {
		return 0, err
	}
	if out.Item == nil {
		return -1, nil
	}
	return len(out.Item["p"].(*types.AttributeValueMemberS).Value), nil
}
