package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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
	for auth, want := range map[string][2]string{
		"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x": {"AKIDEXAMPLE_us-east-1", "us-east-1"},
		"AWS4-HMAC-SHA256 Credential=../../etc/20261130/eu-west-1/dynamodb/aws4_request":                                    {"%2E%2E_etc", "etc"}, // never a path
		"AWS4-HMAC-SHA256 Credential=a b/20261130/r/dynamodb/aws4_request":                                                  {"a%20b_r", "r"},
		"":                     {"shared", "xx-home-1"},
		"Basic dXNlcjpwYXNz":   {"shared", "xx-home-1"},
		"Credential=onlykey/x": {"shared", "xx-home-1"},
	} {
		if name, region := credentialKey(auth, "xx-home-1"); name != want[0] || region != want[1] {
			t.Errorf("credentialKey(%q) = %q, %q, want %q", auth, name, region, want)
		}
	}
}

// Folder names are injective (the old mapping gave "a%2Fb" and "a_2Fb"
// one folder), keep the old name of plain keys, and parse back.
func TestFolderNames(t *testing.T) {
	pairs := [][2]string{
		{"a%2Fb", "us-east-1"}, {"a_2Fb", "us-east-1"}, {"a", "b_c"}, {"a_b", "c"}, {"a", "%5F"}, {"a_", "5F"},
		{"AKIDEXAMPLE", "us-east-1"}, {"x.y", "r"}, {"x/y", "r"}, {strings.Repeat("k", 128), "eu-west-1"},
		{strings.Repeat("/", 128), "eu-west-1"}, {strings.Repeat("/", 128), "eu-west-2"}, {"shared", ""}, {"", ""},
	}
	seen := map[string][2]string{}
	for _, p := range pairs {
		name := folderName(p[0], p[1])
		if other, dup := seen[name]; dup {
			t.Errorf("%q and %q share the folder %q", p, other, name)
		}
		seen[name] = p
		if name == sharedKey || strings.ContainsAny(name, "/.\\") || len(name) > maxFolderName {
			t.Errorf("folderName(%q) = %q", p, name)
		}
		if a, r, ok := parseFolderName(name); ok && (a != p[0] || r != p[1]) || !ok && !strings.HasPrefix(name, "sha256-") {
			t.Errorf("parseFolderName(%q) = %q, %q, %v", name, a, r, ok)
		}
		if !isDatabaseFolder(name) {
			t.Errorf("%q is not taken for a database folder", name)
		}
	}
	if got := folderName("AKIDEXAMPLE", "us-east-1"); got != legacyFolderName("AKIDEXAMPLE", "us-east-1") || got != "AKIDEXAMPLE_us-east-1" {
		t.Errorf("a plain key's folder is %q", got)
	}
	for _, bad := range []string{"a_b_c", "a%2", "a%zz_r", "a%41_r", "backups.old"} {
		if _, _, ok := parseFolderName(bad); ok {
			t.Errorf("parseFolderName(%q) accepted", bad)
		}
	}
}

// A database an older Kura kept under the lossy name of a key with other
// characters than letters, digits and '-' is found under its new name.
func TestLegacyFolderAdopted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Config{DataDir: dir, PerCredential: true}
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint()),
		Credentials: credentials.NewStaticCredentialsProvider("fake_key", "secret", ""),
	})
	createTable(t, c, "orders", "id")
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	// What an older Kura named it.
	if err := os.Rename(filepath.Join(dir, "fake%5Fkey_us-east-1"), filepath.Join(dir, "fake_key_us-east-1")); err != nil {
		t.Fatal(err)
	}
	if s, err = Start(cfg); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	c = dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint()),
		Credentials: credentials.NewStaticCredentialsProvider("fake_key", "secret", ""),
	})
	out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 1 {
		t.Fatalf("after the upgrade the key sees %v (%v)", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "fake%5Fkey_us-east-1", "kura.pid")); err == nil {
		t.Fatal("a lock file inside a database folder")
	}
	if _, err := os.Stat(filepath.Join(dir, "fake_key_us-east-1")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the old folder is still there (%v)", err)
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
