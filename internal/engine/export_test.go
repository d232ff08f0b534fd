package engine

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/export"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// exportEngine opens an engine whose S3 is a temporary folder with the
// bucket "exports", and a table "exp" (key pk) with point-in-time recovery on.
func exportEngine(t *testing.T) (*Engine, *ctlClock, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "exports"), 0o755); err != nil {
		t.Fatal(err)
	}
	clk := &ctlClock{}
	e, err := Open(memory.New(), Config{Clock: clk, Objects: objstore.Dir{Root: root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ctx := context.Background()
	if _, err := e.CreateTable(ctx, &wire.CreateTableInput{TableName: cpPtr("exp"), BillingMode: BillingPayPerRequest,
		AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: cpPtr("pk"), AttributeType: "S"}},
		KeySchema:            []wire.KeySchemaElement{{AttributeName: cpPtr("pk"), KeyType: "HASH"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.UpdateContinuousBackups(ctx, &wire.UpdateContinuousBackupsInput{TableName: cpPtr("exp"),
		PointInTimeRecoverySpecification: &wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: cpPtr(true)}}); err != nil {
		t.Fatal(err)
	}
	return e, clk, root
}

const exportTableARN = "arn:aws:dynamodb:us-east-1:000000000000:table/exp"

func exportPut(t *testing.T, e *Engine, item attr.Item) {
	t.Helper()
	if _, err := e.PutItem(context.Background(), &wire.PutItemInput{TableName: cpPtr("exp"), Item: item}); err != nil {
		t.Fatal(err)
	}
}

// waitExport polls DescribeExport until the export is no longer
// IN_PROGRESS.
func waitExport(t *testing.T, e *Engine, arn string) *wire.ExportDescription {
	t.Helper()
	for range 500 {
		out, err := e.DescribeExport(context.Background(), &wire.DescribeExportInput{ExportArn: &arn})
		if err != nil {
			t.Fatal(err)
		}
		if out.ExportDescription.ExportStatus != export.InProgress {
			return out.ExportDescription
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("export still IN_PROGRESS")
	return nil
}

// exportedItems reads an export's manifests and data files from root and
// checks their checksums.
func exportedItems(t *testing.T, root string, d *wire.ExportDescription) []string {
	t.Helper()
	bucket := filepath.Join(root, cpDeref(d.S3Bucket))
	read := func(key string) []byte {
		b, err := os.ReadFile(filepath.Join(bucket, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	summaryKey := cpDeref(d.ExportManifest)
	summary := read(summaryKey)
	if sum := md5.Sum(summary); string(read(strings.TrimSuffix(summaryKey, ".json")+".checksum")) != hex.EncodeToString(sum[:]) {
		t.Fatal("manifest-summary.checksum does not match")
	}
	var s struct { // manifest-summary.json
		Version, ExportArn, TableArn, ManifestFilesS3Key, OutputFormat, ExportType string
		ItemCount                                                                  int64
	}
	if err := json.Unmarshal(summary, &s); err != nil {
		t.Fatal(err)
	}
	if s.ExportArn != cpDeref(d.ExportArn) || s.ItemCount != cpDeref(d.ItemCount) || s.OutputFormat != "DYNAMODB_JSON" ||
		s.ExportType != "FULL_EXPORT" || s.Version != "2020-06-30" || s.TableArn != exportTableARN {
		t.Fatalf("manifest-summary.json: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(bucket, filepath.FromSlash(strings.TrimSuffix(summaryKey, "manifest-summary.json")+"_started"))); err != nil {
		t.Fatal("no _started")
	}
	var items []string
	for _, line := range strings.Split(strings.TrimSpace(string(read(s.ManifestFilesS3Key))), "\n") {
		var f struct {
			ItemCount     int64  `json:"itemCount"`
			MD5Checksum   string `json:"md5Checksum"`
			ETag          string `json:"etag"`
			DataFileS3Key string `json:"dataFileS3Key"`
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatal(err)
		}
		data := read(f.DataFileS3Key)
		if sum := md5.Sum(data); f.MD5Checksum != base64.StdEncoding.EncodeToString(sum[:]) || f.ETag != hex.EncodeToString(sum[:]) {
			t.Fatalf("data file checksums %+v", f)
		}
		zr, err := gzip.NewReader(strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		n := int64(0)
		for sc.Scan() {
			items = append(items, sc.Text())
			n++
		}
		if n != f.ItemCount {
			t.Fatalf("itemCount %d, file holds %d", f.ItemCount, n)
		}
	}
	slices.Sort(items)
	return items
}

// TestExportAtTime: a full export holds the table as it was at
// ExportTime (later changes, a delete and a new item left out), in
// DynamoDB's file layout, with consistent checksums and counts.
func TestExportAtTime(t *testing.T) {
	e, clk, root := exportEngine(t)
	ctx := context.Background()
	exportPut(t, e, attr.Item{"pk": dpS("a"), "v": dpN("1")})
	exportPut(t, e, attr.Item{"pk": dpS("b"), "v": dpN("2")})
	clk.advance(time.Minute)
	at := clk.Now()
	clk.advance(time.Minute)
	exportPut(t, e, attr.Item{"pk": dpS("a"), "v": dpN("10")})
	exportPut(t, e, attr.Item{"pk": dpS("c"), "v": dpN("3")})
	if _, err := e.DeleteItem(ctx, &wire.DeleteItemInput{TableName: cpPtr("exp"), Key: attr.Item{"pk": dpS("b")}}); err != nil {
		t.Fatal(err)
	}
	out, err := e.ExportTableToPointInTime(ctx, &wire.ExportTableToPointInTimeInput{TableArn: cpPtr(exportTableARN),
		S3Bucket: cpPtr("exports"), S3Prefix: cpPtr("nightly/"), ExportTime: wire.NewTime(at)})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExportDescription.ExportStatus != export.InProgress || !strings.HasPrefix(cpDeref(out.ExportDescription.ExportArn), exportTableARN+"/export/") {
		t.Fatalf("started export: %+v", out.ExportDescription)
	}
	d := waitExport(t, e, cpDeref(out.ExportDescription.ExportArn))
	if d.ExportStatus != export.Completed || cpDeref(d.ItemCount) != 2 || !strings.HasPrefix(cpDeref(d.ExportManifest), "nightly/AWSDynamoDB/") {
		t.Fatalf("finished export: %+v", d)
	}
	want := []string{`{"Item":{"pk":{"S":"a"},"v":{"N":"1"}}}`, `{"Item":{"pk":{"S":"b"},"v":{"N":"2"}}}`}
	if got := exportedItems(t, root, d); !slices.Equal(got, want) {
		t.Fatalf("exported %q, want %q", got, want)
	}

	// A filter: the key condition, a filter and a projection.
	out, err = e.ExportTableToPointInTime(ctx, &wire.ExportTableToPointInTimeInput{TableArn: cpPtr(exportTableARN), S3Bucket: cpPtr("exports"),
		FilterSpecification: &wire.FilterSpecification{KeyConditionExpression: cpPtr("pk = :a"), FilterExpression: cpPtr("v > :n"),
			ProjectionExpression: cpPtr("v"), ExpressionAttributeValues: attr.Item{":a": dpS("a"), ":n": dpN("5")}}})
	if err != nil {
		t.Fatal(err)
	}
	d = waitExport(t, e, cpDeref(out.ExportDescription.ExportArn))
	if got := exportedItems(t, root, d); !slices.Equal(got, []string{`{"Item":{"v":{"N":"10"}}}`}) {
		t.Fatalf("filtered export %q", got)
	}
}

// TestExportRefusals: no S3, point-in-time recovery off, a time outside
// the window, a formats Kura does not write, a missing bucket (the export
// fails), a ClientToken reused for another export.
func TestExportRefusals(t *testing.T) {
	ctx := context.Background()
	plain, err := Open(memory.New(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	_, err = plain.ExportTableToPointInTime(ctx, &wire.ExportTableToPointInTimeInput{TableArn: cpPtr(exportTableARN), S3Bucket: cpPtr("exports")})
	ctlWantErr(t, err, "ValidationException", "Exports to S3 need an object store: start Kura with --s3-dir or --s3-endpoint")

	e, clk, _ := exportEngine(t)
	start := func(in wire.ExportTableToPointInTimeInput) (*wire.ExportDescription, error) {
		in.TableArn = cpPtr(exportTableARN)
		if in.S3Bucket == nil {
			in.S3Bucket = cpPtr("exports")
		}
		out, err := e.ExportTableToPointInTime(ctx, &in)
		if err != nil {
			return nil, err
		}
		return out.ExportDescription, nil
	}
	_, err = start(wire.ExportTableToPointInTimeInput{ExportFormat: "ION"})
	ctlWantErr(t, err, "ValidationException", "ExportFormat ION is not supported by Kura; use DYNAMODB_JSON")
	_, err = start(wire.ExportTableToPointInTimeInput{ExportTime: wire.NewTime(clk.Now().Add(time.Hour))})
	if err == nil || !strings.Contains(err.Error(), "InvalidExportTimeException") {
		t.Fatalf("a future ExportTime: %v", err)
	}
	d, err := start(wire.ExportTableToPointInTimeInput{S3Bucket: cpPtr("no-such-bucket")})
	if err != nil {
		t.Fatal(err)
	}
	if d = waitExport(t, e, cpDeref(d.ExportArn)); d.ExportStatus != export.Failed || cpDeref(d.FailureCode) != "S3NoSuchBucket" {
		t.Fatalf("export to a missing bucket: %+v", d)
	}
	first, err := start(wire.ExportTableToPointInTimeInput{ClientToken: cpPtr("tok")})
	if err != nil {
		t.Fatal(err)
	}
	again, err := start(wire.ExportTableToPointInTimeInput{ClientToken: cpPtr("tok")})
	if err != nil || cpDeref(again.ExportArn) != cpDeref(first.ExportArn) {
		t.Fatalf("the same ClientToken again: %+v %v", again, err)
	}
	_, err = start(wire.ExportTableToPointInTimeInput{ClientToken: cpPtr("tok"), S3Prefix: cpPtr("other")})
	if err == nil || !strings.Contains(err.Error(), "ExportConflictException") {
		t.Fatalf("a ClientToken reused for another export: %v", err)
	}
	waitExport(t, e, cpDeref(first.ExportArn))

	// ListExports: oldest first, a page at a time.
	page, err := e.ListExports(ctx, &wire.ListExportsInput{MaxResults: cpPtr[int32](1)})
	if err != nil || len(page.ExportSummaries) != 1 || page.NextToken == nil ||
		cpDeref(page.ExportSummaries[0].ExportArn) != cpDeref(d.ExportArn) || page.ExportSummaries[0].ExportStatus != export.Failed {
		t.Fatalf("ListExports page 1: %+v %v", page, err)
	}
	page, err = e.ListExports(ctx, &wire.ListExportsInput{NextToken: page.NextToken, TableArn: cpPtr(exportTableARN)})
	if err != nil || len(page.ExportSummaries) != 1 || page.NextToken != nil || cpDeref(page.ExportSummaries[0].ExportArn) != cpDeref(first.ExportArn) {
		t.Fatalf("ListExports page 2: %+v %v", page, err)
	}
	_, err = e.DescribeExport(ctx, &wire.DescribeExportInput{ExportArn: cpPtr(exportTableARN + "/export/00000000000000-00000000")})
	ctlWantErr(t, err, "ExportNotFoundException", "Export not found: "+exportTableARN+"/export/00000000000000-00000000")

	// Point-in-time recovery off.
	if _, err := e.UpdateContinuousBackups(ctx, &wire.UpdateContinuousBackupsInput{TableName: cpPtr("exp"),
		PointInTimeRecoverySpecification: &wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: cpPtr(false)}}); err != nil {
		t.Fatal(err)
	}
	_, err = start(wire.ExportTableToPointInTimeInput{})
	ctlWantErr(t, err, "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table 'exp'")
}
