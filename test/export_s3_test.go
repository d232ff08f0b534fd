package test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/objstore/objstoretest"
)

// s3Env is an S3-compatible server for a test (SeaweedFS in CI), a client
// of it, and a bucket made for the test.
type s3Env struct {
	endpoint string
	client   *s3.Client
	bucket   string
}

func newS3Env(t *testing.T) s3Env {
	t.Helper()
	ep := objstoretest.Endpoint(t) // sets the AWS_* credentials Kura's SDK chain finds
	st, err := objstore.NewS3(bg, objstore.S3Config{Endpoint: ep, PathStyle: true, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	env := s3Env{endpoint: ep, client: st.Client(), bucket: objstoretest.BucketName()}
	if _, err := env.client.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String(env.bucket)}); err != nil {
		t.Fatal(err)
	}
	return env
}

func (s s3Env) get(t *testing.T, key string) []byte {
	t.Helper()
	out, err := s.client.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("GetObject %s: %v", key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (s s3Env) put(t *testing.T, key, body string) {
	t.Helper()
	if _, err := s.client.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
		t.Fatalf("PutObject %s: %v", key, err)
	}
}

// exportFile is a data file of an export, as manifest-files.json lists it.
type exportFile struct {
	DataFileS3Key string `json:"dataFileS3Key"`
	ETag          string `json:"etag"`
}

// dataFile checks the export COMPLETED with items items and returns its
// data file, found through the manifests as a reader of a DynamoDB export
// finds it, and the file's size; the manifest's etag must be S3's.
func (s s3Env) dataFile(t *testing.T, d *types.ExportDescription, items int64) (exportFile, int64) {
	t.Helper()
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != items {
		t.Fatalf("export: %s %s %s, %d items", d.ExportStatus, aws.ToString(d.FailureCode), aws.ToString(d.FailureMessage), aws.ToInt64(d.ItemCount))
	}
	var summary struct {
		ManifestFilesS3Key string `json:"manifestFilesS3Key"`
	}
	if err := json.Unmarshal(s.get(t, aws.ToString(d.ExportManifest)), &summary); err != nil {
		t.Fatal(err)
	}
	var file exportFile
	if err := json.Unmarshal(s.get(t, summary.ManifestFilesS3Key), &file); err != nil {
		t.Fatal(err)
	}
	head, err := s.client.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(file.DataFileS3Key)})
	if err != nil || strings.Trim(aws.ToString(head.ETag), `"`) != file.ETag {
		t.Fatalf("the data file's ETag %v, the manifest's %q: %v", head, file.ETag, err)
	}
	return file, aws.ToInt64(head.ContentLength)
}

// waitExportDone polls DescribeExport until the export is no longer
// IN_PROGRESS.
func waitExportDone(t *testing.T, c *dynamodb.Client, arn string) *types.ExportDescription {
	t.Helper()
	return waitExportWithin(t, c, arn, 30*time.Second)
}

func waitExportWithin(t *testing.T, c *dynamodb.Client, arn string, within time.Duration) *types.ExportDescription {
	t.Helper()
	return waitJobFor(t, within, func() (*types.ExportDescription, bool, error) {
		got, err := c.DescribeExport(bg, &dynamodb.DescribeExportInput{ExportArn: aws.String(arn)})
		if err != nil {
			return nil, false, err
		}
		return got.ExportDescription, got.ExportDescription.ExportStatus != types.ExportStatusInProgress, nil
	})
}

// waitImportDone polls DescribeImport until the import is no longer
// IN_PROGRESS.
func waitImportDone(t *testing.T, c *dynamodb.Client, arn string) *types.ImportTableDescription {
	t.Helper()
	return waitImportWithin(t, c, arn, 30*time.Second)
}

func waitImportWithin(t *testing.T, c *dynamodb.Client, arn string, within time.Duration) *types.ImportTableDescription {
	t.Helper()
	return waitJobFor(t, within, func() (*types.ImportTableDescription, bool, error) {
		got, err := c.DescribeImport(bg, &dynamodb.DescribeImportInput{ImportArn: aws.String(arn)})
		if err != nil {
			return nil, false, err
		}
		return got.ImportTableDescription, got.ImportTableDescription.ImportStatus != types.ImportStatusInProgress, nil
	})
}

// waitJobFor polls describe until it reports the job done (or within
// passes).
func waitJobFor[D any](t *testing.T, within time.Duration, describe func() (D, bool, error)) D {
	t.Helper()
	for end := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		d, done, err := describe()
		if err != nil {
			t.Fatal(err)
		}
		if done || time.Now().After(end) {
			return d
		}
	}
}

// exportedKeys is the sorted "pk" strings of an export's gzip data file.
func exportedKeys(t *testing.T, r io.Reader) []string {
	t.Helper()
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for sc := bufio.NewScanner(zr); sc.Scan(); {
		var line struct{ Item map[string]map[string]string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, line.Item["pk"]["S"])
	}
	slices.Sort(keys)
	return keys
}

func pitrTable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	name := createTable(t, c, "pk", "", "")
	if _, err := c.UpdateContinuousBackups(bg, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	return name
}

func importFrom(t *testing.T, c *dynamodb.Client, bucket, prefix string, compression types.InputCompressionType) (string, string) {
	t.Helper()
	table := uniqueTable("imported")
	out, err := c.ImportTable(bg, &dynamodb.ImportTableInput{
		InputFormat: types.InputFormatDynamodbJson, InputCompressionType: compression,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String(bucket), S3KeyPrefix: aws.String(prefix)},
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return table, aws.ToString(out.ImportTableDescription.ImportArn)
}

// ExportTableToPointInTime and ImportTable against a real S3-compatible
// server through --s3-endpoint: the export's files are in the bucket in
// DynamoDB's layout (the manifest's etag is S3's), they import back, a
// missing bucket fails both with DynamoDB's code and text, and records
// S3 holds without newlines between them import.
func TestExportImportS3(t *testing.T) {
	env := newS3Env(t)
	c := startKura(t, "--in-memory", "--s3-endpoint", env.endpoint, "--s3-path-style").client()
	name := pitrTable(t, c)
	for _, pk := range []string{"a", "b", "c"} {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
			"pk": S(pk), "pad": S(strings.Repeat(pk, 1000))}}); err != nil {
			t.Fatal(err)
		}
	}
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
	out, err := c.ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn),
		S3Bucket: aws.String(env.bucket), S3Prefix: aws.String("nightly")})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExportDone(t, c, aws.ToString(out.ExportDescription.ExportArn))
	file, _ := env.dataFile(t, d, 3)
	if keys := exportedKeys(t, bytes.NewReader(env.get(t, file.DataFileS3Key))); !slices.Equal(keys, []string{"a", "b", "c"}) {
		t.Fatalf("exported keys %v", keys)
	}

	// The data files import back from S3.
	imported, importARN := importFrom(t, c, env.bucket, path.Dir(file.DataFileS3Key)+"/", types.InputCompressionTypeGzip)
	if id := waitImportDone(t, c, importARN); id.ImportStatus != types.ImportStatusCompleted || id.ImportedItemCount != 3 {
		t.Fatalf("import: %s %s", id.ImportStatus, aws.ToString(id.FailureMessage))
	}
	if scan, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(imported)}); err != nil || scan.Count != 3 {
		t.Fatalf("the imported table: %+v %v", scan, err)
	}

	// A bucket that does not exist: DynamoDB's code, and S3's text with
	// where it came from.
	const noBucket = "The specified bucket does not exist (Service: Amazon S3; Status Code: 404; Error Code: NoSuchBucket; Request ID: "
	out, err = c.ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("kura-no-such-bucket")})
	if err != nil {
		t.Fatal(err)
	}
	d = waitExportDone(t, c, aws.ToString(out.ExportDescription.ExportArn))
	if d.ExportStatus != types.ExportStatusFailed || aws.ToString(d.FailureCode) != "S3NoSuchBucket" || !strings.HasPrefix(aws.ToString(d.FailureMessage), noBucket) {
		t.Fatalf("export to a missing bucket: %s %s %s", d.ExportStatus, aws.ToString(d.FailureCode), aws.ToString(d.FailureMessage))
	}
	gone, importARN := importFrom(t, c, "kura-no-such-bucket", "", types.InputCompressionTypeNone)
	id := waitImportDone(t, c, importARN)
	if id.ImportStatus != types.ImportStatusFailed || aws.ToString(id.FailureCode) != "S3NoSuchBucket" || !strings.HasPrefix(aws.ToString(id.FailureMessage), noBucket) {
		t.Fatalf("import from a missing bucket: %s %s %s", id.ImportStatus, aws.ToString(id.FailureCode), aws.ToString(id.FailureMessage))
	}
	if _, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(gone)}); err == nil {
		t.Fatal("the table of an import from a missing bucket exists")
	}

	// Records without newlines between them, and an object whose record
	// cannot be read: FAILED with ItemValidationError, the table kept.
	env.put(t, "mixed/1.json", `{"Item":{"pk":{"S":"x"}}}{"Item":{"pk":{"S":"y"}}}`+"\n"+`{"Item":{"pk":{"S":"z"}}}`)
	env.put(t, "mixed/2.json", `{"pk":{"S":"no Item"}}`+"\n"+`{"Item":{"pk":{"S":"skipped"}}}`)
	mixed, importARN := importFrom(t, c, env.bucket, "mixed/", types.InputCompressionTypeNone)
	id = waitImportDone(t, c, importARN)
	if id.ImportStatus != types.ImportStatusFailed || aws.ToString(id.FailureCode) != "ItemValidationError" ||
		aws.ToString(id.FailureMessage) != "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details." ||
		id.ImportedItemCount != 3 || id.ErrorCount != 1 || id.ProcessedItemCount != 4 {
		t.Fatalf("import of bad records: %s %s %q imported %d errors %d processed %d", id.ImportStatus, aws.ToString(id.FailureCode),
			aws.ToString(id.FailureMessage), id.ImportedItemCount, id.ErrorCount, id.ProcessedItemCount)
	}
	if scan, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(mixed)}); err != nil || scan.Count != 3 {
		t.Fatalf("the table of an import FAILED by its items: %+v %v", scan, err)
	}
}

// An S3 key that may only read: the export fails with S3AccessDenied and
// S3's text.
func TestExportS3AccessDenied(t *testing.T) {
	env := newS3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", objstoretest.ReaderKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", objstoretest.ReaderSecret)
	c := startKura(t, "--in-memory", "--s3-endpoint", env.endpoint, "--s3-path-style").client()
	name := pitrTable(t, c)
	out, err := c.ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{
		TableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/" + name), S3Bucket: aws.String(env.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExportDone(t, c, aws.ToString(out.ExportDescription.ExportArn))
	if d.ExportStatus != types.ExportStatusFailed || aws.ToString(d.FailureCode) != "S3AccessDenied" ||
		!strings.Contains(aws.ToString(d.FailureMessage), "(Service: Amazon S3; Status Code: 403; Error Code: AccessDenied; Request ID: ") {
		t.Fatalf("export with a read-only key: %s %s %s", d.ExportStatus, aws.ToString(d.FailureCode), aws.ToString(d.FailureMessage))
	}
}

// An export whose data file is larger than one part (8 MiB) is written as
// a multipart upload: the manifest's etag is S3's multipart ETag, and the
// file imports back whole.
func TestExportS3Multipart(t *testing.T) {
	env := newS3Env(t)
	c := startKura(t, "--in-memory", "--s3-endpoint", env.endpoint, "--s3-path-style").client()
	name := pitrTable(t, c)
	const items = 12000 // of 1000 incompressible bytes: about 9 MB gzipped
	rnd := rand.NewChaCha8([32]byte{1})
	raw := make([]byte, 750)
	for i := 0; i < items; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < i+25; j++ {
			rnd.Read(raw)
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": S(fmt.Sprintf("k%05d", j)), "pad": S(base64.StdEncoding.EncodeToString(raw))}}})
		}
		out, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: reqs}})
		if err != nil || len(out.UnprocessedItems) > 0 {
			t.Fatalf("BatchWriteItem: %v %v", out, err)
		}
	}
	out, err := c.ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{
		TableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/" + name), S3Bucket: aws.String(env.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExportDone(t, c, aws.ToString(out.ExportDescription.ExportArn))
	file, size := env.dataFile(t, d, items)
	if !strings.HasSuffix(file.ETag, "-2") || size <= 8<<20 {
		t.Fatalf("the data file: %d bytes, ETag %q (want two parts)", size, file.ETag)
	}
	imported, importARN := importFrom(t, c, env.bucket, path.Dir(file.DataFileS3Key)+"/", types.InputCompressionTypeGzip)
	if id := waitImportDone(t, c, importARN); id.ImportStatus != types.ImportStatusCompleted || id.ImportedItemCount != items {
		t.Fatalf("import: %s %s %d", id.ImportStatus, aws.ToString(id.FailureMessage), id.ImportedItemCount)
	}
	if n := countItems(t, c, imported); n != items {
		t.Fatalf("the imported table holds %d items", n)
	}
}

// countItems scans the table to its end.
func countItems(t *testing.T, c *dynamodb.Client, table string) int {
	t.Helper()
	n := 0
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	for p.HasMorePages() {
		page, err := p.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		n += int(page.Count)
	}
	return n
}

// The AWS CLI commands of docs/running.md against Kura with
// --s3-endpoint: export-table-to-point-in-time, describe-export, `aws s3
// ls` of the export's files in the S3 server, import-table of its data.
func TestAWSCLIExportS3(t *testing.T) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws CLI not available")
	}
	env := newS3Env(t)
	k := startKura(t, "--in-memory", "--s3-endpoint", env.endpoint, "--s3-path-style")
	name := pitrTable(t, k.client())
	for _, pk := range []string{"a", "b"} {
		awsCLI(t, k.endpoint, "put-item", "--table-name", name, "--item", `{"pk":{"S":"`+pk+`"}}`)
	}
	var started struct{ ExportDescription struct{ ExportArn string } }
	cliJSON(t, awsCLI(t, k.endpoint, "export-table-to-point-in-time", "--table-arn", "arn:aws:dynamodb:us-east-1:000000000000:table/"+name,
		"--s3-bucket", env.bucket, "--s3-prefix", "nightly"), &started)
	var export struct {
		ExportDescription struct{ ExportStatus, ExportManifest string }
	}
	for end := time.Now().Add(30 * time.Second); export.ExportDescription.ExportStatus != "COMPLETED" && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		cliJSON(t, awsCLI(t, k.endpoint, "describe-export", "--export-arn", started.ExportDescription.ExportArn), &export)
	}
	if export.ExportDescription.ExportStatus != "COMPLETED" {
		t.Fatalf("describe-export: %+v", export)
	}
	ls := exec.Command("aws", "s3", "ls", "--recursive", "s3://"+env.bucket+"/nightly/AWSDynamoDB/", "--endpoint-url", env.endpoint, "--region", "us-east-1")
	ls.Env = append(os.Environ(), "AWS_PAGER=")
	out, err := ls.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "manifest-summary.json") || !strings.Contains(string(out), ".json.gz") {
		t.Fatalf("aws s3 ls: %v\n%s", err, out)
	}
	data := path.Dir(export.ExportDescription.ExportManifest) + "/data/"
	var imp struct {
		ImportTableDescription struct{ ImportArn, ImportStatus string }
	}
	copyName := uniqueTable("cli-copy")
	cliJSON(t, awsCLI(t, k.endpoint, "import-table", "--input-format", "DYNAMODB_JSON", "--input-compression-type", "GZIP",
		"--s3-bucket-source", "S3Bucket="+env.bucket+",S3KeyPrefix="+data,
		"--table-creation-parameters", "TableName="+copyName+",BillingMode=PAY_PER_REQUEST,AttributeDefinitions=[{AttributeName=pk,AttributeType=S}],KeySchema=[{AttributeName=pk,KeyType=HASH}]"), &imp)
	arn := imp.ImportTableDescription.ImportArn
	for end := time.Now().Add(30 * time.Second); imp.ImportTableDescription.ImportStatus != "COMPLETED" && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		cliJSON(t, awsCLI(t, k.endpoint, "describe-import", "--import-arn", arn), &imp)
	}
	if imp.ImportTableDescription.ImportStatus != "COMPLETED" || countItems(t, k.client(), copyName) != 2 {
		t.Fatalf("describe-import: %+v", imp)
	}
}

func cliJSON(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
}

// Exports and imports through boto3 (test/clients/python/test_boto3_s3.py),
// the export's files read back with boto3's S3 client.
func TestBoto3S3(t *testing.T) {
	if exec.Command("python3", "-c", "import boto3").Run() != nil {
		t.Skip("python3 with boto3 not available")
	}
	env := newS3Env(t)
	k := startKura(t, "--in-memory", "--s3-endpoint", env.endpoint, "--s3-path-style")
	cmd := exec.Command("python3", "-m", "unittest", "-v", "test_boto3_s3")
	cmd.Dir = "clients/python"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint, "KURA_S3_ENDPOINT="+env.endpoint, "KURA_S3_BUCKET="+env.bucket, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("boto3 S3 flows failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
