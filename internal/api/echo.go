package api

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// The functions here echo structured values the way DynamoDB's validation
// layer prints them (Java toString of its model classes), e.g.
// "[KeySchemaElement(attributeName=pk, keyType=HASH)]". Maps are printed
// with sorted keys; DynamoDB's own order is its hash-map order.

func strOrNull(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func echoKeySchema(ks []wire.KeySchemaElement) string {
	return echoList(ks, func(b *strings.Builder, k wire.KeySchemaElement) {
		b.WriteString("KeySchemaElement(attributeName=")
		b.WriteString(strOrNull(k.AttributeName))
		b.WriteString(", keyType=")
		b.WriteString(orNull(k.KeyType))
		b.WriteByte(')')
	})
}

// echoList prints [e, ...].
func echoList[T any](items []T, each func(*strings.Builder, T)) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		each(&b, it)
	}
	b.WriteByte(']')
	return b.String()
}

func echoWriteRequests(m map[string][]wire.WriteRequest) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, t := range sortedKeys(m) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t)
		b.WriteString("=[")
		for j, wr := range m[t] {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("WriteRequest(putRequest=")
			if wr.PutRequest == nil {
				b.WriteString("null")
			} else {
				b.WriteString("PutRequest(item=")
				appendItemEcho(&b, wr.PutRequest.Item)
				b.WriteString(", workloadProfileName=null)")
			}
			b.WriteString(", deleteRequest=")
			if wr.DeleteRequest == nil {
				b.WriteString("null")
			} else {
				b.WriteString("DeleteRequest(key=")
				appendItemEcho(&b, wr.DeleteRequest.Key)
				b.WriteByte(')')
			}
			b.WriteByte(')')
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// echoJSON is a member's value as DynamoDB echoes some of them: compact
// JSON, as the client sent it.
func echoJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func appendItemEcho(b *strings.Builder, it attr.Item) {
	appendMapEcho(b, it, func(v attr.Value) { appendValueEcho(b, v) })
}

// appendMapEcho prints {k=v, ...} in key order, null for a nil map.
func appendMapEcho[V any](b *strings.Builder, m map[string]V, value func(V)) {
	if m == nil {
		b.WriteString("null")
		return
	}
	b.WriteByte('{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		value(m[k])
	}
	b.WriteByte('}')
}

// appendValueEcho prints AttributeValue(s=..., n=..., ...) with every
// member of DynamoDB's model class, null when unset.
func appendValueEcho(b *strings.Builder, v attr.Value) {
	field := func(name string, set bool, f func()) {
		if name != "s" {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteByte('=')
		if set {
			f()
		} else {
			b.WriteString("null")
		}
	}
	strList := func(ss []string) func() {
		return func() { b.WriteString("[" + strings.Join(ss, ", ") + "]") }
	}
	b.WriteString("AttributeValue(")
	field("s", v.T == attr.S, func() { b.WriteString(v.Str) })
	field("n", v.T == attr.N, func() { b.WriteString(v.Str) })
	field("b", v.T == attr.B, func() { appendBufEcho(b, v.Bin) })
	for _, n := range []string{"iNT", "dECIMAL", "dOUBLE"} {
		field(n, false, nil)
	}
	field("sS", v.T == attr.SS, strList(v.Strs))
	field("nS", v.T == attr.NS, strList(v.Strs))
	field("bS", v.T == attr.BS, func() {
		b.WriteByte('[')
		for i, x := range v.Bins {
			if i > 0 {
				b.WriteString(", ")
			}
			appendBufEcho(b, x)
		}
		b.WriteByte(']')
	})
	for _, n := range []string{"iNTSET", "dECIMALSET", "dOUBLESET"} {
		field(n, false, nil)
	}
	field("m", v.T == attr.M, func() { appendItemEcho(b, attr.Item(v.Map)) })
	field("l", v.T == attr.L, func() {
		b.WriteByte('[')
		for i, x := range v.List {
			if i > 0 {
				b.WriteString(", ")
			}
			appendValueEcho(b, x)
		}
		b.WriteByte(']')
	})
	field("nULL", v.T == attr.NULL, func() { b.WriteString("true") })
	field("bOOL", v.T == attr.BOOL, func() { b.WriteString(strconv.FormatBool(v.Bool)) })
	b.WriteByte(')')
}

func appendBufEcho(b *strings.Builder, p []byte) {
	n := strconv.Itoa(len(p))
	b.WriteString("java.nio.HeapByteBuffer[pos=0 lim=" + n + " cap=" + n + "]")
}

// echoField is one member of a Java-style echo: its name and a writer of
// its value (which writes "null" for an unset member).
type echoField struct {
	name  string
	write func(b *strings.Builder)
}

// appendObjectEcho prints Class(name=value, ...).
func appendObjectEcho(b *strings.Builder, class string, fields ...echoField) {
	b.WriteString(class)
	b.WriteByte('(')
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.name)
		b.WriteByte('=')
		f.write(b)
	}
	b.WriteByte(')')
}

func strEcho(p *string) func(*strings.Builder) {
	return func(b *strings.Builder) { b.WriteString(strOrNull(p)) }
}

func enumEcho(s string) func(*strings.Builder) {
	return func(b *strings.Builder) { b.WriteString(orNull(s)) }
}

func itemEcho(it attr.Item) func(*strings.Builder) {
	return func(b *strings.Builder) { appendItemEcho(b, it) }
}

func namesEcho(m map[string]string) func(*strings.Builder) {
	return func(b *strings.Builder) { appendMapEcho(b, m, func(v string) { b.WriteString(v) }) }
}

// echoTransactWriteItems prints TransactItems as DynamoDB echoes an
// over-long list (the same Java-style dump as BatchWriteItem's).
func echoTransactWriteItems(items []wire.TransactWriteItem) string {
	return echoList(items, func(b *strings.Builder, it wire.TransactWriteItem) {
		var check, put, del, upd []echoField
		if c := it.ConditionCheck; c != nil {
			check = append([]echoField{{"key", itemEcho(c.Key)}, {"tableName", strEcho(c.TableName)}},
				conditionEcho(c.ConditionExpression, c.ExpressionAttributeNames, c.ExpressionAttributeValues, c.ReturnValuesOnConditionCheckFailure)...)
		}
		if p := it.Put; p != nil {
			put = append([]echoField{{"item", itemEcho(p.Item)}, {"tableName", strEcho(p.TableName)}},
				conditionEcho(p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues, p.ReturnValuesOnConditionCheckFailure)...)
		}
		if d := it.Delete; d != nil {
			del = append([]echoField{{"key", itemEcho(d.Key)}, {"tableName", strEcho(d.TableName)}},
				conditionEcho(d.ConditionExpression, d.ExpressionAttributeNames, d.ExpressionAttributeValues, d.ReturnValuesOnConditionCheckFailure)...)
		}
		if u := it.Update; u != nil {
			upd = append([]echoField{{"key", itemEcho(u.Key)}, {"updateExpression", strEcho(u.UpdateExpression)}, {"tableName", strEcho(u.TableName)}},
				conditionEcho(u.ConditionExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues, u.ReturnValuesOnConditionCheckFailure)...)
		}
		appendObjectEcho(b, "TransactWriteItem", objectField("conditionCheck", "ConditionCheck", check), objectField("put", "Put", put),
			objectField("delete", "Delete", del), objectField("update", "Update", upd))
	})
}

// conditionEcho is the members every write action ends with.
func conditionEcho(cond *string, names map[string]string, values attr.Item, rvccf string) []echoField {
	return []echoField{{"conditionExpression", strEcho(cond)}, {"expressionAttributeNames", namesEcho(names)},
		{"expressionAttributeValues", itemEcho(values)}, {"returnValuesOnConditionCheckFailure", enumEcho(rvccf)}}
}

// objectField is a member holding a nested object, null when fields is.
func objectField(name, class string, fields []echoField) echoField {
	return echoField{name, func(b *strings.Builder) {
		if fields == nil {
			b.WriteString("null")
			return
		}
		appendObjectEcho(b, class, fields...)
	}}
}

// echoTransactGetItems is echoTransactWriteItems for TransactGetItems.
func echoTransactGetItems(items []wire.TransactGetItem) string {
	return echoList(items, func(b *strings.Builder, it wire.TransactGetItem) {
		var get []echoField
		if g := it.Get; g != nil {
			get = []echoField{{"key", itemEcho(g.Key)}, {"tableName", strEcho(g.TableName)},
				{"projectionExpression", strEcho(g.ProjectionExpression)}, {"expressionAttributeNames", namesEcho(g.ExpressionAttributeNames)}}
		}
		appendObjectEcho(b, "TransactGetItem", objectField("get", "Get", get))
	})
}
