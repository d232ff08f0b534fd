package test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestTTLTransactDeleteRace races TransactWriteItems deletes against TTL
// passes on the same expired items. Every item is deleted exactly once,
// by one side or the other, and its REMOVE record carries the service
// identity exactly when the TTL expirer's own write deleted it: a user's
// transaction delete is never labelled as TTL's, however the two
// interleave.
func TestTTLTransactDeleteRace(t *testing.T) {
	k := startKura(t, "--in-memory", "--admin", "--ttl-interval", "0")
	c := k.client()
	table, arn := createStreamTable(t, c, types.StreamViewTypeOldImage)
	if err := updateTTL(c, table, "exp", true); err != nil {
		t.Fatal(err)
	}
	const n = 300
	past := N(fmt.Sprint(time.Now().Unix() - 60))
	key := func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": S(fmt.Sprintf("p%d", i%7)), "sk": S(fmt.Sprint(i))}
	}
	for i := 0; i < n; i++ {
		item := key(i)
		item["exp"] = past
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	userDeleted := map[string]bool{}
	ttlDeleted := 0
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
					Delete: &types.Delete{TableName: aws.String(table), Key: key(i), ConditionExpression: aws.String("attribute_exists(pk)")}}}})
				var tce *types.TransactionCanceledException
				switch {
				case err == nil:
					mu.Lock()
					userDeleted[fmt.Sprint(i)] = true
					mu.Unlock()
				case errors.As(err, &tce):
					// already expired, or a concurrent transaction held it
				default:
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for p := 0; p < 20; p++ {
			d, err := k.expirePass()
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			ttlDeleted += d
			mu.Unlock()
		}
	}()
	wg.Wait()
	ttlDeleted += k.expireNow(t) // what neither side got to
	if len(userDeleted)+ttlDeleted != n {
		t.Fatalf("%d user deletes + %d TTL deletes, want %d", len(userDeleted), ttlDeleted, n)
	}
	t.Logf("%d deleted by transactions, %d by TTL", len(userDeleted), ttlDeleted)
	strm := k.streamsClient()
	_, sh := shards(t, strm, arn)
	removes := 0
	for _, s := range sh {
		recs, _ := drain(t, strm, iter(t, strm, arn, aws.ToString(s.ShardId), st.ShardIteratorTypeTrimHorizon, nil))
		for _, r := range recs {
			if r.EventName != st.OperationTypeRemove {
				continue
			}
			removes++
			sk := avString(r.Dynamodb.Keys["sk"])[2:]
			if labelled := r.UserIdentity != nil; labelled == userDeleted[sk] {
				t.Errorf("item %s: TTL label %v, deleted by a transaction %v", sk, labelled, userDeleted[sk])
			}
		}
	}
	if removes != n {
		t.Fatalf("%d REMOVE records, want %d", removes, n)
	}
}

// expirePass is expireNow for goroutines other than the test's: it returns
// its error instead of failing the test.
func (k *kura) expirePass() (int, error) {
	resp, err := http.Post(k.endpoint+"/admin/ttl/expire", "application/json", nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var out struct{ Deleted int }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		return 0, fmt.Errorf("expire: %v status %d", err, resp.StatusCode)
	}
	return out.Deleted, nil
}
