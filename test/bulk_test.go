package test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// bulkDirs makes an --s3-dir with an input and an output bucket.
func bulkDirs(t *testing.T) string {
	t.Helper()
	s3 := t.TempDir()
	for _, b := range []string{"input", "output"} {
		if err := os.Mkdir(filepath.Join(s3, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s3
}

// writeInput writes one input object of DYNAMODB_JSON lines, gzipped
// when zip.
func writeInput(t *testing.T, s3, key string, zip bool, lines []string) {
	t.Helper()
	p := filepath.Join(s3, "input", filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	body := strings.Join(lines, "\n") + "\n"
	if zip {
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(body))
		zw.Close()
	} else {
		buf.WriteString(body)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bulkInput is a StartBulkPutItems request from s3://input/prefix into table,
// reporting both output types to s3://output/reports.
func bulkInput(table, prefix, compression string) *dynamodb.StartBulkPutItemsInput {
	return &dynamodb.StartBulkPutItemsInput{
		TableName: aws.String(table),
		InputS3Configuration: &types.InputS3Configuration{InputFormat: types.BulkOperationInputFormatDynamodbJson,
			S3Bucket: aws.String("input"), S3KeyPrefix: aws.String(prefix), InputCompressionType: types.InputCompressionType(compression)},
		OutputS3Configuration: &types.OutputS3Configuration{S3Bucket: aws.String("output"), S3KeyPrefix: aws.String("reports"),
			OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError, types.OutputTypeEnumConditionCheckFailure}},
	}
}

// waitBulk describes the operation until it leaves the statuses of a
// running one.
func waitBulk(t *testing.T, c *dynamodb.Client, arn string, within time.Duration) *types.BulkOperationDescription {
	t.Helper()
	for end := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
		out, err := c.DescribeBulkOperation(bg, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		d := out.BulkOperationDescription
		if s := d.BulkOperationStatus; (s != types.BulkOperationStatusInProgress && s != types.BulkOperationStatusCancelling) || time.Now().After(end) {
			return d
		}
	}
}

// readLines reads a JSON Lines object of the output bucket.
func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// A bulk put through the Go SDK with --s3-dir: good records land (and are
// seen by the table's GSI), a record whose condition is false and two
// that cannot be written are counted and reported in the output bucket,
// a ClientToken names the operation, and it is listed and described.
func TestBulkPutItems(t *testing.T) {
	s3 := bulkDirs(t)
	k := startKura(t, "--s3-dir", s3, "--in-memory")
	c := k.client()
	name := uniqueTable("bulk")
	createGTable(t, c, name)
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{"pk": S("taken"), "v": S("old")}}); err != nil {
		t.Fatal(err)
	}
	const takenSize = 2 + 5 + 1 + 3 // pk, "taken", v, "old"
	writeInput(t, s3, "load/part-1.json.gz", true, []string{
		`{"Item":{"pk":{"S":"a"},"g":{"S":"x"}}}`,
		`{"Item":{"pk":{"S":"b"},"g":{"S":"x"}},"ConditionExpression":"attribute_not_exists(#k)","ExpressionAttributeNames":{"#k":"pk"}}`,
		`{"Item":{"pk":{"S":"taken"},"v":{"S":"new"}},"ConditionExpression":"attribute_not_exists(pk)"}`,
		`not json`,
		``,
		`{"Item":{"nokey":{"S":"1"}}}`,
	})
	writeInput(t, s3, "load/part-2.json.gz", true, []string{
		`{"Item":{"pk":{"S":"c"},"n":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk) OR n < :v","ExpressionAttributeValues":{":v":{"N":"5"}}}`,
	})
	in := bulkInput(name, "load/", "GZIP")
	in.ClientToken = aws.String("token-1")
	start, err := c.StartBulkPutItems(bg, in)
	if err != nil {
		t.Fatal(err)
	}
	sd := start.BulkOperationDescription
	arn := aws.ToString(sd.BulkOperationArn)
	if !strings.HasPrefix(arn, "arn:aws:dynamodb:us-east-1:000000000000:table/"+name+"/bulk-operation/") ||
		sd.PerformanceTier != types.BulkOperationPerformanceTierStandard || aws.ToString(sd.ClientToken) != "token-1" ||
		len(sd.TableDetails) != 1 || aws.ToString(sd.TableDetails[0].TableName) != name {
		t.Fatalf("start: %+v", sd)
	}
	d := waitBulk(t, c, arn, 10*time.Second)
	var total int64
	for _, f := range []string{"part-1.json.gz", "part-2.json.gz"} {
		st, _ := os.Stat(filepath.Join(s3, "input", "load", f))
		total += st.Size()
	}
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 6 || d.FailedItemCount != 2 ||
		aws.ToInt64(d.TotalInputBytes) != total || aws.ToInt64(d.ProcessedInputBytes) != total || d.EndTime == nil || d.FailureCode != nil {
		t.Fatalf("described: %+v %s %s", d, aws.ToString(d.FailureCode), aws.ToString(d.FailureMessage))
	}
	if u := d.BulkOperationUsage; len(u) != 1 || aws.ToString(u[0].TableName) != name || u[0].Table == nil || u[0].GlobalSecondaryIndexes["byG"].BulkPutBytes == nil ||
		aws.ToInt64(u[0].BulkPutBytes) != aws.ToInt64(u[0].Table.BulkPutBytes)+aws.ToInt64(u[0].GlobalSecondaryIndexes["byG"].BulkPutBytes) ||
		aws.ToInt64(u[0].Table.BulkPutBytes) == 0 {
		t.Fatalf("usage: %+v", u)
	}
	// The usage figures are the table's and the GSI's growth (the item put
	// before holds no g, so only bulk items are in byG).
	dt, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	u := d.BulkOperationUsage[0]
	if got, want := aws.ToInt64(u.Table.BulkPutBytes), aws.ToInt64(dt.Table.TableSizeBytes)-takenSize; got != want {
		t.Fatalf("table bytes %d, the table grew by %d", got, want)
	}
	if got, want := aws.ToInt64(u.GlobalSecondaryIndexes["byG"].BulkPutBytes), aws.ToInt64(dt.Table.GlobalSecondaryIndexes[0].IndexSizeBytes); got != want {
		t.Fatalf("GSI bytes %d, the GSI holds %d", got, want)
	}

	// The items went through the write path: in the table and its GSI;
	// the condition kept the existing item.
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": S("x")}})
	if err != nil || q.Count != 2 {
		t.Fatalf("GSI query: %v %v", q, err)
	}
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": S("taken")}})
	if err != nil || got.Item["v"].(*types.AttributeValueMemberS).Value != "old" {
		t.Fatalf("conditioned item: %v %v", got, err)
	}
	if got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": S("c")}}); err != nil || got.Item == nil {
		t.Fatalf("item c: %v %v", got, err)
	}

	// The report: one ERROR part with the two bad records, one
	// CONDITION_CHECK_FAILURE part with the attempted and the existing item.
	dir := filepath.Join(s3, "output", "reports", "AWSDynamoDB", arn[strings.LastIndex(arn, "/")+1:])
	errs := readLines(t, filepath.Join(dir, "ERROR", "part-00000.json"))
	if len(errs) != 2 || errs[0]["RecordNumber"] != 4.0 || errs[0]["ObjectKey"] != "load/part-1.json.gz" ||
		errs[1]["ErrorMessage"] != "One or more parameter values were invalid: Missing the key pk in the item" {
		t.Fatalf("ERROR report: %v", errs)
	}
	conds := readLines(t, filepath.Join(dir, "CONDITION_CHECK_FAILURE", "part-00000.json"))
	if len(conds) != 1 || fmt.Sprint(conds[0]["ExistingItem"]) != "map[pk:map[S:taken] v:map[S:old]]" || fmt.Sprint(conds[0]["Item"]) != "map[pk:map[S:taken] v:map[S:new]]" {
		t.Fatalf("CONDITION_CHECK_FAILURE report: %v", conds)
	}
	var manifest map[string]any
	readJSON(t, filepath.Join(dir, "manifest-summary.json"), &manifest)
	if manifest["bulkOperationArn"] != arn || manifest["processedItemCount"] != 6.0 || len(manifest["files"].([]any)) != 2 {
		t.Fatalf("manifest: %v", manifest)
	}

	// The ClientToken: the same request is the same operation; other
	// parameters with it are refused.
	again, err := c.StartBulkPutItems(bg, in)
	if err != nil || aws.ToString(again.BulkOperationDescription.BulkOperationArn) != arn {
		t.Fatalf("same token: %v %v", again, err)
	}
	other := bulkInput(name, "other/", "GZIP")
	other.ClientToken = in.ClientToken
	_, err = c.StartBulkPutItems(bg, other)
	wantAPIError(t, err, "IdempotentParameterMismatchException", "ClientToken token-1 was used for another bulk operation: "+arn)

	list, err := c.ListBulkOperations(bg, &dynamodb.ListBulkOperationsInput{})
	if err != nil || len(list.BulkOperationsSummaryList) != 1 || aws.ToString(list.BulkOperationsSummaryList[0].BulkOperationArn) != arn ||
		list.BulkOperationsSummaryList[0].BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors {
		t.Fatalf("list: %+v %v", list, err)
	}
	_, err = c.CancelBulkOperation(bg, &dynamodb.CancelBulkOperationInput{BulkOperationArn: aws.String(arn)})
	wantAPIError(t, err, "ValidationException", "Bulk operation "+arn+" cannot be cancelled: its status is COMPLETED_WITH_ERRORS")
	missing := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name + "/bulk-operation/00000000000000-00000000"
	_, err = c.DescribeBulkOperation(bg, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String(missing)})
	wantAPIError(t, err, "ResourceNotFoundException", "Bulk operation not found: "+missing)
}

// The refusals of StartBulkPutItems and its neighbours.
func TestBulkValidation(t *testing.T) {
	s3 := bulkDirs(t)
	c := startKura(t, "--s3-dir", s3, "--in-memory").client()
	name := createTable(t, c, "pk", "", "")
	in := bulkInput(name, "", "")
	in.MaxWriteRequestUnits = aws.Int64(100)
	_, err := c.StartBulkPutItems(bg, in)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '100' at 'maxWriteRequestUnits' failed to satisfy constraint: Member must have value greater than or equal to 1024")
	in = bulkInput(name, "", "")
	in.InputS3Configuration.InputFormat = types.BulkOperationInputFormatIon
	_, err = c.StartBulkPutItems(bg, in)
	wantAPIError(t, err, "ValidationException", "InputFormat ION is not supported by Kura; use DYNAMODB_JSON")
	in = bulkInput(name, "", "")
	in.InputS3Configuration.InputFormat = "CSV"
	_, err = c.StartBulkPutItems(bg, in)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'CSV' at 'inputS3Configuration.inputFormat' failed to satisfy constraint: Member must satisfy enum value set: [DYNAMODB_JSON, ION]")
	in = bulkInput(name, "", "")
	in.OutputS3Configuration.S3Bucket = nil
	_, err = c.StartBulkPutItems(bg, in)
	wantAPIError(t, err, "ValidationException", "OutputS3Configuration.S3Bucket is required")
	_, err = c.StartBulkPutItems(bg, bulkInput("nosuchtable", "", ""))
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	_, err = c.DescribeBulkOperation(bg, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String("arn:short")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'arn:short' at 'bulkOperationArn' failed to satisfy constraint: Member must have length greater than or equal to 37")
	_, err = c.ListBulkOperations(bg, &dynamodb.ListBulkOperationsInput{MaxResults: aws.Int32(0)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '0' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1")
	// A missing bucket fails the operation before anything is written.
	for _, bucket := range []string{"input", "output"} {
		in = bulkInput(name, "", "")
		if bucket == "input" {
			in.InputS3Configuration.S3Bucket = aws.String("nosuchbucket")
		} else {
			in.OutputS3Configuration.S3Bucket = aws.String("nosuchbucket")
		}
		start, err := c.StartBulkPutItems(bg, in)
		if err != nil {
			t.Fatal(err)
		}
		d := waitBulk(t, c, aws.ToString(start.BulkOperationDescription.BulkOperationArn), 10*time.Second)
		if d.BulkOperationStatus != types.BulkOperationStatusFailed || aws.ToString(d.FailureCode) != "S3NoSuchBucket" ||
			aws.ToString(d.FailureMessage) != "The specified bucket does not exist" || d.EndTime == nil {
			t.Fatalf("%s bucket missing: %+v", bucket, d)
		}
	}
	// Without --s3-dir there is nothing to read.
	_, err = ddb().StartBulkPutItems(bg, bulkInput(name, "", ""))
	wantAPIError(t, err, "ValidationException", "Bulk operations read from S3 and need an object store: start Kura with --s3-dir or --s3-endpoint")
}

// createGTable creates an on-demand table (key pk) with a GSI byG (key g,
// all attributes projected).
func createGTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	if _, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}); err != nil {
		t.Fatal(err)
	}
}

// bigRecords are n records of about 10 KB each (10 write units apiece).
func bigRecords(n int) []string {
	pad := strings.Repeat("x", 10*1024-100)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"Item":{"pk":{"S":"k%04d"},"pad":{"S":"%s"}}}`, i, pad)
	}
	return lines
}

// startPaced starts putting 300 records of 10 KB into a new table at
// 1,024 write units a second (about 3 s).
func startPaced(t *testing.T, c *dynamodb.Client, s3 string) (table, arn string) {
	t.Helper()
	table = createTable(t, c, "pk", "", "")
	writeInput(t, s3, "big/records.json", false, bigRecords(300))
	in := bulkInput(table, "big/", "")
	in.MaxWriteRequestUnits = aws.Int64(1024)
	start, err := c.StartBulkPutItems(bg, in)
	if err != nil {
		t.Fatal(err)
	}
	return table, aws.ToString(start.BulkOperationDescription.BulkOperationArn)
}

// MaxWriteRequestUnits paces the run (300 records of 10 units at 1,024
// units a second take about 3 s); a kill -9 in the middle loses nothing:
// after a restart the operation goes on from its checkpoint and completes
// with every record counted once.
func TestBulkResumesAfterKill(t *testing.T) {
	s3, data := bulkDirs(t), t.TempDir()
	k := startKura(t, "--s3-dir", s3, "--data-dir", data)
	c := k.client()
	name, arn := startPaced(t, c, s3)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, err := c.DescribeBulkOperation(bg, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		d := out.BulkOperationDescription
		if d.BulkOperationStatus != types.BulkOperationStatusInProgress {
			t.Fatalf("done before the kill (the rate was not honoured): %+v", d)
		}
		if d.ProcessedItemCount >= 100 || time.Now().After(end) {
			break
		}
	}
	k.kill()
	c = startKura(t, "--s3-dir", s3, "--data-dir", data).client()
	d := waitBulk(t, c, arn, 20*time.Second)
	if d.BulkOperationStatus != types.BulkOperationStatusCompleted || d.ProcessedItemCount != 300 || d.FailedItemCount != 0 {
		t.Fatalf("after the restart: %+v", d)
	}
	if n := countItems(t, c, name); n != 300 {
		t.Fatalf("%d items, want 300", n)
	}
}

// CancelBulkOperation stops a running operation: CANCELLING, then
// CANCELLED with the items written so far kept, and a report written.
func TestBulkCancel(t *testing.T) {
	s3 := bulkDirs(t)
	c := startKura(t, "--s3-dir", s3, "--in-memory").client()
	name, arn := startPaced(t, c, s3)
	time.Sleep(300 * time.Millisecond)
	out, err := c.CancelBulkOperation(bg, &dynamodb.CancelBulkOperationInput{BulkOperationArn: aws.String(arn)})
	if err != nil || out.BulkOperationStatus != types.BulkOperationStatusCancelling || aws.ToString(out.BulkOperationArn) != arn {
		t.Fatalf("cancel: %+v %v", out, err)
	}
	d := waitBulk(t, c, arn, 10*time.Second)
	if d.BulkOperationStatus != types.BulkOperationStatusCancelled || d.ProcessedItemCount == 0 || d.ProcessedItemCount >= 300 || d.EndTime == nil {
		t.Fatalf("after the cancel: %+v", d)
	}
	if n := countItems(t, c, name); int64(n) != d.ProcessedItemCount {
		t.Fatalf("%d items, %d processed", n, d.ProcessedItemCount)
	}
	id := arn[strings.LastIndex(arn, "/")+1:]
	if _, err := os.Stat(filepath.Join(s3, "output", "reports", "AWSDynamoDB", id, "manifest-summary.json")); err != nil {
		t.Fatal(err)
	}
}

// Bulk items take the write path's other roads: each is a stream record,
// and one whose TTL attribute has passed is expired like any item.
func TestBulkPutItemsStreamAndTTL(t *testing.T) {
	s3 := bulkDirs(t)
	k := startKura(t, "--s3-dir", s3, "--in-memory", "--ttl-interval", "100ms")
	c := k.client()
	name, streamARN := createStreamTable(t, c, types.StreamViewTypeNewImage)
	if _, err := c.UpdateTimeToLive(bg, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	writeInput(t, s3, "ttl/part.json", false, []string{
		`{"Item":{"pk":{"S":"a"},"sk":{"S":"1"}}}`,
		fmt.Sprintf(`{"Item":{"pk":{"S":"b"},"sk":{"S":"1"},"exp":{"N":"%d"}}}`, time.Now().Unix()-5),
	})
	start, err := c.StartBulkPutItems(bg, bulkInput(name, "ttl/", "NONE"))
	if err != nil {
		t.Fatal(err)
	}
	if d := waitBulk(t, c, aws.ToString(start.BulkOperationDescription.BulkOperationArn), 10*time.Second); d.BulkOperationStatus != types.BulkOperationStatusCompleted {
		t.Fatalf("bulk: %+v", d)
	}
	for end := time.Now().Add(10 * time.Second); countItems(t, c, name) != 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the expired bulk item was not deleted")
		}
	}
	sc := k.streamsClient()
	_, sh := shards(t, sc, streamARN)
	recs, _ := drain(t, sc, iter(t, sc, streamARN, aws.ToString(sh[0].ShardId), "TRIM_HORIZON", nil))
	var events []string
	for _, r := range recs {
		events = append(events, string(r.EventName)+" "+avString(r.Dynamodb.Keys["pk"]))
	}
	if strings.Join(events, ",") != "INSERT S:a,INSERT S:b,REMOVE S:b" {
		t.Fatalf("stream records: %v", events)
	}
}

// A bulk put from and to a real S3-compatible server (--s3-endpoint;
// SeaweedFS in CI): the records are read from S3, and the report lands in
// S3 where the folder store puts it.
func TestBulkPutItemsS3(t *testing.T) {
	env := newS3Env(t)
	c := startKura(t, "--in-memory", "--s3-endpoint", env.endpoint, "--s3-path-style").client()
	name := createTable(t, c, "pk", "", "")
	env.put(t, "load/part-1.json", `{"Item":{"pk":{"S":"a"}}}`+"\n"+
		`{"Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}`+"\n"+`{"Item":{}}`+"\n")
	in := bulkInput(name, "load/", "NONE")
	in.InputS3Configuration.S3Bucket, in.OutputS3Configuration.S3Bucket = aws.String(env.bucket), aws.String(env.bucket)
	start, err := c.StartBulkPutItems(bg, in)
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(start.BulkOperationDescription.BulkOperationArn)
	d := waitBulk(t, c, arn, 20*time.Second)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 3 || d.FailedItemCount != 1 {
		t.Fatalf("described: %+v %s", d, aws.ToString(d.FailureMessage))
	}
	dir := "reports/AWSDynamoDB/" + arn[strings.LastIndex(arn, "/")+1:] + "/"
	for key, want := range map[string]string{"ERROR/part-00000.json": `"RecordNumber":3`, "CONDITION_CHECK_FAILURE/part-00000.json": `"ExistingItem":{"pk":{"S":"a"}}`,
		"manifest-summary.json": `"processedItemCount": 3`} {
		if got := string(env.get(t, dir+key)); !strings.Contains(got, want) {
			t.Fatalf("%s: %s, want %s in it", key, got, want)
		}
	}
}
