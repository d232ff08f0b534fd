package test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestVectorPeriodicSnapshotCrash: with a short --vector-snapshot-interval
// the running server saves the index, so a crash (SIGKILL) replays only the
// changes since that save, and the restarted index agrees with the table.
// It also runs with --vector-quantization=sq8.
func TestVectorPeriodicSnapshotCrash(t *testing.T) {
	skipInCluster(t, "cluster nodes save no vector snapshots (each rebuilds from the store)")
	dir := t.TempDir()
	// Default --sync: with --sync=false the last unsynced commits (here the
	// snapshot's mark deletions) may still sit in the WAL buffer when the
	// process is killed, which only means more replay, but blurs the count.
	flags := []string{"--data-dir", dir, "--vector-snapshot-interval", "50ms", "--vector-snapshot-changes", "10", "--vector-quantization", "sq8"}
	k := startKura(t, flags...)
	c := k.client()
	table := createVectorTable(t, c, false, nil, vecIndex("vix", "emb", 8, types.VectorDistanceFunctionCosine, types.ProjectionTypeKeysOnly))
	r := rand.New(rand.NewPCG(11, 11))
	put := func(i int) {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(fmt.Sprintf("k%03d", i)), "emb": vecAV(randVec(r, 8))}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 300; i++ {
		put(i)
	}
	time.Sleep(500 * time.Millisecond) // several intervals: the 300 changes are saved
	for i := 0; i < 5; i++ {
		put(i) // only these are left to replay
	}
	k.kill()
	first := k.log.String()

	k = startKura(t, append(flags, "--log-level", "info")...)
	c = k.client()
	scan, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table)})
	if err != nil || len(scan.Items) != 300 {
		t.Fatalf("scan: %d items, %v", len(scan.Items), err)
	}
	wantFoundByOwnVector(t, c, table, scan.Items, false)
	k.stop()
	// The restart replayed at most the changes made after the last save.
	m := regexp.MustCompile(`replayed changes since its snapshot.*changes=(\d+)`).FindStringSubmatch(k.log.String())
	if m == nil {
		t.Fatalf("no replay logged (a crash leaves the last changes to replay):\n%s", k.log)
	}
	if n, _ := strconv.Atoi(m[1]); n > 50 {
		t.Fatalf("replayed %d changes: no periodic snapshot was taken while running\n%s", n, first)
	}
}
