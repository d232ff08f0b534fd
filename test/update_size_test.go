package test

// UpdateItem's item size limit. In most regions DynamoDB refuses a
// standalone UpdateItem when max(finished item, statement charge) passes
// 409,600 bytes, where the statement charge is what the UpdateExpression
// writes (names and values) plus a cost per clause; AttributeUpdates, a
// PartiQL UPDATE and a transacted Update size the finished item only, and
// ten regions (us-east-2 among them) size UpdateItem flat as well. Every
// figure below was measured by a public conformance suite run against
// DynamoDB (eu-west-2 2026-08 to 2026-10, bisected, the accepted item read
// back; all 33 regions 2026-09).

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	maxItemBytes    = 409600
	msgUpdateTooBig = "Item size to update has exceeded the maximum allowed size"
	// padClauseCost is what `SET b = :pad` costs besides the padding: 3 for
	// the update, 19 for the SET, 1 for the name b.
	padClauseCost = 3 + 19 + 1
)

type avMap = map[string]types.AttributeValue

// sizeOf is DynamoDB's size of a value, for the types these tests read
// back (numbers are left out on purpose: no read-back here holds one).
func sizeOf(t *testing.T, v types.AttributeValue) int {
	t.Helper()
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range x.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + sizeOf(t, e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += len(k) + 1 + sizeOf(t, e)
		}
		return n
	}
	t.Fatalf("sizeOf: unsupported value %#v", v)
	return 0
}

func itemSizeOf(t *testing.T, it avMap) int {
	t.Helper()
	n := 0
	for k, v := range it {
		n += len(k) + sizeOf(t, v)
	}
	return n
}

func merged(ms ...avMap) avMap {
	out := avMap{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func padding(n int) types.AttributeValue { return S(strings.Repeat("x", n)) }

// storedItem reads an item back, failing when it is absent.
func storedItem(t *testing.T, c *dynamodb.Client, table string, key avMap) avMap {
	t.Helper()
	out, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Item == nil {
		t.Fatalf("no item at %v", key)
	}
	return out.Item
}

// updShape is an UpdateItem that lands padding in b from :pad.
type updShape struct {
	expr      string
	names     map[string]string
	values    avMap
	extra     avMap // attributes the statement writes besides b
	untouched avMap // attributes the item holds that the statement leaves alone
	seed      avMap // what the item must hold before (besides untouched)
}

func (s updShape) send(c *dynamodb.Client, table string, key avMap, pad int, cond *string) error {
	if seed := merged(s.seed, s.untouched); len(seed) > 0 {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: merged(key, seed)}); err != nil {
			return err
		}
	}
	_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key,
		UpdateExpression:          aws.String(s.expr),
		ConditionExpression:       cond,
		ExpressionAttributeNames:  s.names,
		ExpressionAttributeValues: merged(s.values, avMap{":pad": padding(pad)}),
	})
	return err
}

// wantCeiling checks that UpdateItem in shape s stores a finished item of
// exactly ceiling bytes at key accepted and refuses ceiling+1 at key
// refused (whose size is the same) with the update wording.
func wantCeiling(t *testing.T, c *dynamodb.Client, table string, accepted, refused avMap, s updShape, ceiling int) {
	t.Helper()
	if itemSizeOf(t, accepted) != itemSizeOf(t, refused) {
		t.Fatal("the two keys differ in size")
	}
	pad := func(k avMap, bytes int) int {
		return bytes - itemSizeOf(t, k) - itemSizeOf(t, s.extra) - itemSizeOf(t, s.untouched) - len("b")
	}
	if err := s.send(c, table, accepted, pad(accepted, ceiling), nil); err != nil {
		t.Fatalf("%s at %d bytes: %v", s.expr, ceiling, err)
	}
	if got := itemSizeOf(t, storedItem(t, c, table, accepted)); got != ceiling {
		t.Fatalf("%s: stored %d bytes, want %d", s.expr, got, ceiling)
	}
	err := s.send(c, table, refused, pad(refused, ceiling+1), nil)
	wantAPIError(t, err, "ValidationException", msgUpdateTooBig)
}

func oneSet() updShape { return updShape{expr: "SET b = :pad"} }

func hashKey(v string) avMap { return avMap{"pk": S(v)} }

func TestUpdateSizeExcludesKey(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	// A 3-byte key against a 22-byte single SET: 19 under the cap.
	wantCeiling(t, c, table, hashKey("K"), hashKey("L"), oneSet(), maxItemBytes-19)
	// Past a 20-byte key the finished item binds, at exactly 409,600.
	for _, n := range []int{100, 1024} {
		wantCeiling(t, c, table, hashKey(strings.Repeat("a", n)), hashKey(strings.Repeat("b", n)), oneSet(), maxItemBytes)
	}
	// 15 bytes of key value buy back what 14 more of key name do.
	wantCeiling(t, c, table, hashKey(strings.Repeat("v", 15)), hashKey(strings.Repeat("w", 15)), oneSet(), maxItemBytes-5)
	long := createTable(t, c, "partitionKeyName", "", "")
	wantCeiling(t, c, long, avMap{"partitionKeyName": S("v")}, avMap{"partitionKeyName": S("w")}, oneSet(), maxItemBytes-5)
	// A sort key's bytes are bought back too (sk + "a": 3).
	composite := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	wantCeiling(t, c, table, hashKey("S"), hashKey("T"), oneSet(), maxItemBytes-19)
	wantCeiling(t, c, composite, avMap{"pk": S("S"), "sk": S("a")}, avMap{"pk": S("T"), "sk": S("a")}, oneSet(), maxItemBytes-16)
}

func TestUpdateSizeChargesClauses(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	key := func(id string) (avMap, avMap) { return hashKey("A" + id), hashKey("B" + id) }
	// One SET: 22 (3 + 19) against a 4-byte key.
	a, r := key("1")
	wantCeiling(t, c, table, a, r, oneSet(), maxItemBytes+4-22)
	// A second SET costs 19 more, whatever it writes.
	for i, v := range []string{"y", strings.Repeat("y", 500)} {
		a, r := key(fmt.Sprint(2 + i))
		wantCeiling(t, c, table, a, r, updShape{expr: "SET b = :pad, c = :c",
			values: avMap{":c": S(v)}, extra: avMap{"c": S(v)}}, maxItemBytes+4-41)
	}
	// A REMOVE costs 1 and its name.
	a, r = key("4")
	wantCeiling(t, c, table, a, r, updShape{expr: "SET b = :pad REMOVE r", seed: avMap{"r": S("z")}}, maxItemBytes+4-24)
	// An attribute the statement leaves alone is out of the charge (11 bytes).
	a, r = key("5")
	wantCeiling(t, c, table, a, r, updShape{expr: "SET b = :pad", untouched: avMap{"u": S(strings.Repeat("y", 10))}}, maxItemBytes+4-22+11)
	// The name written counts, not the placeholder it was written as.
	a, r = key("6")
	wantCeiling(t, c, table, a, r, updShape{expr: "SET #twelvechars = :pad", names: map[string]string{"#twelvechars": "b"}}, maxItemBytes+4-22)
}

// TestUpdateSizeDocumentPaths compares a SET through a map key or a list
// index with the plain SET writing the same finished value.
func TestUpdateSizeDocumentPaths(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	update := func(key avMap, expr string, values avMap, names map[string]string) error {
		_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: values, ExpressionAttributeNames: names})
		return err
	}
	wholeMap := func(n int) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: avMap{"leaf": padding(n)}}
	}
	wholeList := func(n int) types.AttributeValue {
		return &types.AttributeValueMemberL{Value: []types.AttributeValue{padding(n)}}
	}
	ok := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	refused := func(err error) { t.Helper(); wantAPIError(t, err, "ValidationException", msgUpdateTooBig) }

	// SET d = {leaf: pad} costs 23 + 3 + 4 + 1 + pad; SET d.leaf = :pad
	// costs 23 + 4 + 4 + pad: the same.
	const mapRef = maxItemBytes - padClauseCost - 8
	ok(update(hashKey("D1"), "SET d = :w", avMap{":w": wholeMap(mapRef)}, nil))
	refused(update(hashKey("E1"), "SET d = :w", avMap{":w": wholeMap(mapRef + 1)}, nil))
	for _, k := range []string{"D1", "E1"} {
		ok(update(hashKey(k), "SET d = :w", avMap{":w": wholeMap(1)}, nil))
	}
	ok(update(hashKey("D1"), "SET d.#leaf = :pad", avMap{":pad": padding(mapRef)}, map[string]string{"#leaf": "leaf"}))
	if got := sizeOf(t, storedItem(t, c, table, hashKey("D1"))["d"]); got != 8+mapRef {
		t.Fatalf("stored d of %d bytes", got)
	}
	refused(update(hashKey("E1"), "SET d.#leaf = :pad", avMap{":pad": padding(mapRef + 1)}, map[string]string{"#leaf": "leaf"}))

	// SET d = [pad] costs 23 + 3 + 1 + pad; SET d[0] = :pad one byte more.
	const listRef = maxItemBytes - padClauseCost - 4
	ok(update(hashKey("D2"), "SET d = :w", avMap{":w": wholeList(listRef)}, nil))
	refused(update(hashKey("E2"), "SET d = :w", avMap{":w": wholeList(listRef + 1)}, nil))
	for _, k := range []string{"D2", "E2"} {
		ok(update(hashKey(k), "SET d = :w", avMap{":w": wholeList(1)}, nil))
	}
	refused(update(hashKey("E2"), "SET d[0] = :pad", avMap{":pad": padding(listRef)}, nil))
	ok(update(hashKey("D2"), "SET d[0] = :pad", avMap{":pad": padding(listRef - 1)}, nil))
}

// chargeShape is a clause run alongside `SET b = :pad`, with its own charge.
type chargeShape struct {
	clause string
	names  map[string]string
	values avMap
	seed   avMap
	charge int
}

// wantCharge checks that `SET b = :pad` plus s.clause is accepted with
// 409,600 - 23 - s.charge bytes of padding and refused with one more.
func wantCharge(t *testing.T, c *dynamodb.Client, table string, id int, s chargeShape) {
	t.Helper()
	expr := "SET b = :pad " + s.clause
	if rest, ok := strings.CutPrefix(s.clause, "SET "); ok {
		expr = "SET b = :pad, " + rest
	}
	shape := updShape{expr: expr, names: s.names, values: s.values, seed: s.seed}
	pad := maxItemBytes - padClauseCost - s.charge
	accepted, refused := hashKey(fmt.Sprintf("C%d", id)), hashKey(fmt.Sprintf("D%d", id))
	if err := shape.send(c, table, accepted, pad, nil); err != nil {
		t.Fatalf("%s with %d bytes of padding: %v", s.clause, pad, err)
	}
	if got := sizeOf(t, storedItem(t, c, table, accepted)["b"]); got != pad {
		t.Fatalf("%s: stored %d bytes of padding, want %d", s.clause, got, pad)
	}
	err := shape.send(c, table, refused, pad+1, nil)
	if err == nil {
		t.Fatalf("%s: %d bytes of padding accepted", s.clause, pad+1)
	}
	wantAPIError(t, err, "ValidationException", msgUpdateTooBig)
}

func TestUpdateSizeChargesEachKind(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	ten := S(strings.Repeat("y", 10))
	one := N("1") // 2 bytes
	e := S("e")
	L := func(vs ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: vs} }
	M := func(m avMap) types.AttributeValue { return &types.AttributeValueMemberM{Value: m} }
	SS := func(ss ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: ss} }
	elevenList := make([]types.AttributeValue, 11)
	for i := range elevenList {
		elevenList[i] = e
	}
	listWithTenth := append(append([]types.AttributeValue{}, elevenList[:10]...), ten)
	hundred := S(strings.Repeat("s", 100))
	for i, s := range []chargeShape{
		// A path operand: 1, plus 14 and the element for each element; the
		// value copied is free. SET c = ...: 19 + 1.
		{clause: "SET c = abcdefghij", seed: avMap{"abcdefghij": ten}, charge: 20 + 1 + 14 + 10},
		{clause: "SET c = big", seed: avMap{"big": ten}, charge: 20 + 1 + 14 + 3},
		{clause: "SET c = m.z", seed: avMap{"m": M(avMap{"z": ten})}, charge: 20 + 1 + 15 + 15},
		{clause: "SET c = m.a.z", seed: avMap{"m": M(avMap{"a": M(avMap{"z": ten})})}, charge: 20 + 1 + 15 + 15 + 15},
		{clause: "SET c = l[10]", seed: avMap{"l": L(listWithTenth...)}, charge: 20 + 1 + 15 + 16},
		// list_append: 37 plus both operands ([ten] is 3 + 1 + 10).
		{clause: "SET l = list_append(l, :new)", seed: avMap{"l": L(e)}, values: avMap{":new": L(ten)}, charge: 20 + 37 + 16 + 14},
		{clause: "SET l = list_append(:a, :c)", seed: avMap{"l": L(e)}, values: avMap{":a": L(e), ":c": L(ten)}, charge: 20 + 37 + 5 + 14},
		// A document value at its size (3 + 1 + 1 + 100), a value at every use.
		{clause: "SET c = if_not_exists(c, :m)", seed: avMap{"c": S("c")}, values: avMap{":m": M(avMap{"a": S(strings.Repeat("y", 100))})}, charge: 20 + 39 + 16 + 105},
		{clause: "SET c = if_not_exists(c, :s), d = if_not_exists(d, :s)", seed: avMap{"c": S("c"), "d": S("d")}, values: avMap{":s": hundred}, charge: 2 * (20 + 39 + 16 + 100)},
		// x + y: 34, x - y: 37, plus both operands; the result is free.
		{clause: "SET n = n + :one", seed: avMap{"n": one}, values: avMap{":one": one}, charge: 20 + 34 + 16 + 2},
		{clause: "SET n = n + :one", seed: avMap{"n": N("12345678901234567890")}, values: avMap{":one": one}, charge: 20 + 34 + 16 + 2},
		{clause: "SET n = n - :one", seed: avMap{"n": one}, values: avMap{":one": one}, charge: 20 + 37 + 16 + 2},
		// if_not_exists: 39 plus both operands, present or not.
		{clause: "SET c = if_not_exists(c, :v)", seed: avMap{"c": ten}, values: avMap{":v": S("v")}, charge: 20 + 39 + 16 + 1},
		{clause: "SET c = if_not_exists(c, :v)", values: avMap{":v": ten}, charge: 20 + 39 + 16 + 10},
		// ADD: 19 plus the target plus the value added.
		{clause: "ADD abcdefghij :one", seed: avMap{"abcdefghij": one}, values: avMap{":one": one}, charge: 19 + 10 + 2},
		{clause: "ADD ss :new", seed: avMap{"ss": SS("ppppp")}, values: avMap{":new": SS(strings.Repeat("s", 500))}, charge: 19 + 2 + 500},
		// REMOVE: 1 plus the target; a later element costs 4 and itself.
		{clause: "REMOVE abcdefghij", seed: avMap{"abcdefghij": S("rrrrr")}, charge: 1 + 10},
		{clause: "REMOVE m.yyyyyyyyyy", seed: avMap{"m": M(avMap{"x": ten, "yyyyyyyyyy": S("r")})}, charge: 1 + 1 + 4 + 10},
		{clause: "REMOVE abcdefghij[1]", seed: avMap{"abcdefghij": L(ten, S("r"))}, charge: 1 + 10 + 4 + 1},
		{clause: "REMOVE l[10]", seed: avMap{"l": L(elevenList...)}, charge: 1 + 1 + 4 + 2},
		// DELETE: 1 plus the target, not the members it removes.
		{clause: "DELETE abcdefghij :rm", seed: avMap{"abcdefghij": SS("ppppp", strings.Repeat("q", 20))}, values: avMap{":rm": SS(strings.Repeat("q", 20))}, charge: 1 + 10},
		{clause: "DELETE ss :rm", seed: avMap{"ss": SS("ppppp", strings.Repeat("q", 20), strings.Repeat("r", 30))},
			values: avMap{":rm": SS(strings.Repeat("q", 20), strings.Repeat("r", 30))}, charge: 1 + 2},
	} {
		wantCharge(t, c, table, i, s)
	}
}

// TestUpdateSizeBeforeCondition: the charge is refused before the
// ConditionExpression is evaluated, whether it would pass or fail.
func TestUpdateSizeBeforeCondition(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	s := updShape{expr: "SET c = if_not_exists(c, :huge)", values: avMap{":huge": S(strings.Repeat("h", 409700))}, seed: avMap{"c": S("x")}}
	send := func(id string, cond *string) error {
		// :pad is not in the statement; send it without.
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: merged(hashKey(id), s.seed)}); err != nil {
			return err
		}
		_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: hashKey(id),
			UpdateExpression: aws.String(s.expr), ConditionExpression: cond, ExpressionAttributeValues: s.values})
		return err
	}
	for id, cond := range map[string]*string{"fails": aws.String("attribute_exists(nope)"), "passes": aws.String("attribute_exists(c)"), "none": nil} {
		wantAPIError(t, send(id, cond), "ValidationException", msgUpdateTooBig)
		if got := storedItem(t, c, table, hashKey(id))["c"]; sizeOf(t, got) != 1 {
			t.Fatalf("%s: c changed", id)
		}
	}
}

// TestUpdateSizeFlatSurfaces: AttributeUpdates, a PartiQL UPDATE and a
// transacted Update size the finished item only, at a key where UpdateItem
// refuses the same item.
func TestUpdateSizeFlatSurfaces(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	// The finished item {pk: X, p: pad} of exactly 409,600 bytes.
	full := maxItemBytes - 3 - 1
	refusedAt := func(id string) {
		t.Helper()
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: hashKey(id)}); err != nil {
			t.Fatal(err)
		}
		_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: hashKey(id),
			UpdateExpression: aws.String("SET p = :p"), ExpressionAttributeValues: avMap{":p": padding(full)}})
		wantAPIError(t, err, "ValidationException", msgUpdateTooBig)
	}
	stored := func(id string, want int) {
		t.Helper()
		if got := itemSizeOf(t, storedItem(t, c, table, hashKey(id))); got != want {
			t.Fatalf("%s: stored %d bytes, want %d", id, got, want)
		}
	}

	refusedAt("X")
	if _, err := c.ExecuteStatement(bg, &dynamodb.ExecuteStatementInput{
		Statement:  aws.String(fmt.Sprintf(`UPDATE "%s" SET p = ? WHERE pk = ?`, table)),
		Parameters: []types.AttributeValue{padding(full), S("X")},
	}); err != nil {
		t.Fatalf("PartiQL UPDATE: %v", err)
	}
	stored("X", maxItemBytes)

	refusedAt("W")
	bout, err := c.BatchExecuteStatement(bg, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{{
		Statement:  aws.String(fmt.Sprintf(`UPDATE "%s" SET p = ? WHERE pk = ?`, table)),
		Parameters: []types.AttributeValue{padding(full), S("W")},
	}}})
	if err != nil || bout.Responses[0].Error != nil {
		t.Fatalf("batched PartiQL UPDATE: %v %+v", err, bout)
	}
	stored("W", maxItemBytes)

	refusedAt("Y")
	if _, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
		TableName: aws.String(table), Key: hashKey("Y"),
		UpdateExpression: aws.String("SET p = :p"), ExpressionAttributeValues: avMap{":p": padding(full)},
	}}}}); err != nil {
		t.Fatalf("transacted Update: %v", err)
	}
	stored("Y", maxItemBytes)

	// AttributeUpdates: the finished item, alone or beside an untouched
	// attribute, exactly 409,600.
	for i, untouched := range []avMap{{}, {"u": S(strings.Repeat("y", 10))}} {
		for _, over := range []int{0, 1} {
			id := fmt.Sprintf("%c%d", 'K'+over, i)
			if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: merged(hashKey(id), untouched)}); err != nil {
				t.Fatal(err)
			}
			pad := maxItemBytes - itemSizeOf(t, hashKey(id)) - itemSizeOf(t, untouched) - 1 + over
			_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: hashKey(id),
				AttributeUpdates: map[string]types.AttributeValueUpdate{"b": {Action: types.AttributeActionPut, Value: padding(pad)}}})
			if over == 1 {
				wantAPIError(t, err, "ValidationException", msgUpdateTooBig)
				continue
			}
			if err != nil {
				t.Fatalf("AttributeUpdates at 409,600: %v", err)
			}
			stored(id, maxItemBytes)
		}
	}
}

// TestUpdateSizeFlatRegion: in us-east-2, one of the ten regions that size
// UpdateItem flat, the finished item alone is held against the limit.
func TestUpdateSizeFlatRegion(t *testing.T) {
	k := startKura(t, "--in-memory", "--region", "us-east-2")
	c := k.client()
	table := createTable(t, c, "pk", "", "")
	// The one-byte key: a finished item of exactly 409,600.
	wantCeiling(t, c, table, hashKey("K"), hashKey("L"), oneSet(), maxItemBytes)
	// A clause charged far more than it writes.
	s := updShape{expr: "SET b = :pad ADD ss :new", seed: avMap{"ss": &types.AttributeValueMemberSS{Value: []string{"p"}}},
		values: avMap{":new": &types.AttributeValueMemberSS{Value: []string{strings.Repeat("s", 500)}}}}
	if err := s.send(c, table, hashKey("C"), maxItemBytes-padClauseCost-521+1, nil); err != nil {
		t.Fatalf("flat region refused a charge over the limit: %v", err)
	}
	// The condition is evaluated, and a passing one stores a small item.
	huge := updShape{expr: "SET c = if_not_exists(c, :huge)", values: avMap{":huge": S(strings.Repeat("h", 409700))}, seed: avMap{"c": S("x")}}
	for id, want := range map[string]string{"fails": "ConditionalCheckFailedException", "passes": ""} {
		cond := aws.String("attribute_exists(c)")
		if want != "" {
			cond = aws.String("attribute_exists(nope)")
		}
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: merged(hashKey(id), huge.seed)}); err != nil {
			t.Fatal(err)
		}
		_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: hashKey(id),
			UpdateExpression: aws.String(huge.expr), ConditionExpression: cond, ExpressionAttributeValues: huge.values})
		if want != "" {
			wantAPIError(t, err, want, "The conditional request failed")
		} else if err != nil {
			t.Fatalf("passing condition: %v", err)
		}
	}
}
