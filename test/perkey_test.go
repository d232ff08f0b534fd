package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyHTTP is the connection pool of every keyClient: a pool per client
// would keep a connection per key open on the server.
var keyHTTP = memBodyClient{awshttp.NewBuildableClient()}

// keyClient is a client of k signing with access key id in region.
func keyClient(k *kura, id, region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(k.endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(id, "secret", ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   keyHTTP,
	})
}

// createNotes creates table Notes through c and writes one item, whose
// owner is who.
func createNotes(t *testing.T, c *dynamodb.Client, who string) *types.TableDescription {
	t.Helper()
	out, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String("Notes"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatalf("%s: CreateTable: %v", who, err)
	}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Notes"),
		Item: map[string]types.AttributeValue{"id": S("1"), "owner": S(who)}}); err != nil {
		t.Fatalf("%s: PutItem: %v", who, err)
	}
	return out.TableDescription
}

// ownerOf reads the item createNotes wrote through c.
func ownerOf(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	out, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("Notes"), Key: map[string]types.AttributeValue{"id": S("1")}})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	if s, ok := out.Item["owner"].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// With --shared-db=false and a low limit on open files, Kura closes idle
// per-key databases and reopens them on demand: 200 keys each get their
// own database (the issue: clients got InternalServerError after about
// 120 keys, and Pebble panicked on "too many open files").
func TestPerKeyDatabasesUnderLowFileLimit(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
	if onStore {
		t.Skip("the TiKV and PostgreSQL backends keep no files per database")
	}
	dir := t.TempDir()
	// A soft limit of 128, which Kura raises to the hard 256.
	k, err := startKuraUnder([]string{prlimit, "--nofile=128:256", "--"}, "--data-dir", dir, "--shared-db=false")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.stop)
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", k.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`Max open files +256 +256 `).Match(limits) {
		t.Fatalf("limits:\n%s", limits)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(k.log.String())
		}
	})
	const keys = 200
	for i := range keys {
		id := fmt.Sprintf("KEY%03d", i)
		createNotes(t, keyClient(k, id, "us-east-1"), id)
	}
	for _, i := range []int{0, 1, 99, 199} {
		id := fmt.Sprintf("KEY%03d", i)
		if got := ownerOf(t, keyClient(k, id, "us-east-1")); got != id {
			t.Fatalf("%s reads the item of %q", id, got)
		}
	}
	k.stop()
	if log := k.log.String(); strings.Contains(log, "panic") || strings.Contains(log, "too many open files") {
		t.Fatalf("server log:\n%s", log)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if m, _ := filepath.Glob(filepath.Join(dir, e.Name(), "MANIFEST-*")); e.IsDir() && len(m) > 0 {
			n++
		}
	}
	if n != keys {
		t.Fatalf("%d database folders, want %d", n, keys)
	}
}

// With --shared-db=false a table's ARN names the region of the request
// that created it (the issue: us-east-1 whatever the request's region).
func TestPerKeyDatabaseARNRegion(t *testing.T) {
	k := startKura(t, "--in-memory", "--shared-db=false")
	d := createNotes(t, keyClient(k, "ALICE", "eu-west-1"), "ALICE")
	if want := "arn:aws:dynamodb:eu-west-1:000000000000:table/Notes"; aws.ToString(d.TableArn) != want {
		t.Fatalf("TableArn %s, want %s", aws.ToString(d.TableArn), want)
	}
	d = createNotes(t, keyClient(k, "ALICE", "ap-south-1"), "ALICE")
	if want := "arn:aws:dynamodb:ap-south-1:000000000000:table/Notes"; aws.ToString(d.TableArn) != want {
		t.Fatalf("TableArn %s, want %s", aws.ToString(d.TableArn), want)
	}
}
