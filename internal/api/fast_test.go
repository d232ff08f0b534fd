package api

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// fastBodies are request bodies of the hot operations, common and odd.
var fastBodies = []string{
	`{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"S":"b"}}}`,
	` { "TableName" : "t" , "Key" : { "pk" : { "S" : "a" } } , "ConsistentRead" : true } `,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#a, b","ExpressionAttributeNames":{"#a":"x"},"ReturnConsumedCapacity":"TOTAL"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"AttributesToGet":["a","b"]}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"AttributesToGet":[]}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ExpressionAttributeNames":{}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"},"n":{"N":"01.50"},"b":{"B":"AAE="},"l":{"L":[{"BOOL":true},{"NULL":true}]},"m":{"M":{"x":{"SS":["a","b"]}}}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a\u00e9\n"}},"ConditionExpression":"attribute_not_exists(pk)","ReturnValues":"ALL_OLD"}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"Expected":{"pk":{"Exists":false}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a","X":1}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"},"b":{"BOOL":1.5}}}`,
	`{"TableName":"t","Item":{"pk":{"N":"x"}}}`,
	`{"TableName":"t","Item":{"pk":{"S":5}}}`,
	`{"TableName":"t","Item":null}`,
	`{"tablename":"t","Item":{"pk":{"S":"a"}}}`,
	`{"TableName":"t","TableName":"u","Item":{"pk":{"S":"a"}}}`,
	`{"TableName":"t\u0041","Item":{"pk":{"S":"a"}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}}} x`,
	`{"TableName":"t","KeyConditionExpression":"pk = :p AND begins_with(sk, :s)","ExpressionAttributeValues":{":p":{"S":"A#001"},":s":{"S":"x"}},"Limit":25}`,
	`{"TableName":"t","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"A"}},"Limit":25.0}`,
	`{"TableName":"t","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"A"}},"Limit":025}`,
	`{"TableName":"t","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"A"}},"Limit":99999999999}`,
	`{"TableName":"t","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"A"}},"Limit":-3,"ScanIndexForward":false,"Select":"COUNT","IndexName":"gsi1","ExclusiveStartKey":{"pk":{"S":"A"}}}`,
	`{"TableName":"t","FilterExpression":"#a > :v","ExpressionAttributeNames":{"#a":"a"},"ExpressionAttributeValues":{":v":{"N":"1"}},"Segment":1,"TotalSegments":4,"Limit":10,"ConsistentRead":true,"Select":"ALL_ATTRIBUTES"}`,
	`{"TableName":"t","ScanFilter":{"a":{"ComparisonOperator":"NULL"}},"ConditionalOperator":"AND"}`,
	`{"TableName":"t","Segment":1.5,"TotalSegments":4,"ProjectionExpression":"a","ReturnConsumedCapacity":"TOTAL","IndexName":"gsi1","ExclusiveStartKey":{"pk":{"S":"A"}}}`,
	`{"TableName":"t","FilterExpression":"a = :v","ExpressionAttributeValues":{":v":{"S":"x"},":v":{"S":"y"}}}`,
	`{"TableName":"t","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}],"u":[]}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}},"DeleteRequest":{"Key":{"pk":{"S":"b"}}}},{},{"PutRequest":{}}]},"ReturnConsumedCapacity":"TOTAL"}`,
	`{"RequestItems":{"t":[],"t":[]}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}},"Item":{}}}]}}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET #c = #c + :one","ExpressionAttributeNames":{"#c":"counter"},"ExpressionAttributeValues":{":one":{"N":"1"}},"ReturnValues":"UPDATED_NEW"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"a":{"Action":"PUT","Value":{"S":"x"}}}}`,
	`{}`,
	`null`,
	`[]`,
	``,
}

// TestFastDecodeMatchesEncodingJSON checks that whenever the fast decoder
// accepts a body, it yields what encoding/json (decode) yields.
func TestFastDecodeMatchesEncodingJSON(t *testing.T) {
	fresh := []func() any{
		func() any { return new(wire.GetItemInput) },
		func() any { return new(wire.PutItemInput) },
		func() any { return new(wire.DeleteItemInput) },
		func() any { return new(wire.UpdateItemInput) },
		func() any { return new(wire.QueryInput) },
		func() any { return new(wire.ScanInput) },
		func() any { return new(wire.BatchWriteItemInput) },
	}
	accepted := 0
	for _, body := range fastBodies {
		for _, mk := range fresh {
			fast, slow := mk(), mk()
			if ok, _ := fastDecode([]byte(body), fast); !ok {
				if !reflect.DeepEqual(fast, mk()) {
					t.Errorf("%T %s: declined but changed the input", fast, body)
				}
				continue
			}
			accepted++
			if err := decode([]byte(body), slow); err != nil {
				t.Errorf("%T %s: fast accepted, encoding/json: %v", fast, body, err)
				continue
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%T %s:\nfast %#v\nslow %#v", fast, body, fast, slow)
			}
		}
	}
	if accepted < 15 {
		t.Errorf("fast path accepted only %d decodings", accepted)
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, b := range fastBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, mk := range []func() any{
			func() any { return new(wire.PutItemInput) },
			func() any { return new(wire.QueryInput) },
			func() any { return new(wire.ScanInput) },
			func() any { return new(wire.BatchWriteItemInput) },
		} {
			fast, slow := mk(), mk()
			if ok, _ := fastDecode(body, fast); !ok {
				continue
			}
			if err := decode(body, slow); err != nil {
				t.Fatalf("%T %q: fast accepted, encoding/json: %v", fast, body, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%T %q: fast and encoding/json differ", fast, body)
			}
		}
	})
}

// TestFastEncodeMatchesEncodingJSON checks the hand-written outputs byte
// for byte against encodeJSON.
func TestFastEncodeMatchesEncodingJSON(t *testing.T) {
	it := attr.Item{"pk": {T: attr.S, Str: "a<b>&\u2028"}, "n": {T: attr.N, Str: "1.5"},
		"m": {T: attr.M, Map: map[string]attr.Value{"z": {T: attr.NULL}, "a": {T: attr.BS, Bins: [][]byte{{1, 2}}}}}}
	one, units := int32(1), 0.5
	name := "t"
	cc := &wire.ConsumedCapacity{TableName: &name, CapacityUnits: &units, Table: &wire.Capacity{CapacityUnits: &units}}
	outs := []any{
		&wire.GetItemOutput{},
		&wire.GetItemOutput{Item: it},
		&wire.GetItemOutput{Item: attr.Item{}},
		&wire.GetItemOutput{Item: it, ConsumedCapacity: cc},
		&wire.PutItemOutput{},
		&wire.PutItemOutput{Attributes: it, ConsumedCapacity: cc, ItemCollectionMetrics: &wire.ItemCollectionMetrics{ItemCollectionKey: it, SizeEstimateRangeGB: []float64{0, 1}}},
		&wire.PutItemOutput{Attributes: attr.Item{}},
		&wire.UpdateItemOutput{Attributes: it},
		&wire.DeleteItemOutput{ConsumedCapacity: cc},
		&wire.QueryOutput{},
		&wire.QueryOutput{Count: &one, ScannedCount: &one, Items: []attr.Item{it, nil}, LastEvaluatedKey: it},
		&wire.QueryOutput{Count: &one, Items: []attr.Item{}, LastEvaluatedKey: attr.Item{}, ConsumedCapacity: cc},
		&wire.ScanOutput{Count: &one, ScannedCount: &one, Items: []attr.Item{it}},
		&wire.BatchWriteItemOutput{},
		&wire.BatchWriteItemOutput{UnprocessedItems: map[string][]wire.WriteRequest{}},
		&wire.BatchWriteItemOutput{UnprocessedItems: map[string][]wire.WriteRequest{"t": {{PutRequest: &wire.PutRequest{Item: it}}}}},
	}
	for _, out := range outs {
		var fast, slow bytes.Buffer
		fast.WriteString("prefix")
		if err := encodeOutput(&fast, out); err != nil {
			t.Fatal(err)
		}
		slow.WriteString("prefix")
		if err := encodeJSON(&slow, out); err != nil {
			t.Fatal(err)
		}
		if fast.String() != slow.String() {
			t.Errorf("%T:\nfast %s\nslow %s", out, fast.String(), slow.String())
		}
	}
}
