package api

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// bigValuesPut is a PutItem body with n unused ExpressionAttributeValues,
// each a 6-byte string (about 14 bytes of placeholders and 24 of JSON).
func bigValuesPut(n int) string {
	return bigValues(`{"TableName":"t","Item":{"pk":{"S":"k"}},"ExpressionAttributeValues":{`, n)
}

// bigValues is head (a body up to its ExpressionAttributeValues' opening
// brace) followed by n values as bigValuesPut has them.
func bigValues(head string, n int) string {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `":v%d":{"S":"abcdef"}`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// A request whose placeholders pass DynamoDB's 2 MB is refused while it is
// decoded, before the rest of the map is built: a 12 MB PutItem with
// 500,000 values allocates some 105 MB (40 MB of it reading the body, the
// rest the 150,000 values within the 2 MB), where it took 416 MB when the
// whole map was decoded and then decoded again to order the errors.
func TestSubstitutionRefusedWhileDecoding(t *testing.T) {
	s := NewServer(newFake(), Options{})
	body := bigValuesPut(500_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := do(t, s, tgt+"PutItem", body)
	runtime.ReadMemStats(&after)
	typ, msg := errOf(t, r)
	if r.status != 400 || !strings.HasSuffix(typ, "ValidationException") ||
		msg != "1 validation error detected: ExpressionAttributeNames and ExpressionAttributeValues size has exceeded the maximum allowed size" {
		t.Fatalf("%d %s: %.300s", r.status, typ, msg)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes of body: %d MB allocated", len(body), alloc>>20)
	if alloc > 200<<20 {
		t.Errorf("refusing a %d MB request allocated %d MB", len(body)>>20, alloc>>20)
	}
	// Scan too (read by encoding/json before, whole).
	r = do(t, s, tgt+"Scan", bigValues(`{"TableName":"t","FilterExpression":"a = :v0","ExpressionAttributeValues":{`, 500_000))
	if _, msg := errOf(t, r); r.status != 400 || msg != "ExpressionAttributeNames and ExpressionAttributeValues size has exceeded the maximum allowed size" {
		t.Errorf("Scan with 500,000 values: %d %.300s", r.status, msg)
	}
	// Names count against the same 2 MB.
	var names strings.Builder
	names.WriteString(`{"TableName":"t","Key":{"pk":{"S":"k"}},"ProjectionExpression":"#n0","ExpressionAttributeNames":{`)
	for i := range 200_000 {
		if i > 0 {
			names.WriteByte(',')
		}
		fmt.Fprintf(&names, `"#n%d":"name%d"`, i, i)
	}
	names.WriteString(`}}`)
	r = do(t, s, tgt+"GetItem", names.String())
	if _, msg := errOf(t, r); r.status != 400 || !strings.Contains(msg, "size has exceeded the maximum allowed size") {
		t.Errorf("GetItem with 200,000 names: %d %.300s", r.status, msg)
	}
}
