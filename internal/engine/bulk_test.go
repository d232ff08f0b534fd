package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/kura-db/kura/internal/engine/bulk"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// bulkStart starts a bulk put from exports/<prefix> into "exp".
func bulkStart(t *testing.T, e *Engine, prefix, token string) (*wire.BulkOperationDescription, error) {
	t.Helper()
	out, err := e.StartBulkPutItems(context.Background(), &wire.StartBulkPutItemsInput{TableName: cpPtr("exp"), ClientToken: &token,
		InputS3Configuration:  &wire.InputS3Configuration{InputFormat: "DYNAMODB_JSON", S3Bucket: cpPtr("exports"), S3KeyPrefix: &prefix},
		OutputS3Configuration: &wire.OutputS3Configuration{S3Bucket: cpPtr("exports"), OutputType: []string{"ERROR"}}})
	if err != nil {
		return nil, err
	}
	return out.BulkOperationDescription, nil
}

// A ClientToken names its operation for 8 hours of the engine's clock:
// reused with other parameters within them it is refused, after them it
// starts a new operation. ListBulkOperations shows the last 90 days, most
// recent first.
func TestBulkTokenAndListWindows(t *testing.T) {
	e, clk, _ := exportEngine(t)
	first, err := bulkStart(t, e, "a/", "tok")
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(8*time.Hour - time.Second)
	if _, err := bulkStart(t, e, "b/", "tok"); err == nil || !strings.Contains(err.Error(), "IdempotentParameterMismatchException") {
		t.Fatalf("within 8 hours: %v", err)
	}
	clk.advance(time.Second)
	second, err := bulkStart(t, e, "b/", "tok")
	if err != nil || cpDeref(second.BulkOperationArn) == cpDeref(first.BulkOperationArn) {
		t.Fatalf("after 8 hours: %+v %v", second, err)
	}
	list := func() []string {
		out, err := e.ListBulkOperations(context.Background(), &wire.ListBulkOperationsInput{})
		if err != nil {
			t.Fatal(err)
		}
		var arns []string
		for _, s := range out.BulkOperationsSummaryList {
			arns = append(arns, cpDeref(s.BulkOperationArn))
		}
		return arns
	}
	if got := list(); len(got) != 2 || got[0] != cpDeref(second.BulkOperationArn) {
		t.Fatalf("list: %v", got)
	}
	clk.advance(90*24*time.Hour - 8*time.Hour + time.Second)
	if got := list(); len(got) != 1 || got[0] != cpDeref(second.BulkOperationArn) {
		t.Fatalf("list after 90 days of the first: %v", got)
	}
}

// waitBulkOp describes arn until it is not IN_PROGRESS or CANCELLING, or
// until stop says to.
func waitBulkOp(t *testing.T, e *Engine, arn string, stop func(*wire.BulkOperationDescription) bool) *wire.BulkOperationDescription {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		out, err := e.DescribeBulkOperation(context.Background(), &wire.DescribeBulkOperationInput{BulkOperationArn: &arn})
		if err != nil {
			t.Fatal(err)
		}
		d := out.BulkOperationDescription
		if s := d.BulkOperationStatus; (s != bulk.InProgress && s != bulk.Cancelling) || (stop != nil && stop(d)) {
			return d
		}
	}
	t.Fatal("bulk operation still running")
	return nil
}

// A run a Close interrupts goes on from its checkpoint after Open and
// counts every record once; a cancelled one stops, CANCELLED, with what it
// wrote kept. (Run with -race: Describe reads while the run writes.)
func TestBulkResumeAndCancel(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "exports", "big"), 0o755); err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 10*1024-100)
	var lines []string
	for i := range 300 {
		lines = append(lines, `{"Item":{"pk":{"S":"k`+strconv.Itoa(i)+`"},"pad":{"S":"`+pad+`"}}}`)
	}
	if err := os.WriteFile(filepath.Join(root, "exports", "big", "r.json"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	cfg := Config{Objects: objstore.Dir{Root: root}}
	e, err := Open(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.CreateTable(ctx, &wire.CreateTableInput{TableName: cpPtr("exp"), BillingMode: BillingPayPerRequest,
		AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: cpPtr("pk"), AttributeType: "S"}},
		KeySchema:            []wire.KeySchemaElement{{AttributeName: cpPtr("pk"), KeyType: "HASH"}}}); err != nil {
		t.Fatal(err)
	}
	start := func(token string) string {
		out, err := e.StartBulkPutItems(ctx, &wire.StartBulkPutItemsInput{TableName: cpPtr("exp"), ClientToken: &token, MaxWriteRequestUnits: cpPtr[int64](1024),
			InputS3Configuration:  &wire.InputS3Configuration{InputFormat: "DYNAMODB_JSON", S3Bucket: cpPtr("exports"), S3KeyPrefix: cpPtr("big/")},
			OutputS3Configuration: &wire.OutputS3Configuration{S3Bucket: cpPtr("exports"), OutputType: []string{"ERROR"}}})
		if err != nil {
			t.Fatal(err)
		}
		return cpDeref(out.BulkOperationDescription.BulkOperationArn)
	}
	arn := start("resume")
	d := waitBulkOp(t, e, arn, func(d *wire.BulkOperationDescription) bool { return cpDeref(d.ProcessedItemCount) >= 150 })
	if d.BulkOperationStatus != bulk.InProgress {
		t.Fatalf("ended before the stop: %+v", d)
	}
	e = reopen(t, e, store, cfg)
	t.Cleanup(func() { e.Close() })
	if d := waitBulkOp(t, e, arn, nil); d.BulkOperationStatus != bulk.Completed || cpDeref(d.ProcessedItemCount) != 300 {
		t.Fatalf("after the reopen: %s, %d processed", d.BulkOperationStatus, cpDeref(d.ProcessedItemCount))
	}
	if n := countAll(t, e, "exp"); n != 300 {
		t.Fatalf("%d items", n)
	}

	arn = start("cancel")
	out, err := e.CancelBulkOperation(ctx, &wire.CancelBulkOperationInput{BulkOperationArn: &arn})
	if err != nil || out.BulkOperationStatus != bulk.Cancelling {
		t.Fatalf("cancel: %+v %v", out, err)
	}
	if d := waitBulkOp(t, e, arn, nil); d.BulkOperationStatus != bulk.Cancelled || cpDeref(d.ProcessedItemCount) >= 300 || d.EndTime == nil {
		t.Fatalf("after the cancel: %s, %d processed", d.BulkOperationStatus, cpDeref(d.ProcessedItemCount))
	}
}

// countAll counts a table's items, page by page.
func countAll(t *testing.T, e *Engine, table string) int {
	t.Helper()
	n := 0
	in := &wire.ScanInput{TableName: &table, Select: "COUNT"}
	for {
		out, err := e.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		n += int(cpDeref(out.Count))
		if out.LastEvaluatedKey == nil {
			return n
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// ZSTD input is read as such; ProcessedInputBytes ends at the object's
// (compressed) size.
func TestBulkZSTD(t *testing.T) {
	e, _, root := exportEngine(t)
	var z bytes.Buffer
	zw, _ := zstd.NewWriter(&z)
	zw.Write([]byte(`{"Item":{"pk":{"S":"a"}}}` + "\n" + `{"Item":{"pk":{"S":"b"}}}` + "\n"))
	zw.Close()
	if err := os.MkdirAll(filepath.Join(root, "exports", "z"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "exports", "z", "part.zst"), z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.StartBulkPutItems(context.Background(), &wire.StartBulkPutItemsInput{TableName: cpPtr("exp"),
		InputS3Configuration:  &wire.InputS3Configuration{InputFormat: "DYNAMODB_JSON", InputCompressionType: "ZSTD", S3Bucket: cpPtr("exports"), S3KeyPrefix: cpPtr("z/")},
		OutputS3Configuration: &wire.OutputS3Configuration{S3Bucket: cpPtr("exports"), OutputType: []string{"ERROR"}}})
	if err != nil {
		t.Fatal(err)
	}
	d := waitBulkOp(t, e, cpDeref(out.BulkOperationDescription.BulkOperationArn), nil)
	if d.BulkOperationStatus != bulk.Completed || cpDeref(d.ProcessedItemCount) != 2 || cpDeref(d.ProcessedInputBytes) != int64(z.Len()) || cpDeref(d.TotalInputBytes) != int64(z.Len()) {
		t.Fatalf("zstd: %s %d processed, %d/%d bytes", d.BulkOperationStatus, cpDeref(d.ProcessedItemCount), cpDeref(d.ProcessedInputBytes), cpDeref(d.TotalInputBytes))
	}
	if n := countAll(t, e, "exp"); n != 2 {
		t.Fatalf("%d items", n)
	}
}
