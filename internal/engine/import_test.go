package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/imports"
	"github.com/kura-db/kura/internal/wire"
)

// waitImport polls DescribeImport until the import is no longer
// IN_PROGRESS.
func waitImport(t *testing.T, e *Engine, arn string) *wire.ImportTableDescription {
	t.Helper()
	for range 500 {
		out, err := e.DescribeImport(context.Background(), &wire.DescribeImportInput{ImportArn: &arn})
		if err != nil {
			t.Fatal(err)
		}
		if out.ImportTableDescription.ImportStatus != imports.InProgress {
			return out.ImportTableDescription
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("import still IN_PROGRESS")
	return nil
}

func importInput(table, prefix, format, compression string) *wire.ImportTableInput {
	return &wire.ImportTableInput{
		S3BucketSource: &wire.S3BucketSource{S3Bucket: cpPtr("exports"), S3KeyPrefix: cpPtr(prefix)},
		InputFormat:    format, InputCompressionType: compression,
		TableCreationParameters: &wire.TableCreationParameters{TableName: cpPtr(table), BillingMode: BillingPayPerRequest,
			AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: cpPtr("pk"), AttributeType: "S"}},
			KeySchema:            []wire.KeySchemaElement{{AttributeName: cpPtr("pk"), KeyType: "HASH"}}},
	}
}

func tableItems(t *testing.T, e *Engine, table string) []string {
	t.Helper()
	out, err := e.Scan(context.Background(), &wire.ScanInput{TableName: cpPtr(table)})
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for _, it := range out.Items {
		items = append(items, string(attr.AppendItemJSON(nil, it)))
	}
	return items
}

// TestImportFromExport: what an export wrote imports into a new table,
// item for item.
func TestImportFromExport(t *testing.T) {
	e, _, _ := exportEngine(t)
	ctx := context.Background()
	exportPut(t, e, attr.Item{"pk": dpS("a"), "m": {T: attr.M, Map: map[string]attr.Value{"x": dpN("1.5")}}, "b": dpB([]byte{1, 2})})
	exportPut(t, e, attr.Item{"pk": dpS("b"), "l": {T: attr.L, List: []attr.Value{dpS("y")}}})
	out, err := e.ExportTableToPointInTime(ctx, &wire.ExportTableToPointInTimeInput{TableArn: cpPtr(exportTableARN), S3Bucket: cpPtr("exports")})
	if err != nil {
		t.Fatal(err)
	}
	exp := waitExport(t, e, cpDeref(out.ExportDescription.ExportArn))
	data := strings.TrimSuffix(cpDeref(exp.ExportManifest), "manifest-summary.json") + "data/"
	in, err := e.ImportTable(ctx, importInput("imported", data, "DYNAMODB_JSON", "GZIP"))
	if err != nil {
		t.Fatal(err)
	}
	if in.ImportTableDescription.ImportStatus != imports.InProgress {
		t.Fatalf("started import: %+v", in.ImportTableDescription)
	}
	d := waitImport(t, e, cpDeref(in.ImportTableDescription.ImportArn))
	if d.ImportStatus != imports.Completed || cpDeref(d.ImportedItemCount) != 2 || cpDeref(d.ErrorCount) != 0 || cpDeref(d.ProcessedItemCount) != 2 {
		t.Fatalf("import: %s imported %d, errors %d, processed %d", d.ImportStatus, cpDeref(d.ImportedItemCount), cpDeref(d.ErrorCount), cpDeref(d.ProcessedItemCount))
	}
	if got, want := tableItems(t, e, "imported"), tableItems(t, e, "exp"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("imported %v, exported %v", got, want)
	}
	desc, err := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("imported")})
	if err != nil || desc.Table.TableStatus != StatusActive || desc.Table.RestoreSummary != nil {
		t.Fatalf("imported table: %+v %v", desc, err)
	}
}

// writeObjects writes each object (key: content) under the "exports"
// bucket of root.
func writeObjects(t *testing.T, root string, objects map[string][]byte) {
	t.Helper()
	for key, body := range objects {
		p := filepath.Join(root, "exports", filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func zstdBytes(s string) []byte {
	var z bytes.Buffer
	zw, _ := zstd.NewWriter(&z)
	zw.Write([]byte(s))
	zw.Close()
	return z.Bytes()
}

// TestImportCSV: a header line, a delimiter, key attributes typed as
// defined (a GSI's too), other columns strings, ZSTD; a row that cannot
// be an item is counted and ends its object, and the import is FAILED
// with the rest imported.
func TestImportCSV(t *testing.T) {
	e, _, root := exportEngine(t)
	ctx := context.Background()
	writeObjects(t, root, map[string][]byte{
		"csv/part-1.csv.zst": zstdBytes("pk;n;note\na;1;first\nd;4;\"semi;colon\"\n"),
		"csv/part-2.csv.zst": zstdBytes("pk;n;note\nb;x;bad number\ne;5;skipped\n"),
		"csv/part-3.csv.zst": zstdBytes("pk;n;note\nc;3\n"),
	})
	in := importInput("fromcsv", "csv/", "CSV", "ZSTD")
	in.InputFormatOptions = &wire.InputFormatOptions{Csv: &wire.CsvOptions{Delimiter: cpPtr(";")}}
	p := in.TableCreationParameters
	p.AttributeDefinitions = append(p.AttributeDefinitions, wire.AttributeDefinition{AttributeName: cpPtr("n"), AttributeType: "N"})
	p.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: cpPtr("byN"), KeySchema: []wire.KeySchemaElement{{AttributeName: cpPtr("n"), KeyType: "HASH"}},
		Projection: &wire.Projection{ProjectionType: "ALL"}}}
	out, err := e.ImportTable(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	d := waitImport(t, e, cpDeref(out.ImportTableDescription.ImportArn))
	if d.ImportStatus != imports.Failed || cpDeref(d.FailureCode) != imports.ItemValidation ||
		cpDeref(d.ImportedItemCount) != 2 || cpDeref(d.ErrorCount) != 2 || cpDeref(d.ProcessedItemCount) != 4 {
		t.Fatalf("import: %s %s imported %d, errors %d, processed %d", d.ImportStatus, cpDeref(d.FailureCode),
			cpDeref(d.ImportedItemCount), cpDeref(d.ErrorCount), cpDeref(d.ProcessedItemCount))
	}
	got := tableItems(t, e, "fromcsv")
	slices.Sort(got)
	want := []string{`{"n":{"N":"1"},"note":{"S":"first"},"pk":{"S":"a"}}`, `{"n":{"N":"4"},"note":{"S":"semi;colon"},"pk":{"S":"d"}}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("imported:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	q, err := e.Query(ctx, &wire.QueryInput{TableName: cpPtr("fromcsv"), IndexName: cpPtr("byN"),
		KeyConditionExpression: cpPtr("n = :n"), ExpressionAttributeValues: attr.Item{":n": dpN("4")}})
	if err != nil || len(q.Items) != 1 {
		t.Fatalf("the GSI of the imported table: %+v %v", q, err)
	}
}

// TestImportRecords: DYNAMODB_JSON records with or without newlines
// between them; the first record of an object that cannot be imported
// (not JSON, no "Item", a missing key, a mistyped key, an empty attribute
// name, content that does not decompress) is one error and ends its
// object; the import is then FAILED with ItemValidationError and
// DynamoDB's text, its table ACTIVE with what could be imported;
// ProcessedSizeBytes counts the uncompressed bytes.
func TestImportRecords(t *testing.T) {
	e, _, root := exportEngine(t)
	ctx := context.Background()
	good := `{"Item":{"pk":{"S":"n1"}}}` + "\n\n  \n" + `{"Item":{"pk":{"S":"n2"}}}{"Item":{"pk":{"S":"n3"}}}  {"Item":{"pk":{"S":"n4"}}}` + "\n"
	bad := map[string]string{
		"not JSON":          `{"Item": `,
		"no Item":           `{"NotAnItem":{"pk":{"S":"x"}}}`,
		"missing key":       `{"Item":{"other":{"S":"x"}}}`,
		"mistyped key":      `{"Item":{"pk":{"N":"1"}}}`,
		"empty name":        `{"Item":{"pk":{"S":"x"},"":{"S":"v"}}}`,
		"not an object":     `[1,2]`,
		"then good records": `{"Item":{"pk":{"N":"1"}}}` + "\n" + `{"Item":{"pk":{"S":"never"}}}`,
	}
	objects := map[string][]byte{"json/0-good.json": []byte(good)}
	size := int64(len(good))
	i := 0
	for _, body := range bad {
		i++
		objects[fmt.Sprintf("json/%d-bad.json", i)] = []byte(body)
		size += int64(len(body))
	}
	writeObjects(t, root, objects)
	out, err := e.ImportTable(ctx, importInput("records", "json/", "DYNAMODB_JSON", ""))
	if err != nil {
		t.Fatal(err)
	}
	if out.ImportTableDescription.ProcessedSizeBytes != nil {
		t.Fatalf("ProcessedSizeBytes before anything was read: %d", *out.ImportTableDescription.ProcessedSizeBytes)
	}
	d := waitImport(t, e, cpDeref(out.ImportTableDescription.ImportArn))
	if d.ImportStatus != imports.Failed || cpDeref(d.FailureCode) != "ItemValidationError" ||
		cpDeref(d.FailureMessage) != "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details." {
		t.Fatalf("import: %s %s %s", d.ImportStatus, cpDeref(d.FailureCode), cpDeref(d.FailureMessage))
	}
	if cpDeref(d.ImportedItemCount) != 4 || cpDeref(d.ErrorCount) != int64(len(bad)) || cpDeref(d.ProcessedItemCount) != int64(4+len(bad)) ||
		cpDeref(d.ProcessedSizeBytes) != size {
		t.Fatalf("imported %d, errors %d, processed %d, %d bytes (want %d)", cpDeref(d.ImportedItemCount), cpDeref(d.ErrorCount),
			cpDeref(d.ProcessedItemCount), cpDeref(d.ProcessedSizeBytes), size)
	}
	desc, err := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("records")})
	if err != nil || desc.Table.TableStatus != StatusActive {
		t.Fatalf("the table of an import FAILED by its items: %+v %v", desc, err)
	}
	got := tableItems(t, e, "records")
	slices.Sort(got)
	if got := strings.Join(got, " "); got != `{"pk":{"S":"n1"}} {"pk":{"S":"n2"}} {"pk":{"S":"n3"}} {"pk":{"S":"n4"}}` {
		t.Fatalf("imported %s", got)
	}

	// GZIP named for content that is not gzip: one error, FAILED the same way.
	writeObjects(t, root, map[string][]byte{"plain/data.json": []byte(good)})
	out, err = e.ImportTable(ctx, importInput("notgzip", "plain/", "DYNAMODB_JSON", "GZIP"))
	if err != nil {
		t.Fatal(err)
	}
	d = waitImport(t, e, cpDeref(out.ImportTableDescription.ImportArn))
	if d.ImportStatus != imports.Failed || cpDeref(d.FailureCode) != "ItemValidationError" || cpDeref(d.ErrorCount) != 1 ||
		cpDeref(d.ProcessedItemCount) != 1 || cpDeref(d.ImportedItemCount) != 0 {
		t.Fatalf("GZIP on plain content: %s %s errors %d processed %d", d.ImportStatus, cpDeref(d.FailureCode), cpDeref(d.ErrorCount), cpDeref(d.ProcessedItemCount))
	}
}

// TestImportRefusals: ION, a table that exists, a missing bucket (the
// import fails and its table goes), a ClientToken reused.
func TestImportRefusals(t *testing.T) {
	e, _, _ := exportEngine(t)
	ctx := context.Background()
	_, err := e.ImportTable(ctx, importInput("ion", "", "ION", ""))
	ctlWantErr(t, err, "ValidationException", "InputFormat ION is not supported by Kura; use DYNAMODB_JSON or CSV")
	_, err = e.ImportTable(ctx, importInput("exp", "", "DYNAMODB_JSON", ""))
	ctlWantErr(t, err, "ResourceInUseException", "Table already exists: exp")
	in := importInput("nobucket", "", "DYNAMODB_JSON", "")
	in.S3BucketSource.S3Bucket = cpPtr("no-such-bucket")
	in.ClientToken = cpPtr("tok")
	out, err := e.ImportTable(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	d := waitImport(t, e, cpDeref(out.ImportTableDescription.ImportArn))
	if d.ImportStatus != imports.Failed || cpDeref(d.FailureCode) != "S3NoSuchBucket" {
		t.Fatalf("import from a missing bucket: %+v", d)
	}
	if desc, err := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("nobucket")}); err == nil && desc.Table.TableStatus != StatusDeleting {
		t.Fatalf("the failed import's table: %+v", desc.Table)
	}
	again, err := e.ImportTable(ctx, in)
	if err != nil || cpDeref(again.ImportTableDescription.ImportArn) != cpDeref(d.ImportArn) {
		t.Fatalf("the same ClientToken again: %+v %v", again, err)
	}
	in.TableCreationParameters.TableName = cpPtr("other")
	_, err = e.ImportTable(ctx, in)
	if err == nil || !strings.Contains(err.Error(), "IdempotentParameterMismatchException") {
		t.Fatalf("a ClientToken reused for another import: %v", err)
	}
	list, err := e.ListImports(ctx, &wire.ListImportsInput{})
	if err != nil || len(list.ImportSummaryList) != 1 || list.ImportSummaryList[0].ImportStatus != imports.Failed {
		t.Fatalf("ListImports: %+v %v", list, err)
	}
}
