package test

import (
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func str(t *testing.T, v types.AttributeValue) string {
	t.Helper()
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	}
	t.Fatalf("not S/N: %#v", v)
	return ""
}

func TestPutGetUpdateDelete(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	key := map[string]types.AttributeValue{"pk": S("p"), "sk": S("s")}
	item := map[string]types.AttributeValue{
		"pk": S("p"), "sk": S("s"),
		"num":  N("1.50"),
		"data": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"status": S("pending"), "steps": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}}},
		"lst":  &types.AttributeValueMemberL{Value: []types.AttributeValue{S("a"), S("b"), S("c")}},
		"tags": &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"ok":   BOOL(true),
		"nil":  &types.AttributeValueMemberNULL{Value: true},
		"bin":  B([]byte{1, 2, 3}),
		"empt": S(""),
	}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n := str(t, got.Item["num"]); n != "1.5" {
		t.Fatalf("number not canonical: %q", n)
	}
	if len(got.Item) != len(item) {
		t.Fatalf("got %d attributes, want %d", len(got.Item), len(item))
	}

	// Conditional put fails and returns the old item when asked.
	_, err = c.PutItem(bg, &dynamodb.PutItemInput{
		TableName: aws.String(table), Item: key,
		ConditionExpression:                 aws.String("attribute_not_exists(pk)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if !errorsAs(err, &ccf) {
		t.Fatalf("want ConditionalCheckFailedException, got %v", err)
	}
	if ccf.ErrorMessage() != "The conditional request failed" || ccf.Item == nil || str(t, ccf.Item["num"]) != "1.5" {
		t.Fatalf("bad ConditionalCheckFailedException: %q %v", ccf.ErrorMessage(), ccf.Item)
	}

	// Nested update, arithmetic, list append, REMOVE of a list element, ADD/DELETE on sets.
	up, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{
		TableName:                aws.String(table),
		Key:                      key,
		UpdateExpression:         aws.String("SET #d.#st = :s, #d.steps.ocr = :m, num = num + :one, lst = list_append(lst, :more) ADD tags :t, cnt :one"),
		ExpressionAttributeNames: map[string]string{"#d": "data", "#st": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":s":    S("in_progress"),
			":m":    &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"status": S("running")}},
			":one":  N("1"),
			":more": &types.AttributeValueMemberL{Value: []types.AttributeValue{S("d")}},
			":t":    &types.AttributeValueMemberSS{Value: []string{"z"}},
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if err != nil {
		t.Fatal(err)
	}
	// ALL_NEW: the whole item as the update left it.
	if n := up.Attributes; len(n) != len(item)+1 || str(t, n["num"]) != "2.5" || str(t, n["cnt"]) != "1" ||
		len(n["lst"].(*types.AttributeValueMemberL).Value) != 4 || len(n["tags"].(*types.AttributeValueMemberSS).Value) != 3 ||
		str(t, n["data"].(*types.AttributeValueMemberM).Value["status"]) != "in_progress" {
		t.Fatalf("ALL_NEW: %v", n)
	}
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key, UpdateExpression: aws.String("REMOVE lst[0] DELETE tags :x"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":x": &types.AttributeValueMemberSS{Value: []string{"x"}}},
	}); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	a := got.Item
	if str(t, a["num"]) != "2.5" || str(t, a["cnt"]) != "1" {
		t.Fatalf("arithmetic: num=%v cnt=%v", a["num"], a["cnt"])
	}
	data := a["data"].(*types.AttributeValueMemberM).Value
	if str(t, data["status"]) != "in_progress" {
		t.Fatalf("nested set: %v", data)
	}
	list := a["lst"].(*types.AttributeValueMemberL).Value
	if len(list) != 3 || str(t, list[0]) != "b" || str(t, list[2]) != "d" {
		t.Fatalf("list: %v", list)
	}
	tags := a["tags"].(*types.AttributeValueMemberSS).Value
	sort.Strings(tags)
	if fmt.Sprint(tags) != "[y z]" {
		t.Fatalf("tags: %v", tags)
	}

	// UPDATED_OLD returns every touched attribute, even unchanged ones.
	up, err = c.UpdateItem(bg, &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key,
		UpdateExpression:          aws.String("SET ok = :t, num = :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": BOOL(true), ":n": N("7")},
		ReturnValues:              types.ReturnValueUpdatedOld,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(up.Attributes) != 2 || up.Attributes["ok"] == nil || str(t, up.Attributes["num"]) != "2.5" {
		t.Fatalf("UPDATED_OLD: %v", up.Attributes)
	}

	del, err := c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key, ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	if str(t, del.Attributes["num"]) != "7" {
		t.Fatalf("DeleteItem ALL_OLD: %v", del.Attributes)
	}
	got, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	if err != nil || got.Item != nil {
		t.Fatalf("item still there: %v %v", got.Item, err)
	}
}

// TestConcurrentAddIsAtomic: 32 clients each ADD 1 to one item 1,000 times.
func TestConcurrentAddIsAtomic(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	const clients, each = 32, 1000
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{
					TableName:                 aws.String(table),
					Key:                       map[string]types.AttributeValue{"pk": S("counter")},
					UpdateExpression:          aws.String("ADD n :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": N("1")},
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("counter")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n := str(t, got.Item["n"]); n != strconv.Itoa(clients*each) {
		t.Fatalf("n = %s, want %d", n, clients*each)
	}
}

// Sets come back in DynamoDB's own order, not as written: string and binary
// sets bytewise, number sets by value, the empty string first (GetItem in
// eu-west-2, 2026-10-09, as a public conformance suite records it), also
// after an ADD.
func TestSetMemberOrder(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	key := map[string]types.AttributeValue{"pk": S("a")}
	_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": S("a"),
		"ss": &types.AttributeValueMemberSS{Value: []string{"b", "a"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"10", "2", "-1.5"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{0xff}, {0}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
		UpdateExpression:          aws.String("ADD ss :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberSS{Value: []string{""}}}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	ss := out.Item["ss"].(*types.AttributeValueMemberSS).Value
	ns := out.Item["ns"].(*types.AttributeValueMemberNS).Value
	bs := out.Item["bs"].(*types.AttributeValueMemberBS).Value
	if fmt.Sprint(ss) != "[ a b]" || fmt.Sprint(ns) != "[-1.5 2 10]" || fmt.Sprint(bs) != "[[0] [255]]" {
		t.Fatalf("ss %q ns %v bs %v", ss, ns, bs)
	}
}

// An UpdateItem that only removes (REMOVE, DELETE) creates no item when
// there is none, returns no Attributes, and names any path without error
// (ScyllaDB's Alternator tests, which are run against DynamoDB). On an
// existing item a path through a missing attribute is still refused.
func TestUpdateRemoveOnlyOnMissingItem(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	update := func(pk, expr string, values map[string]types.AttributeValue) (*dynamodb.UpdateItemOutput, error) {
		return c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S(pk)},
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: values, ReturnValues: types.ReturnValueAllNew})
	}
	exists := func(pk string) bool {
		out, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S(pk)}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	set := map[string]types.AttributeValue{":v": &types.AttributeValueMemberSS{Value: []string{"a"}}}
	for _, u := range []struct {
		expr   string
		values map[string]types.AttributeValue
	}{{"REMOVE b", nil}, {"REMOVE x.y", nil}, {"REMOVE x[0], z", nil}, {"DELETE s :v", set}, {"REMOVE b DELETE s :v", set}} {
		out, err := update("missing", u.expr, u.values)
		if err != nil {
			t.Fatalf("%s: %v", u.expr, err)
		}
		if out.Attributes != nil || exists("missing") {
			t.Fatalf("%s created the item: %v", u.expr, out.Attributes)
		}
	}
	if out, err := update("made", "SET a = :v REMOVE b", set); err != nil || len(out.Attributes) != 2 || !exists("made") {
		t.Fatalf("SET with REMOVE: %v, %v", out, err)
	}
	_, err := update("made", "REMOVE x.y", nil)
	wantAPIError(t, err, "ValidationException", "The document path provided in the update expression is invalid for update")
}

// Condition semantics recorded by ScyllaDB's Alternator tests, which are run
// against DynamoDB: a missing attribute is not equal to anything, another
// missing one included; Expected's operators take the operand types their
// QueryFilter twins take (a wrong one is a ValidationException, not a
// failed condition); NOT_CONTAINS, like CONTAINS, is false on a missing
// attribute.
func TestConditionMissingAndLegacyOperandTypes(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	key := map[string]types.AttributeValue{"pk": S("k")}
	set := func(cond string, exp map[string]types.ExpectedAttributeValue) error {
		in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key}
		if exp != nil {
			in.AttributeUpdates = map[string]types.AttributeValueUpdate{"z": {Action: types.AttributeActionPut, Value: N("1")}}
			in.Expected = exp
		} else {
			in.UpdateExpression, in.ConditionExpression = aws.String("SET z = :one"), aws.String(cond)
			in.ExpressionAttributeValues = map[string]types.AttributeValue{":one": N("1")}
		}
		_, err := c.UpdateItem(bg, in)
		return err
	}
	if err := set("q <> z0", nil); err != nil {
		t.Fatalf("'q <> z0', both missing: %v", err)
	}
	op := func(o types.ComparisonOperator, vals ...types.AttributeValue) map[string]types.ExpectedAttributeValue {
		return map[string]types.ExpectedAttributeValue{"a": {ComparisonOperator: o, AttributeValueList: vals}}
	}
	const ip = "1 validation error detected: One or more parameter values were invalid: "
	list := &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1")}}
	wantAPIError(t, set("", op(types.ComparisonOperatorContains, list)), "ValidationException", ip+"ComparisonOperator CONTAINS is not valid for L AttributeValue type")
	wantAPIError(t, set("", op(types.ComparisonOperatorNotContains, list)), "ValidationException", ip+"ComparisonOperator NOT_CONTAINS is not valid for L AttributeValue type")
	wantAPIError(t, set("", op(types.ComparisonOperatorBeginsWith, N("3"))), "ValidationException", ip+"ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type")
	wantAPIError(t, set("", op(types.ComparisonOperatorIn, list, list)), "ValidationException", ip+"ComparisonOperator IN is not valid for L AttributeValue type")
	var ccf *types.ConditionalCheckFailedException
	if err := set("", map[string]types.ExpectedAttributeValue{"q": {ComparisonOperator: types.ComparisonOperatorNotContains,
		AttributeValueList: []types.AttributeValue{N("1")}}}); !errorsAs(err, &ccf) {
		t.Fatalf("NOT_CONTAINS on a missing attribute: %v", err)
	}
}
