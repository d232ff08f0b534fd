package test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
)

// The feed's guarantees: a consumer that applies the records in shard order
// rebuilds the table exactly, under concurrent writers, across a crash of
// Kura, an outage of Kinesis and Kinesis throttling.

// TestKinesisConsumerReconstructsTable: writers change 40 items at once
// (puts, updates, deletes); applying the records of each shard in order
// gives the table a Scan reads.
func TestKinesisConsumerReconstructsTable(t *testing.T) {
	ep := kinesisEndpoint(t)
	k := startKuraKinesis(t, ep, "--in-memory")
	c := k.client()
	kc := kinesisClient(ep)
	stream, arn := createKinesisStream(t, kc, 4)
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeN)
	enableAndWait(t, c, table, arn, nil)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- randomWrites(c, table, w, 60)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := scanJSON(t, c, table)
	waitRebuilt(t, kc, stream, want, 20*time.Second)
}

// randomWrites makes n random changes to the items pk "p0".."p9" × sk 0..3.
func randomWrites(c *dynamodb.Client, table string, seed, n int) error {
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	tn := aws.String(table)
	for i := range n {
		key := map[string]types.AttributeValue{"pk": S("p" + strconv.Itoa(r.IntN(10))), "sk": N(strconv.Itoa(r.IntN(4)))}
		var err error
		switch r.IntN(4) {
		case 0, 1:
			item := map[string]types.AttributeValue{"pk": key["pk"], "sk": key["sk"], "w": N(strconv.Itoa(seed)), "i": N(strconv.Itoa(i))}
			_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: tn, Item: item})
		case 2:
			_, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: tn, Key: key, UpdateExpression: aws.String("ADD n :one SET w = :w"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": N("1"), ":w": N(strconv.Itoa(seed))}})
		default:
			_, err = c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: tn, Key: key})
		}
		var tce *types.TransactionConflictException
		if err != nil && !errorsAs(err, &tce) {
			return err
		}
	}
	return nil
}

// waitRebuilt rebuilds the table from the stream until it equals want.
func waitRebuilt(t *testing.T, kc *kinesis.Client, stream string, want map[string]any, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := rebuild(t, readKinesis(t, kc, stream))
		if reflect.DeepEqual(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the table rebuilt from its Kinesis records:\n%v\nScan:\n%v", got, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// rebuild applies records in order: the item of each key is its last
// record's NewImage (none after a REMOVE).
func rebuild(t *testing.T, recs []ddbKinesisRecord) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, r := range recs {
		k := keyString(t, r.Dynamodb.Keys)
		if r.EventName == "REMOVE" {
			delete(out, k)
			continue
		}
		b, _ := json.Marshal(r.Dynamodb.NewImage)
		var img any
		if err := json.Unmarshal(b, &img); err != nil {
			t.Fatal(err)
		}
		out[k] = img
	}
	return out
}

func keyString(t *testing.T, keys map[string]json.RawMessage) string {
	t.Helper()
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		var v any
		if err := json.Unmarshal(keys[n], &v); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s=%v;", n, v)
	}
	return b.String()
}

// scanJSON is the table as DynamoDB JSON values by key, as rebuild makes it.
func scanJSON(t *testing.T, c *dynamodb.Client, table string) map[string]any {
	t.Helper()
	out := map[string]any{}
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			img := map[string]any{}
			keys := map[string]json.RawMessage{}
			for n, v := range it {
				img[n] = avJSON(v)
				if n == "pk" || n == "sk" {
					keys[n], _ = json.Marshal(avJSON(v))
				}
			}
			out[keyString(t, keys)] = img
		}
	}
	return out
}

// avJSON is an attribute value as DynamoDB JSON decodes into any (the
// types the tests use).
func avJSON(v types.AttributeValue) any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for n, e := range v.Value {
			m[n] = avJSON(e)
		}
		return map[string]any{"M": m}
	}
	panic(fmt.Sprintf("avJSON: %T", v))
}

// TestKinesisSurvivesCrashAndOutage: with Kinesis stopped, acknowledged
// writes wait in the outbox; Kura is then killed (no clean shutdown), and
// after both come back every change arrives, and later changes too.
func TestKinesisSurvivesCrashAndOutage(t *testing.T) {
	ep, stopKinesis, restartKinesis := privateKinesalite(t)
	kc := kinesisClient(ep)
	stream, arn := createKinesisStream(t, kc, 2)
	dir := t.TempDir()
	k := startKuraKinesis(t, ep, "--data-dir", dir)
	c := k.client()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeN)
	enableAndWait(t, c, table, arn, nil)
	put := func(c *dynamodb.Client, i int) {
		t.Helper()
		item := map[string]types.AttributeValue{"pk": S("p" + strconv.Itoa(i%7)), "sk": N(strconv.Itoa(i)), "v": N(strconv.Itoa(i))}
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		put(c, i)
	}
	waitKinesis(t, kc, stream, 10, 10*time.Second)
	stopKinesis()
	for i := 10; i < 60; i++ {
		put(c, i)
	}
	time.Sleep(300 * time.Millisecond) // the forwarder meets the outage
	k.kill()
	restartKinesis()
	k2 := startKuraKinesis(t, ep, "--data-dir", dir)
	c2 := k2.client()
	for i := 60; i < 70; i++ {
		put(c2, i)
	}
	waitRebuilt(t, kc, stream, scanJSON(t, c2, table), 30*time.Second)
	if n := len(scanJSON(t, c2, table)); n != 70 {
		t.Fatalf("table has %d items, want 70", n)
	}
}

// TestKinesisThrottled: while Kinesis answers PutRecords with
// ProvisionedThroughputExceededException, for whole calls and for some
// records of a call, the forwarder backs off and puts again; every change
// arrives and the rebuilt table is the table.
func TestKinesisThrottled(t *testing.T) {
	ep := kinesisEndpoint(t)
	proxy := newThrottlingKinesis(t, ep, 12)
	k := startKuraKinesis(t, proxy.URL, "--in-memory")
	c := k.client()
	kc := kinesisClient(ep)
	stream, arn := createKinesisStream(t, kc, 2)
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeN)
	enableAndWait(t, c, table, arn, nil)
	if err := randomWrites(c, table, 1, 80); err != nil {
		t.Fatal(err)
	}
	waitRebuilt(t, kc, stream, scanJSON(t, c, table), 30*time.Second)
	if n := proxy.throttled.Load(); n == 0 {
		t.Fatal("no PutRecords was throttled")
	}
	// A record put again is the same record: same eventID, same data.
	seen := map[string]string{}
	for _, r := range readKinesis(t, kc, stream) {
		if prev, ok := seen[r.EventID]; ok && prev != string(r.raw) {
			t.Fatalf("eventID %s on two different records:\n%s\n%s", r.EventID, prev, r.raw)
		}
		seen[r.EventID] = string(r.raw)
	}
}

// throttlingKinesis stands in front of a real Kinesis (kinesalite, which
// never throttles) and answers its first PutRecords calls as a throttled
// Kinesis does: odd calls refused whole, even ones with every other record
// refused (only the others are put).
type throttlingKinesis struct {
	*httptest.Server
	throttled atomic.Int64
}

func newThrottlingKinesis(t *testing.T, target string, calls int64) *throttlingKinesis {
	tk := &throttlingKinesis{}
	var n atomic.Int64
	tk.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		put := r.Header.Get("X-Amz-Target") == "Kinesis_20131202.PutRecords"
		i := int64(-1)
		if put {
			i = n.Add(1)
		}
		switch {
		case put && i <= calls && i%2 == 1:
			tk.throttled.Add(1)
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.WriteHeader(400)
			io.WriteString(w, `{"__type":"ProvisionedThroughputExceededException","message":"Rate exceeded for shard shardId-000000000000."}`)
		case put && i <= calls:
			tk.throttled.Add(1)
			tk.partial(t, w, r, target, body)
		default:
			resp := forward(t, r, target, body)
			relay(w, resp)
		}
	}))
	t.Cleanup(tk.Close)
	return tk
}

// partial puts the odd-numbered records of a PutRecords and answers the
// even-numbered ones as throttled.
func (tk *throttlingKinesis) partial(t *testing.T, w http.ResponseWriter, r *http.Request, target string, body []byte) {
	var in struct {
		StreamName string
		Records    []json.RawMessage
	}
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	var odd []json.RawMessage
	for i, rec := range in.Records {
		if i%2 == 1 {
			odd = append(odd, rec)
		}
	}
	results := make([]any, len(in.Records))
	if len(odd) > 0 {
		fwd, _ := json.Marshal(map[string]any{"StreamName": in.StreamName, "Records": odd})
		resp := forward(t, r, target, fwd)
		var out struct{ Records []map[string]any }
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := json.Unmarshal(b, &out); err != nil || len(out.Records) != len(odd) {
			http.Error(w, "kinesalite: "+string(b), 500)
			return
		}
		for j, res := range out.Records {
			results[2*j+1] = res
		}
	}
	failed := 0
	for i := range results {
		if i%2 == 0 {
			failed++
			results[i] = map[string]any{"ErrorCode": "ProvisionedThroughputExceededException", "ErrorMessage": "Rate exceeded for shard shardId-000000000000."}
		}
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	json.NewEncoder(w).Encode(map[string]any{"FailedRecordCount": failed, "Records": results})
}

// forward sends a request on to target as it came (kinesalite does not
// check signatures' contents).
func forward(t *testing.T, r *http.Request, target string, body []byte) *http.Response {
	req, err := http.NewRequest(r.Method, target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		t.Error(err)
		return &http.Response{StatusCode: 500, Body: io.NopCloser(bytes.NewReader(nil))}
	}
	for _, h := range []string{"Content-Type", "X-Amz-Target", "Authorization", "X-Amz-Date"} {
		req.Header.Set(h, r.Header.Get(h))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return &http.Response{StatusCode: 502, Body: io.NopCloser(bytes.NewReader([]byte(err.Error())))}
	}
	return resp
}

func relay(w http.ResponseWriter, resp *http.Response) {
	defer resp.Body.Close()
	for _, h := range []string{"Content-Type", "X-Amzn-Requestid"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}
