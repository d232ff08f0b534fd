package test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Which fault DynamoDB reports when a request carries a value nested past
// its limits and something else is wrong as well (us-east-1 and
// eu-west-2, 2026-10-09, in a public conformance suite). Member faults come
// before the values; past 62 levels (JSON deeper than 128) the single-item
// writes word them the older way and check ReturnValues first, and a
// transaction action's expressions and top-level names come before its
// values. Every table is absent: each answer comes before a lookup.
func TestDeepRequestFaultOrder(t *testing.T) {
	const (
		table = "deep_order_absent"
		nest  = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
		xor   = "1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"
		rvOld = "1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
		rvNew = "1 validation error detected: Failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATE_NEW, NONE]"
	)
	deep := func(n int) any {
		var v any = map[string]any{"S": "leaf"}
		for i := 0; i < n; i++ {
			v = map[string]any{"M": map[string]any{"n": v}}
		}
		return v
	}
	s := func(v string) any { return map[string]any{"S": v} }
	key := func(pk any) map[string]any { return map[string]any{"pk": pk, "sk": s("1")} }
	cond := func(depth int) map[string]any {
		return map[string]any{"ConditionExpression": "#d = :deep", "ExpressionAttributeNames": map[string]any{"#d": "d"},
			"ExpressionAttributeValues": map[string]any{":deep": deep(depth)}}
	}
	with := func(m map[string]any, more map[string]any) map[string]any {
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	expected := func(depth int) map[string]any {
		return map[string]any{"a": map[string]any{"Value": deep(depth)}, "b": map[string]any{"Exists": false}}
	}
	for _, c := range []struct {
		op   string
		body any
		want string
	}{
		{"PutItem", map[string]any{"TableName": table, "Item": key(s("a")), "Expected": expected(100), "ConditionalOperator": "XOR"}, xor},
		{"PutItem", map[string]any{"TableName": table, "Item": key(s("a")), "Expected": expected(40), "ConditionalOperator": "XOR"}, xor},
		{"UpdateItem", map[string]any{"TableName": table, "Key": key(s("a")), "Expected": expected(100), "ConditionalOperator": "XOR",
			"AttributeUpdates": map[string]any{"x": map[string]any{"Action": "PUT", "Value": s("1")}}}, xor},
		{"DeleteItem", with(map[string]any{"TableName": table, "Key": key(s("a")), "ReturnValues": "BOGUS"}, cond(63)), rvOld},
		{"DeleteItem", with(map[string]any{"TableName": table, "Key": key(s("a")), "ReturnValues": "BOGUS"}, cond(62)), rvNew},
		{"DeleteItem", map[string]any{"TableName": table, "Key": key(s("a")), "ReturnValues": "BOGUS",
			"Expected": map[string]any{"d": map[string]any{"Value": deep(63)}}}, rvOld},
		{"DeleteItem", map[string]any{"TableName": table, "Key": key(deep(100)), "ReturnValues": "BOGUS"}, rvOld},
		{"DeleteItem", with(map[string]any{"TableName": table, "Key": key(s("a")), "ReturnValues": "UPDATED_NEW"}, cond(100)),
			"ReturnValues can only be ALL_OLD or NONE"},
		{"DeleteItem", with(map[string]any{"TableName": table, "Key": key(s("a")), "ReturnValues": "UPDATED_NEW"}, cond(40)),
			"1 validation error detected: " + nest},
	} {
		body, _ := json.Marshal(c.body)
		typ, msg := rawCall(t, shared, c.op, string(body))
		if typ != "ValidationException" || msg != c.want {
			t.Errorf("%s %.150s\n got %s: %q\nwant %q", c.op, body, typ, msg, c.want)
		}
	}

	put := func(item map[string]any, more map[string]any) any {
		return map[string]any{"Put": with(map[string]any{"TableName": table, "Item": item}, more)}
	}
	withEmpty := func(m map[string]any) map[string]any { m[""] = s("x"); return m }
	longCond := "a = :v" + strings.Repeat(" AND a = :v", 373)
	for _, c := range []struct {
		items []any
		want  string
	}{
		{[]any{put(with(key(s("a")), map[string]any{"d": deep(100)}), nil), put(withEmpty(key(s("b"))), nil)}, nest},
		{[]any{put(withEmpty(key(s("a"))), nil), put(with(key(s("b")), map[string]any{"d": deep(100)}), nil)}, "Empty attribute name"},
		{[]any{put(withEmpty(with(key(s("a")), map[string]any{"d": deep(100)})), nil)}, "Empty attribute name"},
		{[]any{map[string]any{"Delete": map[string]any{"TableName": table, "Key": key(deep(100)), "ConditionExpression": "a = = b"}}},
			`Invalid ConditionExpression: Syntax error; token: "=", near: "= = b"`},
		{[]any{map[string]any{"Delete": map[string]any{"TableName": table, "Key": key(deep(100)), "ConditionExpression": longCond,
			"ExpressionAttributeValues": map[string]any{":v": s("x")}}}},
			"Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4109"},
		{[]any{map[string]any{"Delete": map[string]any{"TableName": table, "Key": key(deep(40)), "ConditionExpression": "a = = b"}}}, nest},
	} {
		body, _ := json.Marshal(map[string]any{"TransactItems": c.items})
		typ, msg := rawCall(t, shared, "TransactWriteItems", string(body))
		if typ != "ValidationException" || msg != c.want {
			t.Errorf("%.150s\n got %s: %q\nwant %q", body, typ, msg, c.want)
		}
	}
	// The empty name is found first even when it follows the deep value.
	deepValue, _ := json.Marshal(deep(100))
	typ, msg := rawCall(t, shared, "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"`+table+
		`","Item":{"pk":{"S":"a"},"sk":{"S":"1"},"d":`+string(deepValue)+`,"":{"S":"x"}}}}]}`)
	if typ != "ValidationException" || msg != "Empty attribute name" {
		t.Errorf("deep value, then empty name: %s: %q", typ, msg)
	}
}
