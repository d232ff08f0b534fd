package kinesisdest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
)

func TestStreamName(t *testing.T) {
	for arn, want := range map[string]string{
		"arn:aws:kinesis:us-east-1:000000000000:stream/Music": "Music",
		"arn:aws:kinesis:us-east-1:000000000000:stream/":      "",
		"arn:aws:kinesis:us-east-1:000000000000:stream/a/b":   "",
		"arn:aws:dynamodb:us-east-1:000000000000:table/Music": "",
		"not-an-arn": "",
	} {
		if got := streamName(arn); got != want {
			t.Errorf("streamName(%q) = %q, want %q", arn, got, want)
		}
	}
}

func TestEncodeRecord(t *testing.T) {
	tbl := &change.Table{Name: "Music", ID: 7, Hash: change.KeyAttr{Name: "pk", Type: attr.S}}
	old := attr.Item{"pk": sv("a"), "v": sv("x")}
	at := time.UnixMicro(1700000000123456)
	c := change.Change{Table: tbl, Old: old, TTL: true}
	b, err := encodeRecord("eu-west-1", &c, at, "MICROSECOND")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	d := m["dynamodb"].(map[string]any)
	if m["eventName"] != "REMOVE" || m["awsRegion"] != "eu-west-1" || m["tableName"] != "Music" ||
		m["recordFormat"] != "application/json" || m["eventSource"] != "aws:dynamodb" ||
		d["ApproximateCreationDateTime"] != float64(1700000000123456) || d["ApproximateCreationDateTimePrecision"] != "MICROSECOND" {
		t.Fatalf("record %s", b)
	}
	if u, ok := m["userIdentity"].(map[string]any); !ok || u["type"] != "Service" || u["principalId"] != "dynamodb.amazonaws.com" {
		t.Fatalf("userIdentity of a TTL deletion: %s", b)
	}
	if _, ok := d["NewImage"]; ok {
		t.Fatalf("a REMOVE with a NewImage: %s", b)
	}
	c = change.Change{Table: tbl, New: old}
	b, _ = encodeRecord("eu-west-1", &c, at, "MILLISECOND")
	json.Unmarshal(b, &m)
	if m["eventName"] != "INSERT" || m["userIdentity"] != nil || m["dynamodb"].(map[string]any)["ApproximateCreationDateTime"] != float64(1700000000123) {
		t.Fatalf("record %s", b)
	}
	c2 := change.Change{Table: tbl, Old: old, New: attr.Item{"pk": sv("a")}}
	if partitionKey(&c) != partitionKey(&c2) || len(partitionKey(&c)) != 32 {
		t.Fatalf("partition keys %q %q", partitionKey(&c), partitionKey(&c2))
	}
}

func TestOutboxRoundTrip(t *testing.T) {
	pk, data, err := decodeOutbox(encodeOutbox("ABC", []byte(`{"x":1}`)))
	if err != nil || pk != "ABC" || string(data) != `{"x":1}` {
		t.Fatalf("%q %q %v", pk, data, err)
	}
	if _, _, err := decodeOutbox([]byte{9, 'a'}); err == nil {
		t.Fatal("a truncated record decoded")
	}
	d, s, err := outboxID(outboxKey(3, 99))
	if err != nil || d != 3 || s != 99 {
		t.Fatalf("%d %d %v", d, s, err)
	}
}

func sv(s string) attr.Value { return attr.Value{T: attr.S, Str: s} }
