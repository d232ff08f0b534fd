package test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The figure of BENCHMARKS.md's S3 export round: a table of
// KURA_EXPORT_BENCH_ITEMS items (1,000,000 there) exported to the S3
// server of KURA_TEST_S3_ENDPOINT, imported back, and compared item by
// item; it logs the export's and the import's time and Kura's peak RSS.
// Skipped without KURA_EXPORT_BENCH_ITEMS.
func TestExportS3Figure(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KURA_EXPORT_BENCH_ITEMS"))
	if n <= 0 {
		t.Skip("set KURA_EXPORT_BENCH_ITEMS (and KURA_TEST_S3_ENDPOINT) to measure an export of that many items")
	}
	env := newS3Env(t)
	k := startKura(t, "--data-dir", t.TempDir(), "--s3-endpoint", env.endpoint, "--s3-path-style")
	c := k.client()
	name := pitrTable(t, c)
	start := time.Now()
	loadItems(t, c, name, n)
	t.Logf("loaded %d items in %v; Kura's RSS %s", n, time.Since(start).Round(time.Millisecond), procStatus(t, k.cmd.Process.Pid, "VmRSS"))

	start = time.Now()
	out, err := c.ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{
		TableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/" + name), S3Bucket: aws.String(env.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExportWithin(t, c, aws.ToString(out.ExportDescription.ExportArn), 30*time.Minute)
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != int64(n) {
		t.Fatalf("export: %s %s", d.ExportStatus, aws.ToString(d.FailureMessage))
	}
	t.Logf("exported in %v (%d billed bytes); Kura's peak RSS so far %s", time.Since(start).Round(time.Millisecond),
		aws.ToInt64(d.BilledSizeBytes), procStatus(t, k.cmd.Process.Pid, "VmHWM"))

	prefix := path.Dir(strings.TrimSuffix(aws.ToString(d.ExportManifest), "manifest-summary.json")) + "/data/"
	start = time.Now()
	imported, importARN := importFrom(t, c, env.bucket, prefix, types.InputCompressionTypeGzip)
	id := waitImportWithin(t, c, importARN, 30*time.Minute)
	if id.ImportStatus != types.ImportStatusCompleted || id.ImportedItemCount != int64(n) {
		t.Fatalf("import: %s %s %d", id.ImportStatus, aws.ToString(id.FailureMessage), id.ImportedItemCount)
	}
	t.Logf("imported in %v; Kura's peak RSS %s", time.Since(start).Round(time.Millisecond), procStatus(t, k.cmd.Process.Pid, "VmHWM"))

	want, got := itemDigests(t, c, name), itemDigests(t, c, imported)
	if len(want) != n || len(got) != n {
		t.Fatalf("%d items in the table, %d imported, want %d", len(want), len(got), n)
	}
	for pk, h := range want {
		if got[pk] != h {
			t.Fatalf("item %s differs after the round trip", pk)
		}
	}
}

// loadItems writes n items of about 100 bytes, 8 writers of 25-item
// batches.
func loadItems(t *testing.T, c *dynamodb.Client, table string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w * 25; i < n; i += 8 * 25 {
				var reqs []types.WriteRequest
				for j := i; j < min(i+25, n); j++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
						"pk": S(fmt.Sprintf("k%07d", j)), "n": N(strconv.Itoa(j * 7)), "s": S(fmt.Sprintf("%x", sha256.Sum256([]byte{byte(j), byte(j >> 8), byte(j >> 16)}))),
					}}})
				}
				for len(reqs) > 0 {
					out, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
					if err != nil {
						errs <- err
						return
					}
					reqs = out.UnprocessedItems[table]
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// itemDigests is each item's SHA-256 (of its attributes in name order) by
// its key, from a Scan.
func itemDigests(t *testing.T, c *dynamodb.Client, table string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			pk := it["pk"].(*types.AttributeValueMemberS).Value
			out[pk] = sha256.Sum256(fmt.Appendf(nil, "%s|%s|%s", pk, it["n"].(*types.AttributeValueMemberN).Value, it["s"].(*types.AttributeValueMemberS).Value))
		}
	}
	return out
}

// procStatus is one line's value of /proc/PID/status (VmRSS, VmHWM).
func procStatus(t *testing.T, pid int, field string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
