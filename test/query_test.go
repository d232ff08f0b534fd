package test

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func batchPut(t *testing.T, c *dynamodb.Client, table string, items []map[string]types.AttributeValue) {
	t.Helper()
	for len(items) > 0 {
		n := min(25, len(items))
		reqs := make([]types.WriteRequest, n)
		for i := range reqs {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: items[i]}}
		}
		out, err := c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.UnprocessedItems) != 0 {
			t.Fatalf("unprocessed items: %v", out.UnprocessedItems)
		}
		items = items[n:]
	}
}

// Numbers sort numerically, both directions, and pages concatenate to the
// full result.
func TestQueryNumericOrderAndPaging(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "n", types.ScalarAttributeTypeN)
	nums := []string{"-100", "-1.5", "-1", "0", "0.001", "1", "1.5", "2", "10", "99.99", "100", "1e5", "123456789012345678901234567890"}
	var items []map[string]types.AttributeValue
	for _, n := range nums {
		items = append(items, map[string]types.AttributeValue{"pk": S("p"), "n": N(n), "pad": S("x")})
	}
	items = append(items, map[string]types.AttributeValue{"pk": S("other"), "n": N("5")})
	batchPut(t, c, table, items)
	want := []string{"-100", "-1.5", "-1", "0", "0.001", "1", "1.5", "2", "10", "99.99", "100", "100000", "123456789012345678901234567890"}

	for _, forward := range []bool{true, false} {
		for _, limit := range []int32{0, 1, 3, 100} {
			in := &dynamodb.QueryInput{
				TableName:                 aws.String(table),
				KeyConditionExpression:    aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("p")},
				ScanIndexForward:          aws.Bool(forward),
			}
			if limit > 0 {
				in.Limit = aws.Int32(limit)
			}
			var got []string
			pages := 0
			p := dynamodb.NewQueryPaginator(c, in)
			for p.HasMorePages() {
				page, err := p.NextPage(bg)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for _, it := range page.Items {
					got = append(got, str(t, it["n"]))
				}
			}
			exp := append([]string(nil), want...)
			if !forward {
				for i, j := 0, len(exp)-1; i < j; i, j = i+1, j-1 {
					exp[i], exp[j] = exp[j], exp[i]
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(exp) {
				t.Fatalf("forward=%v limit=%d:\n got %v\nwant %v", forward, limit, got, exp)
			}
		}
	}

	// Range conditions.
	q := func(expr string, vals map[string]types.AttributeValue) []string {
		vals[":p"] = S("p")
		out, err := c.Query(bg, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("pk = :p AND " + expr),
			ExpressionAttributeValues: vals,
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, str(t, it["n"]))
		}
		return got
	}
	if got := fmt.Sprint(q("n BETWEEN :a AND :b", map[string]types.AttributeValue{":a": N("-1"), ":b": N("1.5")})); got != "[-1 0 0.001 1 1.5]" {
		t.Fatalf("BETWEEN: %s", got)
	}
	if got := fmt.Sprint(q("n > :a", map[string]types.AttributeValue{":a": N("100")})); got != "[100000 123456789012345678901234567890]" {
		t.Fatalf(">: %s", got)
	}
	if got := fmt.Sprint(q("n <= :a", map[string]types.AttributeValue{":a": N("-1.5")})); got != "[-100 -1.5]" {
		t.Fatalf("<=: %s", got)
	}
}

// Strings sort by UTF-8 bytes; begins_with; filter applies after Limit.
func TestQueryStringsFilterAndLimit(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	sks := []string{"SEG#0001", "SEG#0002", "SEG#0010", "DOC#a", "DOC#b", "WF#1", "a", "B", "é", "z", "~"}
	var items []map[string]types.AttributeValue
	for i, sk := range sks {
		items = append(items, map[string]types.AttributeValue{"pk": S("P"), "sk": S(sk), "i": N(strconv.Itoa(i))})
	}
	batchPut(t, c, table, items)
	sorted := append([]string(nil), sks...)
	sort.Strings(sorted) // Go compares strings bytewise = UTF-8 order
	out, err := c.Query(bg, &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("P")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, str(t, it["sk"]))
	}
	if fmt.Sprint(got) != fmt.Sprint(sorted) {
		t.Fatalf("order:\n got %v\nwant %v", got, sorted)
	}
	out, err = c.Query(bg, &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("pk = :p AND begins_with(sk, :s)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("P"), ":s": S("SEG#"), ":zero": N("0")},
		FilterExpression:          aws.String("i <> :zero"),
		Limit:                     aws.Int32(2),
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 || out.ScannedCount != 2 || out.LastEvaluatedKey == nil {
		t.Fatalf("Limit before filter: count=%d scanned=%d lek=%v", out.Count, out.ScannedCount, out.LastEvaluatedKey)
	}
	cnt, err := c.Query(bg, &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("pk = :p AND begins_with(sk, :s)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("P"), ":s": S("SEG#")},
		Select:                    types.SelectCount,
	})
	if err != nil {
		t.Fatal(err)
	}
	if cnt.Count != 3 || len(cnt.Items) != 0 {
		t.Fatalf("COUNT: %d items=%d", cnt.Count, len(cnt.Items))
	}
}

// Parallel scan segments are disjoint and together complete.
func TestParallelScan(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	r := rand.New(rand.NewSource(1))
	var items []map[string]types.AttributeValue
	want := map[string]bool{}
	for i := 0; i < 500; i++ {
		k := fmt.Sprintf("k%d-%d", i, r.Intn(1e6))
		want[k] = true
		items = append(items, map[string]types.AttributeValue{"pk": S(k)})
	}
	batchPut(t, c, table, items)
	seen := map[string]int{}
	const total = 4
	for seg := int32(0); seg < total; seg++ {
		p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{
			TableName: aws.String(table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(37),
		})
		for p.HasMorePages() {
			page, err := p.NextPage(bg)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				seen[str(t, it["pk"])]++
			}
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("segments saw %d distinct items, want %d", len(seen), len(want))
	}
	for k, n := range seen {
		if n != 1 || !want[k] {
			t.Fatalf("item %s seen %d times", k, n)
		}
	}
	// A start key from another segment is refused, not read as the end.
	first, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(1), TotalSegments: aws.Int32(total), Limit: aws.Int32(1)})
	if err != nil || first.LastEvaluatedKey == nil {
		t.Fatalf("segment 1: %v, %+v", err, first)
	}
	_, err = c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(0), TotalSegments: aws.Int32(total), ExclusiveStartKey: first.LastEvaluatedKey})
	wantAPIError(t, err, "ValidationException",
		"The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 4 Segment: 0")
}

func TestConsumedCapacity(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	big := make([]byte, 5000)
	for i := range big {
		big[i] = 'a'
	}
	put, err := c.PutItem(bg, &dynamodb.PutItemInput{
		TableName:              aws.String(table),
		Item:                   map[string]types.AttributeValue{"pk": S("k"), "v": S(string(big))},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatal(err)
	}
	// 5000 + len("v") + len("pk") + 1 bytes → 5 KB → 5 write units.
	if put.ConsumedCapacity == nil || aws.ToFloat64(put.ConsumedCapacity.CapacityUnits) != 5 || aws.ToString(put.ConsumedCapacity.TableName) != table {
		t.Fatalf("PutItem capacity: %+v", put.ConsumedCapacity)
	}
	get, err := c.GetItem(bg, &dynamodb.GetItemInput{
		TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("k")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatal(err)
	}
	// 5 KB → 2 read units strongly consistent, 1 eventually consistent.
	if aws.ToFloat64(get.ConsumedCapacity.CapacityUnits) != 1 {
		t.Fatalf("GetItem capacity: %v", aws.ToFloat64(get.ConsumedCapacity.CapacityUnits))
	}
	get, err = c.GetItem(bg, &dynamodb.GetItemInput{
		TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("k")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToFloat64(get.ConsumedCapacity.CapacityUnits) != 2 {
		t.Fatalf("GetItem consistent capacity: %v", aws.ToFloat64(get.ConsumedCapacity.CapacityUnits))
	}
}

// Key condition operands of the wrong type, as DynamoDB words them (a
// suite run against it, eu-west-2, October 2026): a value no key type could
// satisfy is an expression error naming the operator as written; a key
// type that is not the attribute's fails the schema check.
func TestQueryKeyConditionOperandTexts(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeN)
	const schema = "One or more parameter values were invalid: Condition parameter type does not match schema type"
	operand := func(op, typ string) string {
		return "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: " + op + ", operand type: " + typ
	}
	vals := func(kv ...any) map[string]types.AttributeValue {
		m := map[string]types.AttributeValue{":p": S("q")}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return m
	}
	yes, no := &types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: false}
	for _, c0 := range []struct {
		cond string
		vals map[string]types.AttributeValue
		want string
	}{
		{"pk = :p AND begins_with(sk, :v)", vals(":v", N("1")), operand("begins_with", "N")},
		{"pk = :p AND begins_with(sk, :v)", vals(":v", S("a")), schema},
		{"pk = :p AND sk < :v", vals(":v", yes), operand("<", "BOOL")},
		{"pk = :p AND :v >= sk", vals(":v", yes), operand(">=", "BOOL")},
		{"pk = :p AND sk BETWEEN :a AND :b", vals(":a", no, ":b", yes), operand("BETWEEN", "BOOL")},
		{"pk = :p AND sk = :v", vals(":v", yes), schema},
		{"pk = :p AND sk > :a AND sk < :b", vals(":a", N("1"), ":b", N("5")),
			"Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key"},
		{"pk = :p AND sk > :a AND extra = :b", vals(":a", N("1"), ":b", N("5")),
			"The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)"},
	} {
		_, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table),
			KeyConditionExpression: aws.String(c0.cond), ExpressionAttributeValues: c0.vals})
		wantAPIError(t, err, "ValidationException", c0.want)
	}
}

// An unknown ConditionalOperator joining two legacy filter conditions is
// refused on its own, bare, in DynamoDB's newer enum text (Query, us-east-1
// and eu-west-2, 2026-10-09, in a public conformance suite).
func TestQueryFilterOperatorXOR(t *testing.T) {
	c := ddb()
	_, err := c.Query(bg, &dynamodb.QueryInput{
		TableName: aws.String("vo_query_xor_absent"),
		KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq,
			AttributeValueList: []types.AttributeValue{S("a")}}},
		QueryFilter: map[string]types.Condition{"b": {ComparisonOperator: types.ComparisonOperatorNull},
			"c": {ComparisonOperator: types.ComparisonOperatorNull}},
		ConditionalOperator: "XOR",
		Select:              "BOGUS",
	})
	wantAPIError(t, err, "ValidationException", "Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]")
}

// Key conditions are checked clause by clause in the order written: a bad
// operand is reported ahead of an undefined value in a later clause
// (us-east-1 and eu-west-2, 2026-10-09, in a public conformance suite),
// and an undefined value ahead of a bad operand after it.
func TestKeyConditionFaultsInWrittenOrder(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeS)
	const beginsN = "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"
	const undefined = "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :missing"
	for _, tc := range []struct{ cond, want string }{
		{"begins_with(sk, :n) AND pk = :missing", beginsN},
		{"pk = :p AND begins_with(sk, :n) AND sk = :missing", beginsN},
		{"pk = :missing AND begins_with(sk, :n)", undefined},
	} {
		_, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String(tc.cond),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("q"), ":n": N("1")}})
		wantAPIError(t, err, "ValidationException", tc.want)
	}
}
