package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ExportTableToPointInTime and ImportTable through the Go SDK, with
// --s3-dir standing in for S3: the export runs, its files are where
// DynamoDB puts them and hold the table's items, they import into a new
// table, and the records survive a restart.
func TestExportToS3Dir(t *testing.T) {
	s3 := t.TempDir()
	if err := os.Mkdir(filepath.Join(s3, "backups"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	k := startKura(t, "--data-dir", data, "--s3-dir", s3)
	c := k.client()
	name := createTable(t, c, "pk", "", "")
	if _, err := c.UpdateContinuousBackups(bg, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"a", "b", "c"} {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{"pk": S(pk)}}); err != nil {
			t.Fatal(err)
		}
	}
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
	out, err := c.ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("backups"), S3Prefix: aws.String("daily")})
	if err != nil {
		t.Fatal(err)
	}
	exportARN := aws.ToString(out.ExportDescription.ExportArn)
	d := waitExportDone(t, c, exportARN)
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != 3 || d.ExportFormat != types.ExportFormatDynamodbJson {
		t.Fatalf("export: %+v", d)
	}

	// The data files, found through the manifests as a reader of a
	// DynamoDB export finds them.
	bucket := filepath.Join(s3, "backups")
	var summary struct {
		ManifestFilesS3Key string `json:"manifestFilesS3Key"`
		ItemCount          int    `json:"itemCount"`
	}
	readJSON(t, filepath.Join(bucket, aws.ToString(d.ExportManifest)), &summary)
	var file struct {
		DataFileS3Key string `json:"dataFileS3Key"`
	}
	readJSON(t, filepath.Join(bucket, summary.ManifestFilesS3Key), &file)
	f, err := os.Open(filepath.Join(bucket, file.DataFileS3Key))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if keys := exportedKeys(t, f); !slices.Equal(keys, []string{"a", "b", "c"}) || summary.ItemCount != 3 {
		t.Fatalf("exported keys %v, summary itemCount %d", keys, summary.ItemCount)
	}

	// The export's data files import into a new table.
	imported := uniqueTable("imported")
	imp, err := c.ImportTable(bg, &dynamodb.ImportTableInput{
		InputFormat: types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("backups"), S3KeyPrefix: aws.String(filepath.Dir(file.DataFileS3Key) + "/")},
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String(imported), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := waitImportDone(t, c, aws.ToString(imp.ImportTableDescription.ImportArn))
	if id.ImportStatus != types.ImportStatusCompleted || id.ImportedItemCount != 3 {
		t.Fatalf("import: %+v", id)
	}
	if scan, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(imported)}); err != nil || scan.Count != 3 {
		t.Fatalf("the imported table: %+v %v", scan, err)
	}

	// After a restart the export and the import are still described and listed.
	k.stop()
	c = startKura(t, "--data-dir", data, "--s3-dir", s3).client()
	got, err := c.DescribeExport(bg, &dynamodb.DescribeExportInput{ExportArn: aws.String(exportARN)})
	if err != nil || got.ExportDescription.ExportStatus != types.ExportStatusCompleted {
		t.Fatalf("after a restart: %+v %v", got, err)
	}
	list, err := c.ListExports(bg, &dynamodb.ListExportsInput{TableArn: aws.String(arn)})
	if err != nil || len(list.ExportSummaries) != 1 || aws.ToString(list.ExportSummaries[0].ExportArn) != exportARN {
		t.Fatalf("ListExports: %+v %v", list, err)
	}
	imports, err := c.ListImports(bg, &dynamodb.ListImportsInput{})
	if err != nil || len(imports.ImportSummaryList) != 1 || imports.ImportSummaryList[0].ImportStatus != types.ImportStatusCompleted {
		t.Fatalf("ListImports: %+v %v", imports, err)
	}

	// Without --s3-dir there is nowhere to write.
	_, err = ddb().ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("backups")})
	wantAPIError(t, err, "ValidationException", "Exports to S3 need an object store: start Kura with --s3-dir or --s3-endpoint")
}

// readJSON decodes the first JSON value of the file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := json.NewDecoder(f).Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
