package test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestCrashKeepsAcknowledgedWrites SIGKILLs a durable Kura while 16 clients
// write, restarts it on the same data directory, and checks that every
// acknowledged item is there, intact, and that no item is torn.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	dir := t.TempDir()
	k := startKura(t, "--data-dir", dir)
	c := k.client()
	table := createTable(t, c, "pk", "", "")

	const writers = 16
	var (
		mu    sync.Mutex
		acked = map[string]string{}
		wg    sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("w%02d-%06d", w, i)
				payload := fmt.Sprintf("%s|%0500d", key, i) // recognisable, 500+ bytes
				_, err := c.PutItem(bg, &dynamodb.PutItemInput{
					TableName: aws.String(table),
					Item: map[string]types.AttributeValue{
						"pk":      S(key),
						"payload": S(payload),
						"n":       N(strconv.Itoa(i)),
						"check":   S(key), // must always equal pk: a torn item would differ
					},
				})
				if err != nil {
					return // the server died under us: this write was not acknowledged
				}
				mu.Lock()
				acked[key] = payload
				mu.Unlock()
			}
		}(w)
	}
	time.Sleep(1500 * time.Millisecond)
	k.kill()
	close(stop)
	wg.Wait()
	if len(acked) < 100 {
		t.Fatalf("only %d writes acknowledged before the crash; the test needs more", len(acked))
	}

	k2 := startKura(t, "--data-dir", dir)
	c2 := k2.client()
	for key, payload := range acked {
		out, err := c2.GetItem(bg, &dynamodb.GetItemInput{
			TableName:      aws.String(table),
			Key:            map[string]types.AttributeValue{"pk": S(key)},
			ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			t.Fatalf("GetItem %s after restart: %v", key, err)
		}
		if out.Item == nil {
			t.Fatalf("acknowledged item %s lost in the crash", key)
		}
		if got := out.Item["payload"].(*types.AttributeValueMemberS).Value; got != payload {
			t.Fatalf("item %s payload changed: %q", key, got)
		}
	}
	// No torn items anywhere: every item that exists is complete.
	p := dynamodb.NewScanPaginator(c2, &dynamodb.ScanInput{TableName: aws.String(table)})
	total := 0
	for p.HasMorePages() {
		page, err := p.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			total++
			pk := it["pk"].(*types.AttributeValueMemberS).Value
			chk, ok := it["check"].(*types.AttributeValueMemberS)
			if !ok || chk.Value != pk || it["payload"] == nil || it["n"] == nil {
				t.Fatalf("torn item after crash: %v", it)
			}
		}
	}
	if total < len(acked) {
		t.Fatalf("scan found %d items, %d were acknowledged", total, len(acked))
	}
	t.Logf("%d acknowledged writes, %d items after restart", len(acked), total)
}

// TestSyncFalseBackgroundSync checks what --sync=false promises: writes are
// acknowledged before they reach the disk, and the WAL is written and
// fsync'd in the background (every 50 ms), so a SIGKILL well after the
// writes loses nothing — not the table, not the items. Pebble keeps an
// unsynced commit in its WAL buffer until something flushes it, so without
// the background sync these writes were lost on SIGKILL.
func TestSyncFalseBackgroundSync(t *testing.T) {
	dir := t.TempDir()
	k := startKura(t, "--data-dir", dir, "--sync=false")
	c := k.client()
	table := uniqueTable("syncfalse")
	if _, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // 20 background syncs
	k.kill()
	k = startKura(t, "--data-dir", dir)
	c = k.client()
	for i := 0; i < 3; i++ {
		out, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i)}}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Item == nil {
			t.Fatalf("item k%d lost", i)
		}
	}
}
