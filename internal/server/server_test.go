package server

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// createTable creates an on-demand table keyed by the string attribute
// key through c.
func createTable(t *testing.T, c *dynamodb.Client, name, key string) {
	t.Helper()
	if _, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(key), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(key), KeyType: types.KeyTypeHash}},
	}); err != nil {
		t.Fatal(err)
	}
}

func TestCredentialKey(t *testing.T) {
	for auth, want := range map[string]string{
		"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x": "AKIDEXAMPLE_us-east-1",
		"AWS4-HMAC-SHA256 Credential=../../etc/20261130/eu-west-1/dynamodb/aws4_request":                                    "___etc", // never a path
		"AWS4-HMAC-SHA256 Credential=a b/20261130/r/dynamodb/aws4_request":                                                  "a_b_r",
		"":                     "shared",
		"Basic dXNlcjpwYXNz":   "shared",
		"Credential=onlykey/x": "shared",
	} {
		if got := credentialKey(auth); got != want {
			t.Errorf("credentialKey(%q) = %q, want %q", auth, got, want)
		}
	}
}

// With PerCredential, each access key and region sees its own tables, and
// they persist in their own folders.
func TestPerCredentialDatabases(t *testing.T) {
	testPerCredentialDatabases(t, Config{DataDir: t.TempDir(), PerCredential: true, Sync: true})
}

// testPerCredentialDatabases checks per-credential databases on the storage
// cfg names (server_tikv_test.go runs it on TiKV).
func testPerCredentialDatabases(t *testing.T, cfg Config) {
	ctx := context.Background()
	start := func() *Server {
		s, err := Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	client := func(s *Server, key, region string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{
			Region: region, BaseEndpoint: aws.String(s.Endpoint()),
			Credentials: credentials.NewStaticCredentialsProvider(key, "secret", ""),
		})
	}
	tables := func(c *dynamodb.Client) []string {
		out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err != nil {
			t.Fatal(err)
		}
		return out.TableNames
	}
	s := start()
	alice := client(s, "ALICE", "us-east-1")
	createTable(t, alice, "orders", "id")
	if got := tables(client(s, "BOB", "us-east-1")); len(got) != 0 {
		t.Fatalf("BOB sees ALICE's tables: %v", got)
	}
	if got := tables(client(s, "ALICE", "eu-west-1")); len(got) != 0 {
		t.Fatalf("another region sees the table: %v", got)
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	s = start()
	defer s.Shutdown(ctx)
	if got := tables(client(s, "ALICE", "us-east-1")); len(got) != 1 || got[0] != "orders" {
		t.Fatalf("after restart ALICE sees %v", got)
	}
}
