package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

func keyClient(s *Server, key string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint()),
		Credentials: credentials.NewStaticCredentialsProvider(key, "secret", ""),
		Retryer:     aws.NopRetryer{},
	})
}

// At most MaxOpenDatabases per-key databases stay open; the others are
// closed when idle and reopened with their tables, concurrently too, and
// an advanced --admin clock stays advanced across the close.
func TestOpenDatabasesBounded(t *testing.T) {
	ctx := context.Background()
	s, err := Start(Config{DataDir: t.TempDir(), PerCredential: true, MaxOpenDatabases: 2, Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	const keys = 6
	for i := range keys {
		createTable(t, keyClient(s, fmt.Sprintf("K%d", i)), fmt.Sprintf("table%d", i), "id")
		held := s.holdOpenDatabases()
		for _, db := range held {
			s.release(db)
		}
		if len(held) > 2 {
			t.Fatalf("%d databases open", len(held))
		}
	}
	s.adminClock("K0_us-east-1").Advance(time.Hour)
	var wg sync.WaitGroup
	errs := make(chan error, 4*keys)
	for range 4 {
		for i := range keys {
			wg.Go(func() {
				out, err := keyClient(s, fmt.Sprintf("K%d", i)).ListTables(ctx, &dynamodb.ListTablesInput{})
				if err == nil && (len(out.TableNames) != 1 || out.TableNames[0] != fmt.Sprintf("table%d", i)) {
					err = fmt.Errorf("K%d sees %v", i, out.TableNames)
				}
				errs <- err
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A request releases its database after its answer is sent: the last
	// closes may still be running.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		s.dbs.mu.Lock()
		open, busy := len(s.dbs.open), len(s.dbs.busy)
		s.dbs.mu.Unlock()
		if open <= 2 && busy == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d open, %d busy", open, busy)
		}
	}
	db, err := s.acquire("K0_us-east-1", "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.release(db)
	now, _ := db.eng.AdvanceClock(0)
	if d := time.Until(now); d < 59*time.Minute {
		t.Fatalf("the admin clock is %v ahead after reopening, want 1h", d)
	}
}

// A database that cannot be opened answers InternalServerError with the
// reason in a sentence (the log has the details).
func TestDatabaseOpenFailure(t *testing.T) {
	dir := t.TempDir()
	// A file where the database's folder would be.
	if err := os.WriteFile(filepath.Join(dir, "BROKEN_us-east-1"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Start(Config{DataDir: dir, PerCredential: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	_, err = keyClient(s, "BROKEN").ListTables(context.Background(), &dynamodb.ListTablesInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InternalServerError" ||
		ae.ErrorMessage() != "Kura cannot open this access key's database; the server log has the details" {
		t.Fatalf("got %v", err)
	}
	want := "Kura cannot open this access key's database: too many open files (raise the open-file limit, ulimit -n, or lower --max-open-databases); the server log has the details"
	if got := openFailedMessage(fmt.Errorf("storage/pebble: open x: %w", syscall.EMFILE)); got != want {
		t.Fatalf("out of files: %q", got)
	}
}

// A checkpoint copies the closed per-key databases without keeping them
// open: the databases requests use stay open (the copy opened each closed
// one through the bound, pushing the ones in use out).
func TestCheckpointKeepsOpenDatabases(t *testing.T) {
	dir := t.TempDir()
	s, err := Start(Config{DataDir: filepath.Join(dir, "data"), PerCredential: true, MaxOpenDatabases: 2, CheckpointDir: filepath.Join(dir, "ck")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	// Six closed databases, then the two in use.
	for _, key := range []string{"C0", "C1", "C2", "C3", "C4", "C5", "HOT0", "HOT1"} {
		createTable(t, keyClient(s, key), "notes", "id")
	}
	openNames := func() map[string]bool {
		names := map[string]bool{}
		for _, db := range s.holdOpenDatabases() {
			names[db.name] = true
			s.release(db)
		}
		return names
	}
	want := map[string]bool{"HOT0_us-east-1": true, "HOT1_us-east-1": true}
	if got := openNames(); !maps.Equal(got, want) {
		t.Fatalf("before the checkpoint open: %v", got)
	}
	p, err := s.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if got := openNames(); !maps.Equal(got, want) {
		t.Fatalf("after the checkpoint open: %v, want %v", got, want)
	}
	if m, _ := filepath.Glob(filepath.Join(p, "*", "MANIFEST-*")); len(m) != 8 {
		t.Fatalf("the checkpoint has %d databases, want 8", len(m))
	}
}
