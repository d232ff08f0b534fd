package test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

type avm = map[string]types.AttributeValue

func TestTransactWriteAllActions(t *testing.T) {
	c := ddb()
	t1 := createTable(t, c, "pk", "", "")
	t2 := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeN)
	put := func(table string, it avm) {
		t.Helper()
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	put(t1, avm{"pk": S("upd"), "n": N("1")})
	put(t1, avm{"pk": S("del")})
	put(t2, avm{"pk": S("chk"), "sk": N("1"), "ok": BOOL(true)})

	out, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(t1), Item: avm{"pk": S("new"), "v": S("x")},
				ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			{Update: &types.Update{TableName: aws.String(t1), Key: avm{"pk": S("upd")},
				UpdateExpression:          aws.String("SET n = n + :one"),
				ExpressionAttributeValues: avm{":one": N("1")}}},
			{Delete: &types.Delete{TableName: aws.String(t1), Key: avm{"pk": S("del")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(t2), Key: avm{"pk": S("chk"), "sk": N("1")},
				ConditionExpression: aws.String("ok = :t"), ExpressionAttributeValues: avm{":t": BOOL(true)}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// 3 writes of small items at 2 units each on t1; a 2-unit check on t2.
	if len(out.ConsumedCapacity) != 2 {
		t.Fatalf("ConsumedCapacity = %+v", out.ConsumedCapacity)
	}
	for _, cc := range out.ConsumedCapacity {
		switch aws.ToString(cc.TableName) {
		case t1:
			if aws.ToFloat64(cc.CapacityUnits) != 6 || aws.ToFloat64(cc.WriteCapacityUnits) != 6 {
				t.Fatalf("t1 capacity %+v", cc)
			}
		case t2: // a ConditionCheck is billed as a write (measured on DynamoDB)
			if aws.ToFloat64(cc.CapacityUnits) != 2 || aws.ToFloat64(cc.WriteCapacityUnits) != 2 || cc.ReadCapacityUnits != nil {
				t.Fatalf("t2 capacity %+v", cc)
			}
		default:
			t.Fatalf("unexpected table %v", aws.ToString(cc.TableName))
		}
	}
	get := func(key string) avm {
		g, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(t1), Key: avm{"pk": S(key)}})
		if err != nil {
			t.Fatal(err)
		}
		return g.Item
	}
	if get("new") == nil || get("del") != nil || str(t, get("upd")["n"]) != "2" {
		t.Fatalf("transaction not applied: new=%v del=%v upd=%v", get("new"), get("del"), get("upd"))
	}
}

func TestTransactWriteCanceled(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: avm{"pk": S("a"), "v": N("1"), "s": S("x")}})
	_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(table), Item: avm{"pk": S("b")}}},
			{Update: &types.Update{TableName: aws.String(table), Key: avm{"pk": S("a")},
				UpdateExpression:                    aws.String("SET v = :two"),
				ConditionExpression:                 aws.String("v = :two"),
				ExpressionAttributeValues:           avm{":two": N("2")},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: avm{"pk": S("zz")},
				ConditionExpression: aws.String("attribute_exists(pk)")}},
		},
	})
	wantAPIError(t, err, "TransactionCanceledException",
		"Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, ConditionalCheckFailed]")
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 3 {
		t.Fatalf("reasons: %v", err)
	}
	r := tce.CancellationReasons
	if aws.ToString(r[0].Code) != "None" || r[0].Message != nil {
		t.Fatalf("reason 0: %+v", r[0])
	}
	if aws.ToString(r[1].Code) != "ConditionalCheckFailed" || aws.ToString(r[1].Message) != "The conditional request failed" ||
		str(t, r[1].Item["v"]) != "1" {
		t.Fatalf("reason 1: %+v", r[1])
	}
	if r[2].Item != nil {
		t.Fatalf("reason 2 carries an item without ALL_OLD: %+v", r[2])
	}
	g, _ := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: avm{"pk": S("b")}})
	if g.Item != nil {
		t.Fatal("cancelled transaction applied its put")
	}

	// An update that fails at execution is a ValidationError reason.
	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(table), Key: avm{"pk": S("a")},
				UpdateExpression: aws.String("SET v = s + :one"), ExpressionAttributeValues: avm{":one": N("1")}}},
		},
	})
	if !errors.As(err, &tce) || aws.ToString(tce.CancellationReasons[0].Code) != "ValidationError" ||
		aws.ToString(tce.CancellationReasons[0].Message) != "An operand in the update expression has an incorrect data type" {
		t.Fatalf("got %v", err)
	}
}

func TestTransactWriteValidation(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(table), Item: avm{"pk": S("a")}}},
			{Delete: &types.Delete{TableName: aws.String(table), Key: avm{"pk": S("a")}}},
		},
	})
	wantAPIError(t, err, "ValidationException", "Transaction request cannot include multiple operations on one item")

	many := make([]types.TransactWriteItem, 101)
	for i := range many {
		many[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: avm{"pk": S(strconv.Itoa(i))}}}
	}
	// The over-long list is echoed, Java-style (a suite run against
	// DynamoDB matches ^...Value '\[.+\]' at 'transactItems'...$).
	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: many})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" ||
		!regexp.MustCompile(`^1 validation error detected: Value '\[TransactWriteItem\(conditionCheck=null, put=Put\(item=\{pk=AttributeValue\(s=0, .+\]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100$`).MatchString(ae.ErrorMessage()) {
		t.Fatalf("101 actions: %.300v", err)
	}

	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(table), Item: avm{"pk": S("a")}},
			Delete: &types.Delete{TableName: aws.String(table), Key: avm{"pk": S("a")}}},
	}})
	wantAPIError(t, err, "ValidationException", "TransactItems can only contain one of Check, Put, Update or Delete")

	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("nope_" + table), Item: avm{"pk": S("a")}}},
	}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")

	// A key of the wrong type cancels the transaction (TestTransactKeyFaults).
	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(table), Key: avm{"pk": N("1")}}},
	}})
	wantCancel(t, err, "ValidationError:The provided key element does not match the schema")

	// All 100 is fine.
	if _, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: many[:100]}); err != nil {
		t.Fatal(err)
	}
}

func TestTransactWriteIdempotency(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	token := fmt.Sprintf("tok-%d-%d", os.Getpid(), time.Now().UnixNano())
	in := func(by string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String(token),
			TransactItems: []types.TransactWriteItem{{Update: &types.Update{
				TableName: aws.String(table), Key: avm{"pk": S("ctr")},
				UpdateExpression: aws.String("ADD n :by"), ExpressionAttributeValues: avm{":by": N(by)}}}},
		}
	}
	for i := 0; i < 3; i++ {
		if _, err := c.TransactWriteItems(bg, in("1")); err != nil {
			t.Fatal(err)
		}
	}
	g, _ := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: avm{"pk": S("ctr")}})
	if str(t, g.Item["n"]) != "1" {
		t.Fatalf("repeated token re-applied: n=%v", g.Item["n"])
	}
	_, err := c.TransactWriteItems(bg, in("5"))
	var ipm *types.IdempotentParameterMismatchException
	if !errors.As(err, &ipm) {
		t.Fatalf("got %v, want IdempotentParameterMismatchException", err)
	}
}

// TestTransactWriteReplayCapacity: a repeat DynamoDB recognises by its
// ClientRequestToken reports the read units of reading the items again
// (a transactional read), not the first call's write units ("Subsequent
// TransactWriteItems calls with the same client token return the number of
// read capacity units consumed in reading the item").
func TestTransactWriteReplayCapacity(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	token := fmt.Sprintf("cap-%d-%d", os.Getpid(), time.Now().UnixNano())
	// About 1.5 KB: two write units, one read unit, so the two differ.
	in := &dynamodb.TransactWriteItemsInput{
		ClientRequestToken:     aws.String(token),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(table),
			Item: avm{"pk": S("replay"), "big": S(strings.Repeat("x", 1536))}}}},
	}
	for i, want := range []struct{ read, write float64 }{{0, 4}, {2, 0}, {2, 0}} {
		out, err := c.TransactWriteItems(bg, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.ConsumedCapacity) != 1 {
			t.Fatalf("call %d: ConsumedCapacity %+v", i, out.ConsumedCapacity)
		}
		cc := out.ConsumedCapacity[0]
		if aws.ToFloat64(cc.CapacityUnits) != want.read+want.write ||
			aws.ToFloat64(cc.ReadCapacityUnits) != want.read || aws.ToFloat64(cc.WriteCapacityUnits) != want.write ||
			(want.read == 0) != (cc.ReadCapacityUnits == nil) || (want.write == 0) != (cc.WriteCapacityUnits == nil) ||
			cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != want.read+want.write {
			t.Fatalf("call %d: capacity %+v (table %+v), want read %v write %v", i, cc, cc.Table, want.read, want.write)
		}
	}
}

// wantCancel checks a TransactionCanceledException's reasons, each "Code"
// or "Code:Message", in request order.
func wantCancel(t *testing.T, err error, reasons ...string) {
	t.Helper()
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		t.Fatalf("got %v, want TransactionCanceledException %v", err, reasons)
	}
	var got, codes []string
	for _, r := range tc.CancellationReasons {
		s := aws.ToString(r.Code)
		codes = append(codes, s)
		if r.Message != nil {
			s += ":" + *r.Message
		}
		got = append(got, s)
	}
	if !slices.Equal(got, reasons) {
		t.Fatalf("reasons %q, want %q", got, reasons)
	}
	if want := "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"; aws.ToString(tc.Message) != want {
		t.Fatalf("message %q, want %q", aws.ToString(tc.Message), want)
	}
}

// Which key faults in a transaction cancel it (reason ValidationError) and
// which fail the request, as a public conformance suite measured them on
// DynamoDB: keys of the wrong type cancel, empty key values do not.
func TestTransactKeyFaults(t *testing.T) {
	c := ddb()
	hash := createTable(t, c, "pk", "", "")
	comp := uniqueTable("txkeys")
	if _, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(comp), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("lsi1sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi1"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("lsi1sk"), KeyType: types.KeyTypeRange}}}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi1"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("lsi1sk"), KeyType: types.KeyTypeHash}}}},
	}); err != nil {
		t.Fatal(err)
	}
	tw := func(items ...types.TransactWriteItem) error {
		_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	}
	put := func(table string, it avm) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: it}}
	}
	setIdx := func(v types.AttributeValue) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(comp), Key: avm{"pk": S("u"), "sk": S("a")},
			UpdateExpression: aws.String("SET lsi1sk = :v"), ExpressionAttributeValues: avm{":v": v}}}
	}
	del := func(key types.AttributeValue) types.TransactWriteItem {
		return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(hash), Key: avm{"pk": key}}}
	}
	list := &types.AttributeValueMemberL{Value: []types.AttributeValue{S("x")}}

	wantCancel(t, tw(put(hash, avm{"pk": N("5")})), "ValidationError:One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N")
	wantCancel(t, tw(put(comp, avm{"pk": S("p"), "sk": S("a"), "lsi1sk": list})),
		"ValidationError:One or more parameter values were invalid: Type mismatch for Index Key lsi1sk Expected: S Actual: L IndexName: gsi1")
	wantCancel(t, tw(setIdx(N("5"))), "ValidationError:One or more parameter values were invalid: Type mismatch for Index Key lsi1sk Expected: S Actual: N IndexName: gsi1")
	wantCancel(t, tw(put(hash, avm{"pk": S("ok")}), del(list)), "None", "ValidationError:The provided key element does not match the schema")
	if g, _ := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(hash), Key: avm{"pk": S("ok")}}); g.Item != nil {
		t.Fatal("the cancelled transaction wrote its valid Put")
	}

	wantAPIError(t, tw(put(hash, avm{"pk": S("")})), "ValidationException",
		"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk")
	wantAPIError(t, tw(put(comp, avm{"pk": S("p"), "sk": S("c"), "lsi1sk": S("")})), "ValidationException",
		"One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: gsi1, IndexKey: lsi1sk")
	wantAPIError(t, tw(setIdx(S(""))), "ValidationException",
		"One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.")
	// An empty value is refused up front even beside a wrongly typed key.
	wantAPIError(t, tw(del(N("1")), del(S(""))), "ValidationException",
		"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk")

	_, err := c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(hash), Key: avm{}}}}})
	wantCancel(t, err, "ValidationError:The provided key element does not match the schema")

	gets := make([]types.TransactGetItem, 101)
	for i := range gets {
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(hash), Key: avm{"pk": S(strconv.Itoa(i))}}}
	}
	_, err = c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{TransactItems: gets})
	var ae smithy.APIError
	if !errors.As(err, &ae) || !regexp.MustCompile(`^1 validation error detected: Value '\[TransactGetItem\(get=Get\(key=\{pk=AttributeValue\(s=0, .+\]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100$`).MatchString(ae.ErrorMessage()) {
		t.Fatalf("101 gets: %.300v", err)
	}
}

func TestTransactGetItems(t *testing.T) {
	c := ddb()
	t1 := createTable(t, c, "pk", "", "")
	t2 := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(t1), Item: avm{"pk": S("a"), "x": S("1"), "m": &types.AttributeValueMemberM{Value: avm{"deep": S("d"), "other": S("o")}}}})
	c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(t2), Item: avm{"pk": S("b"), "sk": S("c"), "y": S("2")}})
	out, err := c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(t1), Key: avm{"pk": S("a")},
				ProjectionExpression: aws.String("#m.deep"), ExpressionAttributeNames: map[string]string{"#m": "m"}}},
			{Get: &types.Get{TableName: aws.String(t1), Key: avm{"pk": S("missing")}}},
			{Get: &types.Get{TableName: aws.String(t2), Key: avm{"pk": S("b"), "sk": S("c")}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 3 {
		t.Fatalf("responses %+v", out.Responses)
	}
	m, ok := out.Responses[0].Item["m"].(*types.AttributeValueMemberM)
	if len(out.Responses[0].Item) != 1 || !ok || len(m.Value) != 1 || str(t, m.Value["deep"]) != "d" {
		t.Fatalf("projection: %+v", out.Responses[0].Item)
	}
	if out.Responses[1].Item != nil || str(t, out.Responses[2].Item["y"]) != "2" {
		t.Fatalf("responses %+v", out.Responses)
	}
	if len(out.ConsumedCapacity) != 2 || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 4 ||
		aws.ToFloat64(out.ConsumedCapacity[0].ReadCapacityUnits) != 4 ||
		aws.ToFloat64(out.ConsumedCapacity[0].Table.ReadCapacityUnits) != 4 ||
		aws.ToFloat64(out.ConsumedCapacity[1].CapacityUnits) != 2 {
		t.Fatalf("capacity %+v", out.ConsumedCapacity)
	}
	_, err = c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(t1), Key: avm{"pk": S("a")}}},
		{Get: &types.Get{TableName: aws.String(t1), Key: avm{"pk": S("a")}}},
	}})
	wantAPIError(t, err, "ValidationException", "Transaction request cannot include multiple operations on one item")
}

// TestTransactBankTransfer runs many concurrent transfers between accounts,
// single-item writes on the same items, and readers. The total balance
// never changes, and no read (TransactGetItems, Query) ever sees a
// half-applied transfer.
func TestTransactBankTransfer(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	const accounts, start = 10, 100
	keys := make([]avm, accounts)
	for i := range keys {
		keys[i] = avm{"pk": S("bank"), "sk": S(fmt.Sprintf("acct%02d", i))}
		it := avm{"pk": S("bank"), "sk": keys[i]["sk"], "bal": N(strconv.Itoa(start))}
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	const total = accounts * start
	var done, committed, cancelled, conflicts atomic.Int64
	var wg sync.WaitGroup
	fail := make(chan string, 1)
	report := func(msg string) {
		select {
		case fail <- msg:
		default:
		}
	}
	for w := 0; w < 12; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for i := 0; i < 60; i++ {
				a, b := rng.Intn(accounts), rng.Intn(accounts-1)
				if b >= a {
					b++
				}
				amt := avm{":x": N(strconv.Itoa(1 + rng.Intn(20)))}
				_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String(table), Key: keys[a], UpdateExpression: aws.String("SET bal = bal - :x"),
						ConditionExpression: aws.String("bal >= :x"), ExpressionAttributeValues: amt}},
					{Update: &types.Update{TableName: aws.String(table), Key: keys[b], UpdateExpression: aws.String("SET bal = bal + :x"),
						ExpressionAttributeValues: amt}},
				}})
				var tce *types.TransactionCanceledException
				switch {
				case err == nil:
					committed.Add(1)
				case errors.As(err, &tce):
					cancelled.Add(1)
				default:
					report("transfer: " + err.Error())
					return
				}
			}
		}(int64(w))
	}
	// Single-item writers on the same items, touching another attribute.
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for i := 0; i < 100; i++ {
				_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: keys[rng.Intn(accounts)],
					UpdateExpression: aws.String("ADD touched :one"), ExpressionAttributeValues: avm{":one": N("1")}})
				var tc *types.TransactionConflictException
				if errors.As(err, &tc) {
					conflicts.Add(1)
				} else if err != nil {
					report("single write: " + err.Error())
					return
				}
			}
		}(100 + int64(w))
	}
	var readers sync.WaitGroup
	var reads atomic.Int64
	for r := 0; r < 3; r++ {
		readers.Add(1)
		go func(useQuery bool) {
			defer readers.Done()
			for done.Load() == 0 {
				sum := 0
				if useQuery {
					q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
						KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: avm{":p": S("bank")}})
					if err != nil {
						report("query: " + err.Error())
						return
					}
					for _, it := range q.Items {
						n, _ := strconv.Atoi(it["bal"].(*types.AttributeValueMemberN).Value)
						sum += n
					}
				} else {
					gets := make([]types.TransactGetItem, accounts)
					for i := range gets {
						gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(table), Key: keys[i]}}
					}
					out, err := c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{TransactItems: gets})
					var tce *types.TransactionCanceledException
					if errors.As(err, &tce) {
						continue // a transfer held an item: DynamoDB cancels too
					}
					if err != nil {
						report("transact get: " + err.Error())
						return
					}
					for _, r := range out.Responses {
						n, _ := strconv.Atoi(r.Item["bal"].(*types.AttributeValueMemberN).Value)
						sum += n
					}
				}
				reads.Add(1)
				if sum != total {
					report(fmt.Sprintf("read saw a partial transfer: total %d, want %d", sum, total))
					return
				}
			}
		}(r == 0)
	}
	wg.Wait()
	done.Store(1)
	readers.Wait()
	select {
	case msg := <-fail:
		t.Fatal(msg)
	default:
	}
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: avm{":p": S("bank")}})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, it := range q.Items {
		n, _ := strconv.Atoi(it["bal"].(*types.AttributeValueMemberN).Value)
		if n < 0 {
			t.Fatalf("negative balance %d", n)
		}
		sum += n
	}
	if sum != total {
		t.Fatalf("final total %d, want %d", sum, total)
	}
	if committed.Load() == 0 {
		t.Fatal("no transfer committed")
	}
	t.Logf("committed %d, cancelled %d, single-write conflicts %d, consistent reads %d",
		committed.Load(), cancelled.Load(), conflicts.Load(), reads.Load())
}

// TestTransactCPUFigures measures server CPU (utime+stime of the kura
// process, from /proc) per TransactWriteItems of 4 puts against 4
// separate PutItems, at concurrency 16. It runs only with
// KURA_TX_BENCH=<operations per side>, e.g.
//
//	KURA_TX_BENCH=20000 go test ./test/ -run TestTransactCPUFigures -v
func TestTransactCPUFigures(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KURA_TX_BENCH"))
	if n <= 0 {
		t.Skip("set KURA_TX_BENCH=<operations> to measure")
	}
	args := append([]string{"--data-dir", t.TempDir()}, strings.Fields(os.Getenv("KURA_TX_BENCH_ARGS"))...)
	k := startKura(t, args...)
	c := k.client()
	table := createTable(t, c, "pk", "", "")
	const conc = 16
	pad := strings.Repeat("x", 100)
	run := func(name string, op func(w, i int) error) {
		before := procCPU(t, k.cmd.Process.Pid)
		startWall := time.Now()
		var wg sync.WaitGroup
		var errs atomic.Int64
		per := n / conc
		for w := 0; w < conc; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < per; i++ {
					if err := op(w, i); err != nil {
						errs.Add(1)
					}
				}
			}(w)
		}
		wg.Wait()
		cpu := procCPU(t, k.cmd.Process.Pid) - before
		wall := time.Since(startWall)
		ops := per * conc
		t.Logf("%s: %d ops, %d errors, wall %v (%.0f ops/s), server CPU %v, %.1f µs CPU per op",
			name, ops, errs.Load(), wall.Round(time.Millisecond), float64(ops)/wall.Seconds(), cpu,
			float64(cpu.Microseconds())/float64(ops))
	}
	key := func(kind string, w, i, j int) string { return fmt.Sprintf("%s-%d-%d-%d", kind, w, i, j) }
	run("TransactWriteItems(4 puts)", func(w, i int) error {
		items := make([]types.TransactWriteItem, 4)
		for j := range items {
			items[j].Put = &types.Put{TableName: aws.String(table), Item: avm{"pk": S(key("tx", w, i, j)), "pad": S(pad)}}
		}
		_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	})
	run("4 x PutItem", func(w, i int) error {
		for j := 0; j < 4; j++ {
			if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: avm{"pk": S(key("put", w, i, j)), "pad": S(pad)}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// procCPU is a process's user+system CPU time from /proc/<pid>/stat.
func procCPU(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)        // field 14 (utime)
	st, _ := strconv.ParseInt(f[12], 10, 64)        // field 15 (stime)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ = 100
}

// A ClientRequestToken over 36 characters is reported ahead of the other
// member errors, echoed, as us-east-1 answers (2026-10-09, in a public
// conformance suite).
func TestTransactTokenReportedFirst(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	token := strings.Repeat("x", 37)
	_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S("a")}}}},
		ClientRequestToken:     aws.String(token),
		ReturnConsumedCapacity: "BOGUS",
	})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: Value '"+token+
		"' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36; "+
		"Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]")
}

// An attribute named "" is refused ('Empty attribute name', bare, in a
// transaction's Put: us-east-1 and eu-west-2, 2026-10-09, in a public
// conformance suite); it was stored.
func TestTransactEmptyAttributeName(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S("a"), "": S("x")}}}},
	})
	wantAPIError(t, err, "ValidationException", "Empty attribute name")
	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S("a"),
				"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"": S("x")}}}}}},
	})
	wantAPIError(t, err, "ValidationException", "Empty attribute name")
}

// TransactWriteItems checks its actions one at a time in request order and
// reports the first problem, whatever kind: an attribute value refused while
// reading an action, or an action's expression (us-east-1 and eu-west-2,
// 2026-10-09, in a public conformance suite). The table is absent: every
// answer comes before any table is looked up.
func TestTransactActionsCheckedInOrder(t *testing.T) {
	c := ddb()
	absent := aws.String("tx_order_absent_table")
	deep := func(n int) types.AttributeValue {
		var v types.AttributeValue = S("leaf")
		for i := 0; i < n; i++ {
			v = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"n": v}}
		}
		return v
	}
	key := func(pk types.AttributeValue) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": pk}
	}
	const (
		syntax = `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("`
		nest   = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	)
	deepPut := types.TransactWriteItem{Put: &types.Put{TableName: absent,
		Item: map[string]types.AttributeValue{"pk": S("d"), "data": deep(32)}}}
	badCheck := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: absent, Key: key(S("c")),
		ConditionExpression: aws.String("attribute_not_exists(")}}
	emptyName := types.TransactWriteItem{Put: &types.Put{TableName: absent,
		Item: map[string]types.AttributeValue{"pk": S("a"), "": S("x")}}}
	unused := types.TransactWriteItem{Update: &types.Update{TableName: absent, Key: key(S("a")),
		UpdateExpression:          aws.String("SET a = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x"), ":u": S("y")}}}
	deepKey := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: absent, Key: key(deep(40)),
		ConditionExpression: aws.String("attribute_exists(a)")}}
	for _, c0 := range []struct {
		items []types.TransactWriteItem
		want  string
	}{
		{[]types.TransactWriteItem{badCheck, deepPut}, syntax},
		{[]types.TransactWriteItem{deepPut, badCheck}, nest},
		{[]types.TransactWriteItem{emptyName, deepPut}, "Empty attribute name"},
		{[]types.TransactWriteItem{deepPut, emptyName}, nest},
		{[]types.TransactWriteItem{unused, deepKey}, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"},
		{[]types.TransactWriteItem{deepKey, unused}, nest},
	} {
		_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: c0.items})
		wantAPIError(t, err, "ValidationException", c0.want)
	}
	// Within one item the nesting beats an empty map key met earlier.
	deepJSON := strings.Repeat(`{"M":{"n":`, 40) + `{"S":"x"}` + strings.Repeat(`}}`, 40)
	typ, msg := rawCall(t, shared, "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"tx_order_absent_table",`+
		`"Item":{"pk":{"S":"a"},"m":{"M":{"":{"S":"x"}}},"d":`+deepJSON+`}}}]}`)
	if typ != "ValidationException" || msg != nest {
		t.Errorf("empty map key before deep value: %s: %q", typ, msg)
	}
}

// A value refused in an action's ExpressionAttributeValues is named by its
// placeholder in DynamoDB's older value layer: "ExpressionAttributeValues
// contains invalid value: <text> for key :v" (us-east-1, 2026-10-09, in a
// public conformance suite: numbers, duplicate set members, nesting). A
// fault in the item itself keeps its own text.
func TestTransactPlaceholderValueFaults(t *testing.T) {
	const wrap = "ExpressionAttributeValues contains invalid value: "
	deep := `{"S":"leaf"}`
	for i := 0; i < 40; i++ {
		deep = `{"M":{"n":` + deep + `}}`
	}
	update := func(v string) string {
		return `{"TransactItems":[{"Update":{"TableName":"tx_eav_absent","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET n = :v",` +
			`"ExpressionAttributeValues":{":a":{"S":"x"},":v":` + v + `}}}]}`
	}
	for body, want := range map[string]string{
		update(`{"N":""}`):                      wrap + "The parameter cannot be converted to a numeric value for key :v",
		update(`{"N":"1e2147483647"}`):          wrap + "Number underflow. Attempting to store a number with magnitude smaller than supported range for key :v",
		update(`{"SS":["b","a","b"]}`):          wrap + "One or more parameter values were invalid: Input collection [b, a, b] contains duplicates. for key :v",
		update(`{"NS":["2","1","2"]}`):          wrap + "Input collection contains duplicates for key :v",
		update(`{"BS":["/w==","AA==","AA=="]}`): wrap + "One or more parameter values were invalid: Input collection [/w==, AA==, AA==]of type BS contains duplicates. for key :v",
		update(deep):                            wrap + "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit for key :v",
		`{"TransactItems":[{"Put":{"TableName":"tx_eav_absent","Item":{"pk":{"S":"a"},"x":{"N":"abc"}},"ConditionExpression":"a = :v",` +
			`"ExpressionAttributeValues":{":v":{"N":"1"}}}}]}`: "The parameter cannot be converted to a numeric value: abc",
	} {
		typ, msg := rawCall(t, shared, "TransactWriteItems", body)
		if typ != "ValidationException" || msg != want {
			t.Errorf("%.120s\n got %s: %q\nwant %q", body, typ, msg, want)
		}
	}
}

// Of several actions whose key has the wrong type, only the first carries
// the ValidationError reason; the others' are None (ScyllaDB's Alternator
// tests, which are run against DynamoDB).
func TestTransactOnlyFirstValidationReason(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	put := func(pk types.AttributeValue, cond string) types.TransactWriteItem {
		p := &types.Put{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": pk}}
		if cond != "" {
			p.ConditionExpression = aws.String(cond)
		}
		return types.TransactWriteItem{Put: p}
	}
	_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		put(N("7"), ""), put(N("8"), ""), put(S("x"), "attribute_exists(pk)")}})
	var tce *types.TransactionCanceledException
	if !errorsAs(err, &tce) {
		t.Fatalf("want a cancellation: %v", err)
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if strings.Join(codes, ",") != "ValidationError,None,None" {
		t.Fatalf("reasons %v", codes)
	}
}

// TestTransactFourMegabytes checks the 4 MB aggregate limit of both
// transaction APIs: ten items of 350 KB are written and read in one
// transaction each, twelve are refused (a public conformance suite run
// against DynamoDB: 10 x 350 KB succeeds, 12 x 350 KB is a
// ValidationException; the text: transact_write.go). TransactGetItems
// used to answer twelve 350 KB items (4.2 MB) with 200.
func TestTransactFourMegabytes(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	payload := S(strings.Repeat("x", 350_000))
	puts := make([]types.TransactWriteItem, 12)
	gets := make([]types.TransactGetItem, 12)
	for i := range puts {
		k := fmt.Sprintf("big%02d", i)
		puts[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: avm{"pk": S(k), "p": payload}}}
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(table), Key: avm{"pk": S(k)}}}
	}
	_, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: puts})
	wantAPIError(t, err, "ValidationException", "Transaction payload size cannot exceed 4 MB")
	if _, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: puts[:10]}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: puts[10:]}); err != nil {
		t.Fatal(err)
	}
	out, err := c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{TransactItems: gets[:10]})
	if err != nil || len(out.Responses) != 10 || out.Responses[9].Item == nil {
		t.Fatalf("10 x 350 KB: %v", err)
	}
	_, err = c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{TransactItems: gets})
	wantAPIError(t, err, "ValidationException", "Transaction payload size cannot exceed 4 MB")
	// The items count whole, whatever the projection keeps.
	for i := range gets {
		gets[i].Get.ProjectionExpression = aws.String("pk")
	}
	_, err = c.TransactGetItems(bg, &dynamodb.TransactGetItemsInput{TransactItems: gets})
	wantAPIError(t, err, "ValidationException", "Transaction payload size cannot exceed 4 MB")

	// The write limit is on the request: deleting 4.2 MB of items in one
	// transaction is accepted (ScyllaDB's Alternator tests, run against
	// DynamoDB, delete 5 MB so).
	dels := make([]types.TransactWriteItem, len(gets))
	for i, g := range gets {
		dels[i] = types.TransactWriteItem{Delete: &types.Delete{TableName: g.Get.TableName, Key: g.Get.Key}}
	}
	if _, err := c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: dels}); err != nil {
		t.Fatalf("deleting 12 x 350 KB in one transaction: %v", err)
	}
}
