// Package kit is the little shared plumbing of the seed example programs:
// connecting (a given endpoint or an in-process Kura), creating tables and
// waiting for them, attribute-value shorthands, paginated reads, batched
// writes, a DynamoDB Streams reader and answer checks.
package kit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/kura-db/kura/pkg/embed"
)

// Env is what an example runs against.
type Env struct {
	DB       *dynamodb.Client
	Streams  *dynamodbstreams.Client
	Endpoint string
	// Suffix is appended to every table name (empty for a fresh in-process
	// server; a run-unique suffix against a shared endpoint).
	Suffix string
	Out    io.Writer

	tables []string
}

// NewEnv wraps ready clients (for tests and embedders).
func NewEnv(db *dynamodb.Client, streams *dynamodbstreams.Client, endpoint string, out io.Writer) *Env {
	return &Env{DB: db, Streams: streams, Endpoint: endpoint, Out: out}
}

// Main is the whole main function of an example: flags, connection, run,
// cleanup, and a non-zero exit status on any failed check.
func Main(name string, run func(context.Context, *Env) error) {
	endpoint := flag.String("endpoint", "", "DynamoDB-compatible endpoint URL (default: start an in-process Kura)")
	keep := flag.Bool("keep", false, "keep the tables after the run")
	flag.Parse()
	ctx := context.Background()
	env, stop, err := connect(*endpoint)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
	err = run(ctx, env)
	if !*keep {
		if derr := env.DropTables(ctx); derr != nil && err == nil {
			err = derr
		}
	}
	if serr := stop(); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: FAILED: %v\n", name, err)
		os.Exit(1)
	}
	fmt.Fprintf(env.Out, "%s: all checks passed\n", name)
}

func connect(endpoint string) (*Env, func() error, error) {
	if endpoint == "" {
		k, err := embed.New(embed.WithAdmin())
		if err != nil {
			return nil, nil, fmt.Errorf("starting in-process Kura: %w", err)
		}
		fmt.Printf("started in-process Kura at %s\n", k.Endpoint)
		return NewEnv(k.Client, k.Streams, k.Endpoint, os.Stdout), k.Close, nil
	}
	region := regionFromEnv(os.Getenv)
	var creds aws.CredentialsProvider = credentials.NewStaticCredentialsProvider("example", "example", "")
	if id := os.Getenv("AWS_ACCESS_KEY_ID"); id != "" {
		creds = credentials.NewStaticCredentialsProvider(id, os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN"))
	}
	env := NewEnv(
		dynamodb.New(dynamodb.Options{Region: region, BaseEndpoint: aws.String(endpoint), Credentials: creds}),
		dynamodbstreams.New(dynamodbstreams.Options{Region: region, BaseEndpoint: aws.String(endpoint), Credentials: creds}),
		endpoint, os.Stdout)
	env.Suffix = "-" + strconv.FormatInt(time.Now().UnixNano()/1e6%(36*36*36*36*36), 36)
	fmt.Printf("using %s (tables suffixed %q)\n", endpoint, env.Suffix)
	return env, func() error { return nil }, nil
}

// regionFromEnv is the region the AWS SDKs and CLI would use from the
// environment: AWS_REGION, else AWS_DEFAULT_REGION (what the README sets),
// else us-east-1.
func regionFromEnv(getenv func(string) string) string {
	for _, v := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if r := getenv(v); r != "" {
			return r
		}
	}
	return "us-east-1"
}

// Logf prints one line of what the example did.
func (e *Env) Logf(format string, args ...any) {
	fmt.Fprintf(e.Out, "  "+format+"\n", args...)
}

// Step prints a section heading.
func (e *Env) Step(format string, args ...any) {
	fmt.Fprintf(e.Out, "- "+format+"\n", args...)
}

// Table is the name to use for a table the seed calls name.
func (e *Env) Table(name string) string { return name + e.Suffix }

// CreateTable creates a table, waits until it and all its indexes are
// ACTIVE, and remembers it for DropTables.
func (e *Env) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput) (*types.TableDescription, error) {
	if _, err := e.DB.CreateTable(ctx, in); err != nil {
		return nil, fmt.Errorf("CreateTable %s: %w", aws.ToString(in.TableName), err)
	}
	e.tables = append(e.tables, aws.ToString(in.TableName))
	return e.WaitActive(ctx, aws.ToString(in.TableName))
}

// WaitActive polls DescribeTable until the table, its GSIs and its vector
// indexes are ACTIVE.
func (e *Env) WaitActive(ctx context.Context, table string) (*types.TableDescription, error) {
	deadline := time.Now().Add(10 * time.Minute)
	for delay := 20 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		d, err := e.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return nil, fmt.Errorf("DescribeTable %s: %w", table, err)
		}
		ready := d.Table.TableStatus == types.TableStatusActive
		for _, g := range d.Table.GlobalSecondaryIndexes {
			ready = ready && g.IndexStatus == types.IndexStatusActive
		}
		for _, v := range d.Table.VectorIndexes {
			ready = ready && v.IndexStatus == types.IndexStatusActive
		}
		if ready {
			return d.Table, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("table %s not ACTIVE after 10 minutes", table)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// DropTables deletes the tables this run created.
func (e *Env) DropTables(ctx context.Context) error {
	var errs []error
	for _, t := range e.tables {
		if _, err := e.DB.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(t)}); err != nil {
			errs = append(errs, fmt.Errorf("DeleteTable %s: %w", t, err))
		}
	}
	e.tables = nil
	return errors.Join(errs...)
}

// ErrNoAdmin means the server has no /admin/ endpoints (Amazon DynamoDB, or
// Kura without --admin).
var ErrNoAdmin = errors.New("no admin endpoint")

// ExpireTTL asks Kura to run one TTL expiry pass now (POST /admin/ttl/expire)
// and returns how many items it deleted.
func (e *Env) ExpireTTL(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(e.Endpoint, "/")+"/admin/ttl/expire", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusForbidden {
		return 0, ErrNoAdmin
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("POST /admin/ttl/expire: %s: %s", resp.Status, body)
	}
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(body)), `{"Deleted":%d}`, &n); err != nil {
		return 0, fmt.Errorf("POST /admin/ttl/expire: unexpected answer %q", body)
	}
	return n, nil
}
