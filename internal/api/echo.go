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
	var b strings.Builder
	b.WriteByte('[')
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("KeySchemaElement(attributeName=")
		b.WriteString(strOrNull(k.AttributeName))
		b.WriteString(", keyType=")
		b.WriteString(orNull(k.KeyType))
		b.WriteByte(')')
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
	if it == nil {
		b.WriteString("null")
		return
	}
	b.WriteByte('{')
	for i, k := range sortedKeys(it) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		appendValueEcho(b, it[k])
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
	return func(b *strings.Builder) {
		if m == nil {
			b.WriteString("null")
			return
		}
		b.WriteByte('{')
		for i, k := range sortedKeys(m) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "=" + m[k])
		}
		b.WriteByte('}')
	}
}

// echoTransactWriteItems prints TransactItems as DynamoDB echoes an
// over-long list (the same Java-style dump as BatchWriteItem's).
func echoTransactWriteItems(items []wire.TransactWriteItem) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		action := func(present bool, class string, fields ...echoField) func(*strings.Builder) {
			return func(b *strings.Builder) {
				if !present {
					b.WriteString("null")
					return
				}
				appendObjectEcho(b, class, fields...)
			}
		}
		var f []echoField
		if c := it.ConditionCheck; c != nil {
			f = append(f, echoField{"conditionCheck", action(true, "ConditionCheck", echoField{"key", itemEcho(c.Key)}, echoField{"tableName", strEcho(c.TableName)},
				echoField{"conditionExpression", strEcho(c.ConditionExpression)}, echoField{"expressionAttributeNames", namesEcho(c.ExpressionAttributeNames)},
				echoField{"expressionAttributeValues", itemEcho(c.ExpressionAttributeValues)}, echoField{"returnValuesOnConditionCheckFailure", enumEcho(c.ReturnValuesOnConditionCheckFailure)})})
		} else {
			f = append(f, echoField{"conditionCheck", action(false, "")})
		}
		if p := it.Put; p != nil {
			f = append(f, echoField{"put", action(true, "Put", echoField{"item", itemEcho(p.Item)}, echoField{"tableName", strEcho(p.TableName)},
				echoField{"conditionExpression", strEcho(p.ConditionExpression)}, echoField{"expressionAttributeNames", namesEcho(p.ExpressionAttributeNames)},
				echoField{"expressionAttributeValues", itemEcho(p.ExpressionAttributeValues)}, echoField{"returnValuesOnConditionCheckFailure", enumEcho(p.ReturnValuesOnConditionCheckFailure)})})
		} else {
			f = append(f, echoField{"put", action(false, "")})
		}
		if d := it.Delete; d != nil {
			f = append(f, echoField{"delete", action(true, "Delete", echoField{"key", itemEcho(d.Key)}, echoField{"tableName", strEcho(d.TableName)},
				echoField{"conditionExpression", strEcho(d.ConditionExpression)}, echoField{"expressionAttributeNames", namesEcho(d.ExpressionAttributeNames)},
				echoField{"expressionAttributeValues", itemEcho(d.ExpressionAttributeValues)}, echoField{"returnValuesOnConditionCheckFailure", enumEcho(d.ReturnValuesOnConditionCheckFailure)})})
		} else {
			f = append(f, echoField{"delete", action(false, "")})
		}
		if u := it.Update; u != nil {
			f = append(f, echoField{"update", action(true, "Update", echoField{"key", itemEcho(u.Key)}, echoField{"updateExpression", strEcho(u.UpdateExpression)},
				echoField{"tableName", strEcho(u.TableName)}, echoField{"conditionExpression", strEcho(u.ConditionExpression)},
				echoField{"expressionAttributeNames", namesEcho(u.ExpressionAttributeNames)}, echoField{"expressionAttributeValues", itemEcho(u.ExpressionAttributeValues)},
				echoField{"returnValuesOnConditionCheckFailure", enumEcho(u.ReturnValuesOnConditionCheckFailure)})})
		} else {
			f = append(f, echoField{"update", action(false, "")})
		}
		appendObjectEcho(&b, "TransactWriteItem", f...)
	}
	b.WriteByte(']')
	return b.String()
}

// echoTransactGetItems is echoTransactWriteItems for TransactGetItems.
func echoTransactGetItems(items []wire.TransactGetItem) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		get := func(b *strings.Builder) {
			g := it.Get
			if g == nil {
				b.WriteString("null")
				return
			}
			appendObjectEcho(b, "Get", echoField{"key", itemEcho(g.Key)}, echoField{"tableName", strEcho(g.TableName)},
				echoField{"projectionExpression", strEcho(g.ProjectionExpression)}, echoField{"expressionAttributeNames", namesEcho(g.ExpressionAttributeNames)})
		}
		appendObjectEcho(&b, "TransactGetItem", echoField{"get", get})
	}
	b.WriteByte(']')
	return b.String()
}
