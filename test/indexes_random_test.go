package test

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Thousands of concurrent mixed writes, then every index is compared with
// what a full scan of the table says it must hold.
func TestIndexRandomizedAgainstScan(t *testing.T) {
	c := ddb()
	table := createIndexed(t, c, defs("pk", "S", "sk", "S", "g", "S", "h", "S", "gs", "N", "l", "S"),
		[]types.GlobalSecondaryIndex{
			{IndexName: aws.String("GInc"), KeySchema: ks("g", "HASH", "gs", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"a"}}},
			{IndexName: aws.String("GMulti"), KeySchema: ks("g", "HASH", "h", "HASH", "gs", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		},
		[]types.LocalSecondaryIndex{
			{IndexName: aws.String("LKeys"), KeySchema: ks("pk", "HASH", "l", "RANGE"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
		})
	randItem := func(r *rand.Rand, pk, sk string) item {
		it := item{"pk": S(pk), "sk": S(sk)}
		if r.Intn(4) > 0 {
			it["g"] = S(fmt.Sprint("g", r.Intn(3)))
		}
		if r.Intn(3) > 0 {
			it["h"] = S(fmt.Sprint("h", r.Intn(2)))
		}
		if r.Intn(4) > 0 {
			it["gs"] = N(fmt.Sprint(r.Intn(20)))
		}
		if r.Intn(2) > 0 {
			it["l"] = S(fmt.Sprint("l", r.Intn(5)))
		}
		if r.Intn(2) > 0 {
			it["a"] = S(fmt.Sprint("a", r.Intn(100)))
		}
		it["b"] = N(fmt.Sprint(r.Intn(1000)))
		return it
	}
	const workers, ops = 4, 1000
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			for i := 0; i < ops; i++ {
				pk, sk := fmt.Sprint("p", r.Intn(8)), fmt.Sprint("s", r.Intn(12))
				key := item{"pk": S(pk), "sk": S(sk)}
				var err error
				switch op := r.Intn(10); {
				case op < 4:
					_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: randItem(r, pk, sk)})
				case op < 7:
					exprs := []string{"SET gs = :n", "REMOVE gs", "SET g = :g", "REMOVE g, h", "SET l = :l", "REMOVE l", "SET a = :a", "SET h = :h", "ADD gs :one"}
					e := exprs[r.Intn(len(exprs))]
					vals := item{}
					for _, p := range []struct {
						ph string
						v  types.AttributeValue
					}{
						{":n", N(fmt.Sprint(r.Intn(20)))}, {":g", S(fmt.Sprint("g", r.Intn(3)))}, {":l", S(fmt.Sprint("l", r.Intn(5)))},
						{":a", S("upd")}, {":h", S(fmt.Sprint("h", r.Intn(2)))}, {":one", N("1")},
					} {
						if containsWord(e, p.ph) {
							vals[p.ph] = p.v
						}
					}
					in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key, UpdateExpression: aws.String(e)}
					if len(vals) > 0 {
						in.ExpressionAttributeValues = vals
					}
					_, err = c.UpdateItem(bg, in)
				case op < 9:
					_, err = c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key})
				default:
					reqs := []types.WriteRequest{{PutRequest: &types.PutRequest{Item: randItem(r, pk, sk)}}}
					if sk2 := fmt.Sprint("s", r.Intn(12)); sk2 != sk {
						reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: item{"pk": S(pk), "sk": S(sk2)}}})
					}
					_, err = c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(int64(w + 1))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	rows := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String(table)})
	project := func(it item, keys []string, include []string, all bool) (item, bool) {
		for _, k := range keys {
			if _, ok := it[k]; !ok {
				return nil, false
			}
		}
		if all {
			return it, true
		}
		out := item{"pk": it["pk"], "sk": it["sk"]}
		for _, k := range append(keys, include...) {
			if v, ok := it[k]; ok {
				out[k] = v
			}
		}
		return out, true
	}
	check := func(index string, keys, include []string, all bool) {
		var want []item
		for _, it := range rows {
			if e, ok := project(it, keys, include, all); ok {
				want = append(want, e)
			}
		}
		got := scanAll(t, c, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(index)})
		sortItems(t, want)
		sortItems(t, got)
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries, want %d", index, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: entry %d\n got %#v\nwant %#v", index, i, got[i], want[i])
			}
		}
		d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		var n int64 = -1
		for _, g := range d.Table.GlobalSecondaryIndexes {
			if *g.IndexName == index {
				n = *g.ItemCount
			}
		}
		for _, l := range d.Table.LocalSecondaryIndexes {
			if *l.IndexName == index {
				n = *l.ItemCount
			}
		}
		if !countIs(&n, int64(len(want))) {
			t.Fatalf("%s: ItemCount %d, want %d", index, n, len(want))
		}
	}
	check("GInc", []string{"g", "gs"}, []string{"a"}, false)
	check("GMulti", []string{"g", "h", "gs"}, nil, true)
	check("LKeys", []string{"pk", "l"}, nil, false)
	t.Logf("%d items; indexes consistent", len(rows))
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w && (i+len(w) == len(s) || s[i+len(w)] == ' ' || s[i+len(w)] == ',') {
			return true
		}
	}
	return false
}

func sortItems(t *testing.T, items []item) {
	sort.Slice(items, func(i, j int) bool {
		a := str(t, items[i]["pk"]) + "/" + str(t, items[i]["sk"])
		b := str(t, items[j]["pk"]) + "/" + str(t, items[j]["sk"])
		return a < b
	})
}
