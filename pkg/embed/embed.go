// Package embed runs Kura inside a Go program or test: a real server on a
// random loopback port, in memory or on a directory, with ready-made AWS SDK
// clients. Each call starts its own isolated database.
//
//	func TestOrders(t *testing.T) {
//		k := embed.Start(t)                 // in memory, stopped when t ends
//		_, err := k.Client.CreateTable(ctx, &dynamodb.CreateTableInput{...})
//		...
//	}
//
// Use embed.Start(t, embed.WithDataDir(t.TempDir())) for a durable store, or
// embed.New(...) outside tests (then call Close).
package embed

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/kura-db/kura/internal/server"
)

// Kura is a running embedded server.
type Kura struct {
	// Endpoint is the server's URL (http://127.0.0.1:PORT).
	Endpoint string
	// Client is a DynamoDB client for Endpoint (static dummy credentials,
	// region us-east-1 unless WithRegion was given).
	Client *dynamodb.Client
	// Streams is a DynamoDB Streams client for Endpoint.
	Streams *dynamodbstreams.Client

	srv *server.Server
}

// Option configures an embedded server.
type Option func(*server.Config)

// WithDataDir stores data durably in dir instead of memory.
func WithDataDir(dir string) Option {
	return func(c *server.Config) { c.InMemory, c.DataDir, c.Sync = false, dir, true }
}

// WithRegion sets the region used in ARNs and by the clients.
func WithRegion(region string) Option { return func(c *server.Config) { c.Region = region } }

// WithAdmin enables the /admin/ endpoints (run TTL expiry now, advance the clock).
func WithAdmin() Option { return func(c *server.Config) { c.Admin = true } }

// WithTTLInterval runs the background TTL expirer at this period (default off).
func WithTTLInterval(d time.Duration) Option {
	return func(c *server.Config) { c.TTLInterval = d }
}

// New starts a server; call Close when done.
func New(opts ...Option) (*Kura, error) {
	cfg := server.Config{InMemory: true, Region: "us-east-1"}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := server.Start(cfg)
	if err != nil {
		return nil, err
	}
	creds := credentials.NewStaticCredentialsProvider("embedded", "embedded", "")
	return &Kura{
		Endpoint: srv.Endpoint(),
		Client: dynamodb.New(dynamodb.Options{
			Region: cfg.Region, BaseEndpoint: aws.String(srv.Endpoint()), Credentials: creds,
		}),
		Streams: dynamodbstreams.New(dynamodbstreams.Options{
			Region: cfg.Region, BaseEndpoint: aws.String(srv.Endpoint()), Credentials: creds,
		}),
		srv: srv,
	}, nil
}

// Start starts a server for the test and stops it when the test ends.
func Start(t testing.TB, opts ...Option) *Kura {
	t.Helper()
	k, err := New(opts...)
	if err != nil {
		t.Fatalf("starting embedded kura: %v", err)
	}
	t.Cleanup(func() {
		if err := k.Close(); err != nil {
			t.Errorf("stopping embedded kura: %v", err)
		}
	})
	return k
}

// Close stops the server: in-flight requests finish, storage closes cleanly.
func (k *Kura) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return k.srv.Shutdown(ctx)
}
