package test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// twoRegions checks, through clients for us-east-1 and eu-west-1 of one
// Kura started with --regions, that each region has its own tables: the
// same table name in both, each with its region's ARN and stream ARN, its
// own items and ListTables; and that a region not served is refused as
// DynamoDB's endpoint refuses a request signed for another region.
func twoRegions(t *testing.T, east, west, other *dynamodb.Client) {
	t.Helper()
	ed := createNotes(t, east, "east")
	wd := createNotes(t, west, "west")
	if !strings.HasPrefix(aws.ToString(ed.TableArn), "arn:aws:dynamodb:us-east-1:") ||
		!strings.HasPrefix(aws.ToString(wd.TableArn), "arn:aws:dynamodb:eu-west-1:") {
		t.Fatalf("ARNs: %s, %s", aws.ToString(ed.TableArn), aws.ToString(wd.TableArn))
	}
	if got := ownerOf(t, east); got != "east" {
		t.Fatalf("us-east-1 item: %q", got)
	}
	if got := ownerOf(t, west); got != "west" {
		t.Fatalf("eu-west-1 item: %q", got)
	}
	us, err := west.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String("Notes"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatalf("eu-west-1 UpdateTable: %v", err)
	}
	if arn := aws.ToString(us.TableDescription.LatestStreamArn); !strings.HasPrefix(arn, "arn:aws:dynamodb:eu-west-1:") {
		t.Fatalf("eu-west-1 stream ARN: %s", arn)
	}
	d, err := east.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Notes")})
	if err != nil || d.Table.StreamSpecification != nil {
		t.Fatalf("us-east-1 table after eu-west-1's stream was enabled: %v %+v", err, d)
	}
	if _, err := east.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String("Notes")}); err != nil {
		t.Fatalf("us-east-1 DeleteTable: %v", err)
	}
	lt, err := west.ListTables(bg, &dynamodb.ListTablesInput{})
	if err != nil || len(lt.TableNames) != 1 || lt.TableNames[0] != "Notes" {
		t.Fatalf("eu-west-1 ListTables after us-east-1's table went: %v %+v", err, lt)
	}
	_, err = other.ListTables(bg, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "InvalidSignatureException", "Credential should be scoped to a valid region, not 'ap-south-1'. ")
}

func TestRegions(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--regions", "us-east-1,eu-west-1"}
	k := startKura(t, args...)
	twoRegions(t, keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1"), keyClient(k, "AKID", "ap-south-1"))

	// An unsigned request belongs to the home region (the first listed).
	_, raw := rawPost(t, k.endpoint, "ListTables", strings.NewReader(`{}`))
	var lt struct{ TableNames []string }
	if err := json.Unmarshal(raw, &lt); err != nil || len(lt.TableNames) != 0 {
		t.Fatalf("unsigned ListTables: %s", raw)
	}
	// Each region's tables survive a restart.
	k.stop()
	k = startKura(t, args...)
	if got := ownerOf(t, keyClient(k, "AKID", "eu-west-1")); got != "west" {
		t.Fatalf("eu-west-1 item after a restart: %q", got)
	}
	lt2, err := keyClient(k, "AKID", "us-east-1").ListTables(bg, &dynamodb.ListTablesInput{})
	if err != nil || len(lt2.TableNames) != 0 {
		t.Fatalf("us-east-1 ListTables after a restart: %v %+v", err, lt2)
	}
}

// With authentication on, the region is part of the signature: keys sign
// for any served region, and one for a region not served is refused at the
// scope check.
func TestRegionsWithAuthentication(t *testing.T) {
	k := startKura(t, "--in-memory", "--regions", "eu-west-1,us-east-1", "--credentials", "AKID:secret")
	twoRegions(t, keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1"), keyClient(k, "AKID", "ap-south-1"))
}

// With --shared-db=false each access key has a database per served
// region; other regions are refused as without it.
func TestRegionsPerKey(t *testing.T) {
	k := startKura(t, "--data-dir", t.TempDir(), "--shared-db=false", "--regions", "us-east-1,eu-west-1")
	twoRegions(t, keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1"), keyClient(k, "AKID", "ap-south-1"))
	lt, err := keyClient(k, "OTHER", "eu-west-1").ListTables(bg, &dynamodb.ListTablesInput{})
	if err != nil || len(lt.TableNames) != 0 {
		t.Fatalf("another key's eu-west-1: %v %+v", err, lt)
	}

	// Each key has global tables of its own (TestGlobalTablesPerKey); the
	// checks DynamoDB makes first (the table exists, the region is not its
	// own) as with shared databases.
	east := keyClient(k, "AKID", "us-east-1")
	streamTable(t, east, "PerKeyGlobal")
	for _, c := range []struct{ table, region, typ, msg string }{
		{"Missing", "eu-west-1", "ResourceNotFoundException", "Requested resource not found: Table: Missing not found"},
		{"PerKeyGlobal", "us-east-1", "ValidationException", "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."},
	} {
		_, err = addReplica(east, c.table, c.region)
		wantAPIError(t, err, c.typ, c.msg)
	}
}

// --region must be one of --regions.
func TestRegionsHomeRegionListed(t *testing.T) {
	k, err := startKuraErr("--in-memory", "--regions", "eu-west-1", "--region", "us-east-1")
	if err == nil {
		k.stop()
		t.Fatal("started with a home region not among --regions")
	}
	if !strings.Contains(err.Error(), "--regions: the home region --region us-east-1") {
		t.Fatalf("error: %v", err)
	}
}
