package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/api"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/storage/memory"
)

// plainBackend hides the engine's QueryEncoded and ScanEncoded, so the
// items go through attr.Item and AppendItemJSON.
type plainBackend struct{ api.Backend }

// TestQueryEncodedSameBytes checks that Query and Scan answer the same
// bytes whether the engine pre-encodes the items or not.
func TestQueryEncodedSameBytes(t *testing.T) {
	eng, err := engine.Open(memory.New(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	fast, slow := api.NewServer(eng, api.Options{}), api.NewServer(plainBackend{eng}, api.Options{})
	do := func(s *api.Server, op, body string) (int, string) {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		s.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	if c, b := do(fast, "CreateTable", `{"TableName":"tbl","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"s","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"GlobalSecondaryIndexes":[
			{"IndexName":"all","KeySchema":[{"AttributeName":"s","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}},
			{"IndexName":"keys","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"s","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],
		"LocalSecondaryIndexes":[
			{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"s","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["b"]}}]}`); c != 200 {
		t.Fatal(b)
	}
	for i := 0; i < 30; i++ {
		item := fmt.Sprintf(`{"pk":{"S":"p%d"},"sk":{"N":"%d.5"},"s":{"S":"a\"b\u2028\u00e9 %d"},"b":{"B":"AAEC"},`+
			`"m":{"M":{"z":{"L":[{"NULL":true},{"BOOL":false},{"NS":["1","-2e3"]}]},"a":{"SS":["x","y"]}}},"bs":{"BS":["AQ=="]}}`, i%3, i, i)
		if c, b := do(fast, "PutItem", `{"TableName":"tbl","Item":`+item+`}`); c != 200 {
			t.Fatal(b)
		}
	}
	queries := []string{
		`{"TableName":"tbl","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p1"}}}`,
		`{"TableName":"tbl","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p1"}},"Limit":3}`,
		`{"TableName":"tbl","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p2"}},"Limit":4,"ScanIndexForward":false,"ReturnConsumedCapacity":"TOTAL"}`,
		`{"TableName":"tbl","KeyConditionExpression":"pk = :p AND sk > :s","ExpressionAttributeValues":{":p":{"S":"p0"},":s":{"N":"10"}},"ExclusiveStartKey":{"pk":{"S":"p0"},"sk":{"N":"12.5"}}}`,
		`{"TableName":"tbl","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"nobody"}}}`,
		`{"TableName":"tbl","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p1"}},"Select":"COUNT"}`,
		`{"TableName":"tbl","KeyConditionExpression":"pk = :p","ProjectionExpression":"s","ExpressionAttributeValues":{":p":{"S":"p1"}}}`,
		`{"TableName":"tbl","KeyConditionExpression":"pk = :p","FilterExpression":"attribute_exists(m)","ExpressionAttributeValues":{":p":{"S":"p1"}},"Limit":2}`,
		// Index queries: entries go out as stored unless a filter, a
		// projection, COUNT or a fetch from the table needs them decoded.
		`{"TableName":"tbl","IndexName":"all","KeyConditionExpression":"s = :s","ExpressionAttributeValues":{":s":{"S":"a\"b\u2028\u00e9 4"}},"ReturnConsumedCapacity":"INDEXES"}`,
		`{"TableName":"tbl","IndexName":"keys","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p1"}},"Limit":4}`,
		`{"TableName":"tbl","IndexName":"keys","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p1"}},"Limit":4,"ScanIndexForward":false,"ExclusiveStartKey":{"pk":{"S":"p1"},"sk":{"N":"25.5"},"s":{"S":"a\"b\u2028\u00e9 25"}}}`,
		`{"TableName":"tbl","IndexName":"lsi","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p2"}},"Limit":5,"ReturnConsumedCapacity":"INDEXES"}`,
		`{"TableName":"tbl","IndexName":"lsi","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p2"}},"Select":"ALL_ATTRIBUTES","Limit":2}`,
		`{"TableName":"tbl","IndexName":"lsi","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p2"}},"Select":"COUNT"}`,
	}
	scans := []string{
		`{"TableName":"tbl"}`,
		`{"TableName":"tbl","Limit":7,"ReturnConsumedCapacity":"TOTAL"}`,
		`{"TableName":"tbl","Limit":5,"ExclusiveStartKey":{"pk":{"S":"p1"},"sk":{"N":"4.5"}}}`,
		`{"TableName":"tbl","Segment":1,"TotalSegments":3}`,
		`{"TableName":"tbl","Select":"COUNT"}`,
		`{"TableName":"tbl","ProjectionExpression":"sk, m.z[1]"}`,
		`{"TableName":"tbl","FilterExpression":"sk > :n","ExpressionAttributeValues":{":n":{"N":"20"}}}`,
		`{"TableName":"tbl","IndexName":"all","Limit":4}`,
		`{"TableName":"tbl","IndexName":"keys","ReturnConsumedCapacity":"INDEXES"}`,
		`{"TableName":"tbl","IndexName":"lsi","Select":"ALL_ATTRIBUTES","Limit":3}`,
	}
	type call struct{ op, body string }
	var calls []call
	for _, q := range queries {
		calls = append(calls, call{"Query", q})
	}
	for _, q := range scans {
		calls = append(calls, call{"Scan", q})
	}
	for _, c := range calls {
		q := c.body
		c1, b1 := do(fast, c.op, q)
		c2, b2 := do(slow, c.op, q)
		if c1 != 200 || c1 != c2 || b1 != b2 {
			t.Fatalf("%s:\nencoded %d %s\n  plain %d %s", q, c1, b1, c2, b2)
		}
		if !strings.Contains(q, `"nobody"`) && strings.Contains(b1, `"Count":0`) {
			t.Fatalf("%s: nothing matched, so nothing was compared: %s", q, b1)
		}
	}
}
