package test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// pgCluster is a private PostgreSQL cluster run by test/pg/cluster.sh (the
// script CI uses), which a test may crash and start again.
type pgCluster struct{ dir, url string }

// startPostgres starts a private cluster for the test, or skips the test
// when no PostgreSQL is set up here (KURA_TEST_POSTGRES unset), unless
// KURA_REQUIRE_POSTGRES=1 (CI) makes that a failure.
func startPostgres(t *testing.T) *pgCluster {
	t.Helper()
	if os.Getenv("KURA_TEST_POSTGRES") == "" {
		if os.Getenv("KURA_REQUIRE_POSTGRES") == "1" {
			t.Fatal("KURA_REQUIRE_POSTGRES=1 but KURA_TEST_POSTGRES is unset")
		}
		t.Skip("KURA_TEST_POSTGRES is unset: no PostgreSQL set up here (test/pg/cluster.sh)")
	}
	// Not t.TempDir: PostgreSQL runs as its own user, who must reach the
	// folder, and t.TempDir's parents are private.
	dir, err := os.MkdirTemp("", "kura-pg-fault-")
	if err != nil {
		t.Fatal(err)
	}
	c := &pgCluster{dir: dir}
	out, err := c.script("start")
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	c.url = strings.TrimSpace(out)
	t.Cleanup(func() {
		_, _ = c.script("stop")
		os.RemoveAll(dir)
	})
	return c
}

func (c *pgCluster) script(cmd string) (string, error) {
	out, err := exec.Command("pg/cluster.sh", cmd, c.dir).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		return "", fmt.Errorf("cluster.sh %s: %v\n%s", cmd, err, stderr)
	}
	return string(out), nil
}

// TestPostgresCrashDuringWrites crashes PostgreSQL (pg_ctl stop -m
// immediate) under concurrent single-item and transactional writes, then
// starts it again. While it is down, requests fail with DynamoDB's
// InternalServerError (HTTP 500); Kura reconnects by itself; afterwards
// every acknowledged write is there, through the same server and through
// a fresh one, and no transaction is torn (both of its items or neither).
func TestPostgresCrashDuringWrites(t *testing.T) {
	pg := startPostgres(t)
	args := []string{"--postgres", pg.url, "--postgres-namespace", "fault"}
	k := startKura(t, args...)
	c := k.client() // no retries: every failure is seen
	table := createTable(t, c, "pk", "", "")

	const writers = 8
	var (
		stop     atomic.Bool
		mu       sync.Mutex
		acked    = map[string]string{} // PutItem key → value
		ackedTx  []string              // transaction ids
		triedTx  []string
		failures = map[string]int{} // error type → count
		other    []string
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		var ae smithy.APIError
		var re *awshttp.ResponseError
		if errorsAs(err, &ae) && errorsAs(err, &re) && re.HTTPStatusCode() == http.StatusInternalServerError && ae.ErrorCode() == "InternalServerError" {
			failures[ae.ErrorCode()]++
			return
		}
		if len(other) < 5 {
			other = append(other, err.Error())
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				key, val := fmt.Sprintf("p-%d-%d", w, i), fmt.Sprint(i)
				_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(key), "v": N(val)}})
				if err != nil {
					fail(err)
				} else {
					mu.Lock()
					acked[key] = val
					mu.Unlock()
				}
				id := fmt.Sprintf("t-%d-%d", w, i)
				put := func(side string) types.TransactWriteItem {
					return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(id + side), "v": N(val)}}}
				}
				mu.Lock()
				triedTx = append(triedTx, id)
				mu.Unlock()
				_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("a"), put("b")}})
				if err != nil {
					fail(err)
				} else {
					mu.Lock()
					ackedTx = append(ackedTx, id)
					mu.Unlock()
				}
			}
		}()
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) + len(ackedTx) }
	// Three crashes, each while the writers are in full swing, so that
	// some of them catch commits in flight.
	for crash := range 3 {
		start := count()
		for count() < start+100 {
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := pg.script("kill"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		if _, err := pg.script("restart"); err != nil {
			t.Fatal(err)
		}
		// Kura reconnects by itself: acknowledged writes resume.
		resumed := count()
		deadline := time.Now().Add(30 * time.Second)
		for count() < resumed+50 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if count() < resumed+50 {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("writes did not resume after PostgreSQL restarted (crash %d, %d acknowledged since)", crash+1, count()-resumed)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d writes acknowledged; failures %v", count(), failures)
	if len(other) > 0 {
		t.Errorf("failures other than InternalServerError (HTTP 500): %q", other)
	}
	if failures["InternalServerError"] == 0 {
		t.Errorf("no request failed while PostgreSQL was down")
	}

	check := func(who string, c *dynamodb.Client) {
		items := map[string]string{}
		var start map[string]types.AttributeValue
		for {
			out, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), ExclusiveStartKey: start})
			if err != nil {
				t.Fatalf("%s: Scan: %v", who, err)
			}
			for _, it := range out.Items {
				items[it["pk"].(*types.AttributeValueMemberS).Value] = it["v"].(*types.AttributeValueMemberN).Value
			}
			if start = out.LastEvaluatedKey; start == nil {
				break
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for key, val := range acked {
			if items[key] != val {
				t.Errorf("%s: acknowledged PutItem %s = %q, want %q", who, key, items[key], val)
			}
		}
		for _, id := range ackedTx {
			if items[id+"a"] == "" || items[id+"b"] == "" {
				t.Errorf("%s: acknowledged transaction %s: a=%q b=%q", who, id, items[id+"a"], items[id+"b"])
			}
		}
		for _, id := range triedTx {
			if (items[id+"a"] == "") != (items[id+"b"] == "") {
				t.Errorf("%s: torn transaction %s: a=%q b=%q", who, id, items[id+"a"], items[id+"b"])
			}
		}
	}
	check("the server that saw the crash", c)
	k.stop()
	fresh := startKura(t, args...)
	check("a fresh server", fresh.client())
}
