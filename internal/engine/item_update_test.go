package engine

import (
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

func TestUpdateReturnValues(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	key := attr.Item{"pk": dpS("a")}
	for _, c := range []struct{ rv, want string }{
		{"NONE", "<nil>"},
		{"UPDATED_OLD", `{"gone":{"S":"x"},"n":{"N":"1"},"same":{"N":"1"}}`},
		{"UPDATED_NEW", `{"n":{"N":"3"},"same":{"N":"1"}}`},
		{"ALL_OLD", `{"gone":{"S":"x"},"keep":{"S":"k"},"n":{"N":"1"},"pk":{"S":"a"},"same":{"N":"1"}}`},
		{"ALL_NEW", `{"keep":{"S":"k"},"n":{"N":"3"},"pk":{"S":"a"},"same":{"N":"1"}}`},
	} {
		dpPut(t, e, "t", attr.Item{"pk": dpS("a"), "same": dpN("1"), "n": dpN("1"), "gone": dpS("x"), "keep": dpS("k")})
		out, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, ReturnValues: c.rv,
			UpdateExpression:          dpStr("SET same = :one, n = n + :two REMOVE gone"),
			ExpressionAttributeValues: attr.Item{":one": dpN("1"), ":two": dpN("2")}})
		if err != nil {
			t.Fatal(err)
		}
		if got := dpJSON(out.Attributes); got != c.want {
			t.Errorf("%s: got %s want %s", c.rv, got, c.want)
		}
	}
	// Legacy AttributeUpdates on a missing item creates it from the key.
	out, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("new")}, ReturnValues: "ALL_NEW",
		AttributeUpdates: map[string]wire.AttributeValueUpdate{"c": {Action: "ADD", Value: &attr.Value{T: attr.N, Str: "5"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := dpJSON(out.Attributes); got != `{"c":{"N":"5"},"pk":{"S":"new"}}` {
		t.Fatalf("AttributeUpdates: %s", got)
	}
}

func TestItemErrors(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S", "sk:N")
	key := attr.Item{"pk": dpS("a"), "sk": dpN("1")}
	huge := strings.Repeat("x", 400*1024)
	for _, c := range []struct {
		name     string
		err      error
		typ, msg string
	}{
		{"put missing table", func() error {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("nope"), Item: key})
			return err
		}(), "ResourceNotFoundException", "Requested resource not found"},
		{"put missing key", func() error {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: attr.Item{"pk": dpS("a")}})
			return err
		}(), "ValidationException", "One or more parameter values were invalid: Missing the key sk in the item"},
		{"put key type", func() error {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: attr.Item{"pk": dpN("1"), "sk": dpN("1")}})
			return err
		}(), "ValidationException", "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"put empty key", func() error {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: attr.Item{"pk": dpS(""), "sk": dpN("1")}})
			return err
		}(), "ValidationException", "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"put return values", func() error {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: key, ReturnValues: "ALL_NEW"})
			return err
		}(), "ValidationException", "1 validation error detected: ReturnValues can only be ALL_OLD or NONE"},
		{"put too big", func() error {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: attr.Item{"pk": dpS("a"), "sk": dpN("1"), "x": dpS(huge)}})
			return err
		}(), "ValidationException", "1 validation error detected: Item size has exceeded the maximum allowed size"},
		{"put mixed", func() error {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: key, ConditionExpression: dpStr("a = b"),
				Expected: map[string]wire.ExpectedAttributeValue{"a": {Exists: dpBool(false)}}})
			return err
		}(), "ValidationException", "1 validation error detected: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{"get wrong key", func() error {
			_, err := e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("a")}})
			return err
		}(), "ValidationException", "The provided key element does not match the schema"},
		{"delete return values", func() error {
			_, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("t"), Key: key, ReturnValues: "UPDATED_OLD"})
			return err
		}(), "ValidationException", "1 validation error detected: ReturnValues can only be ALL_OLD or NONE"},
		{"update key attr", func() error {
			_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, UpdateExpression: dpStr("SET sk = :v"),
				ExpressionAttributeValues: attr.Item{":v": dpN("2")}})
			return err
		}(), "ValidationException", "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key"},
		{"update unused value", func() error {
			_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, UpdateExpression: dpStr("SET a = :v"),
				ExpressionAttributeValues: attr.Item{":v": dpN("2"), ":unused": dpN("1")}})
			return err
		}(), "ValidationException", "1 validation error detected: Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}"},
		{"update too big", func() error {
			_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, UpdateExpression: dpStr("SET a = :v"),
				ExpressionAttributeValues: attr.Item{":v": dpS(huge)}})
			return err
		}(), "ValidationException", "Item size to update has exceeded the maximum allowed size"},
	} {
		t.Run(c.name, func(t *testing.T) { dpWantErr(t, c.err, c.typ, c.msg) })
	}
}

func TestItemCapacity(t *testing.T) {
	e := dpEngine(t)
	dpTable(t, e, "t", "pk:S")
	key := attr.Item{"pk": dpS("a")}
	units := func(cc *wire.ConsumedCapacity) float64 {
		if cc == nil || *cc.TableName != "t" || cc.ReadCapacityUnits != nil || cc.WriteCapacityUnits != nil {
			t.Fatalf("consumed capacity shape: %+v", cc)
		}
		return *cc.CapacityUnits
	}
	get := func(consistent bool) float64 {
		out, err := e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr("t"), Key: key, ConsistentRead: dpBool(consistent), ReturnConsumedCapacity: "TOTAL"})
		if err != nil {
			t.Fatal(err)
		}
		return units(out.ConsumedCapacity)
	}
	if get(false) != 0.5 || get(true) != 1 {
		t.Fatal("missing item read capacity")
	}
	// 5000-byte item: 5 write units, 2 read units (1 eventually consistent).
	item := attr.Item{"pk": dpS("a"), "v": dpS(strings.Repeat("x", 5000-3))}
	p, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: item, ReturnConsumedCapacity: "TOTAL"})
	if err != nil || units(p.ConsumedCapacity) != 5 {
		t.Fatalf("put capacity: %v %+v", err, p)
	}
	if get(false) != 1 || get(true) != 2 {
		t.Fatal("read capacity")
	}
	// Shrinking the item still costs the larger, old size.
	u, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, UpdateExpression: dpStr("REMOVE v"), ReturnConsumedCapacity: "INDEXES"})
	if err != nil || units(u.ConsumedCapacity) != 5 || *u.ConsumedCapacity.Table.CapacityUnits != 5 {
		t.Fatalf("update capacity: %v %+v", err, u)
	}
	d, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("t"), Key: key, ReturnConsumedCapacity: "TOTAL"})
	if err != nil || units(d.ConsumedCapacity) != 1 {
		t.Fatalf("delete capacity: %v %+v", err, d)
	}
	if p, _ := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: key}); p.ConsumedCapacity != nil {
		t.Fatal("capacity without ReturnConsumedCapacity")
	}
}

// Expressions may not reach into key attributes, the table's (Key: name)
// or any index's (IndexKey: name), for reading or writing; DynamoDB
// refuses before it reads (dynalite's tests, written against DynamoDB).
func TestScalarKeyPaths(t *testing.T) {
	e := dpEngine(t)
	in := &wire.CreateTableInput{TableName: dpStr("t"), BillingMode: BillingPayPerRequest,
		KeySchema: ctlKS("pk", "sk"), AttributeDefinitions: ctlDefs("pk", "S", "sk", "S", "g", "S", "l", "S"),
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndex{{IndexName: dpStr("G"), KeySchema: ctlKS("g"), Projection: &wire.Projection{ProjectionType: ProjectAll}}},
		LocalSecondaryIndexes:  []wire.LocalSecondaryIndex{{IndexName: dpStr("L"), KeySchema: ctlKS("pk", "l"), Projection: &wire.Projection{ProjectionType: ProjectAll}}}}
	if _, err := e.CreateTable(dpCtx, in); err != nil {
		t.Fatal(err)
	}
	key := attr.Item{"pk": dpS("p"), "sk": dpS("s")}
	one := attr.Item{":a": dpN("1")}
	const msg = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"update ADD into an index key", func() error {
			_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, UpdateExpression: dpStr("ADD g.b :a"), ExpressionAttributeValues: one})
			return err
		}, msg + "IndexKey: g"},
		{"update SET reading an LSI key element", func() error {
			_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, UpdateExpression: dpStr("SET f = l[1]")})
			return err
		}, msg + "IndexKey: l"},
		{"update condition on a table key path", func() error {
			_, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, UpdateExpression: dpStr("SET f = :a"),
				ConditionExpression: dpStr("attribute_exists(sk.x)"), ExpressionAttributeValues: one})
			return err
		}, msg + "Key: sk"},
		{"get projection", func() error {
			_, err := e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr("t"), Key: key, ProjectionExpression: dpStr("pk[0]")})
			return err
		}, msg + "Key: pk"},
		{"put condition", func() error {
			_, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("t"), Item: key, ConditionExpression: dpStr("attribute_not_exists(g.x)")})
			return err
		}, msg + "IndexKey: g"},
		{"delete condition", func() error {
			_, err := e.DeleteItem(dpCtx, &wire.DeleteItemInput{TableName: dpStr("t"), Key: key, ConditionExpression: dpStr("attribute_exists(g[2])")})
			return err
		}, msg + "IndexKey: g"},
		{"scan filter, table key before index key", func() error {
			_, err := e.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("t"), FilterExpression: dpStr("attribute_exists(g.x) AND attribute_exists(pk.y)")})
			return err
		}, msg + "Key: pk"},
		{"index query projection", func() error {
			_, err := e.Query(dpCtx, &wire.QueryInput{TableName: dpStr("t"), IndexName: dpStr("G"), KeyConditionExpression: dpStr("g = :g"),
				ExpressionAttributeValues: attr.Item{":g": dpS("x")}, ProjectionExpression: dpStr("l.m")})
			return err
		}, msg + "IndexKey: l"},
	} {
		dpWantErr(t, c.run(), "ValidationException", c.want)
	}
	// Whole key attributes and nested paths elsewhere stay fine.
	if _, err := e.UpdateItem(dpCtx, &wire.UpdateItemInput{TableName: dpStr("t"), Key: key, UpdateExpression: dpStr("SET m = :m, g = :g"),
		ConditionExpression: dpStr("attribute_not_exists(g)"), ExpressionAttributeValues: attr.Item{":m": {T: attr.M, Map: map[string]attr.Value{"x": dpN("1")}}, ":g": dpS("x")}}); err != nil {
		t.Fatal(err)
	}
	got, err := e.GetItem(dpCtx, &wire.GetItemInput{TableName: dpStr("t"), Key: key, ProjectionExpression: dpStr("m.x, g")})
	if err != nil || len(got.Item) != 2 {
		t.Fatalf("GetItem: %v, %v", got, err)
	}
}
