package test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The Scan orders and parallel-scan segments below are DynamoDB's, as
// observed by tests run against it (dynalite's test/scan.js, which marks
// them as depending on the hashing scheme, and a suite verified against AWS
// for msg1/msg2); internal/engine/keys.go names the sources.

// hashNTable creates an on-demand table with a number hash key "a".
func hashNTable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	name := uniqueTable(strings.ReplaceAll(t.Name(), "/", "_"))
	if _, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("a"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}},
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	return name
}

// putKeys writes one item per key value of attribute a.
func putKeys(t *testing.T, c *dynamodb.Client, table string, keys []types.AttributeValue) {
	t.Helper()
	for _, k := range keys {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"a": k}}); err != nil {
			t.Fatal(err)
		}
	}
}

// scannedKeys is attribute a of every item a Scan returns, in order.
func scannedKeys(t *testing.T, c *dynamodb.Client, in *dynamodb.ScanInput) []string {
	t.Helper()
	var out []string
	for _, it := range scanAll(t, c, in) {
		switch v := it["a"].(type) {
		case *types.AttributeValueMemberS:
			out = append(out, v.Value)
		case *types.AttributeValueMemberN:
			out = append(out, v.Value)
		}
	}
	return out
}

func TestScanOrderIsDynamoDBs(t *testing.T) {
	c := ddb()
	t.Run("msg", func(t *testing.T) {
		table := createTable(t, c, "a", "", "")
		putKeys(t, c, table, []types.AttributeValue{S("msg2"), S("msg1")})
		if got := scannedKeys(t, c, &dynamodb.ScanInput{TableName: aws.String(table)}); !slices.Equal(got, []string{"msg1", "msg2"}) {
			t.Fatalf("scan order %q, want msg1 first", got)
		}
	})
	t.Run("strings", func(t *testing.T) {
		table := createTable(t, c, "a", "", "")
		var keys []types.AttributeValue
		for _, s := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "aardman", "hello", "zapf", "äáöü"} {
			keys = append(keys, S(s))
		}
		putKeys(t, c, table, keys)
		want := []string{"2", "8", "9", "1", "6", "hello", "0", "5", "4", "äáöü", "aardman", "7", "3", "zapf"}
		if got := scannedKeys(t, c, &dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(3)}); !slices.Equal(got, want) {
			t.Fatalf("scan order %q\nwant %q", got, want)
		}
	})
	t.Run("numbers", func(t *testing.T) {
		table := hashNTable(t, c)
		var keys []types.AttributeValue
		for _, n := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-0.09", "999.9", "0.012345", "-999.9"} {
			keys = append(keys, N(n))
		}
		putKeys(t, c, table, keys)
		want := []string{"7", "999.9", "8", "3", "2", "-999.9", "9", "4", "-0.09", "6", "1", "0", "0.012345", "5"}
		if got := scannedKeys(t, c, &dynamodb.ScanInput{TableName: aws.String(table)}); !slices.Equal(got, want) {
			t.Fatalf("scan order %q\nwant %q", got, want)
		}
	})
}

func TestScanSegmentsAreDynamoDBs(t *testing.T) {
	c := ddb()
	segment := func(t *testing.T, table string, seg, total int32) []string {
		return scannedKeys(t, c, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total)})
	}
	t.Run("strings", func(t *testing.T) {
		table := createTable(t, c, "a", "", "")
		putKeys(t, c, table, []types.AttributeValue{S("3635"), S("228"), S("1668"), S("3435")})
		for _, w := range []struct {
			seg  int32
			keys []string
		}{{0, []string{"3635", "228"}}, {1, []string{"1668"}}, {4, []string{"3435"}}} {
			got := segment(t, table, w.seg, 4096)
			slices.Sort(got)
			slices.Sort(w.keys)
			if !slices.Equal(got, w.keys) {
				t.Errorf("segment %d of 4096: %q, want %q", w.seg, got, w.keys)
			}
		}
	})
	t.Run("numbers", func(t *testing.T) {
		table := hashNTable(t, c)
		putKeys(t, c, table, []types.AttributeValue{N("251"), N("2388")})
		if got := segment(t, table, 1, 4096); !slices.Equal(got, []string{"251"}) {
			t.Errorf("segment 1 of 4096: %q, want [251]", got)
		}
		if got := segment(t, table, 4095, 4096); !slices.Equal(got, []string{"2388"}) {
			t.Errorf("segment 4095 of 4096: %q, want [2388]", got)
		}
	})
	t.Run("nested", func(t *testing.T) {
		// Segments are contiguous hash ranges: the two halves of a scan in
		// 2 are the segments 0-1 and 2-3 of a scan in 4, in scan order.
		table := createTable(t, c, "a", "", "")
		var keys []types.AttributeValue
		for i := 0; i < 20; i++ {
			keys = append(keys, S(strings.Repeat("k", 1+i%3)+string(rune('a'+i))))
		}
		putKeys(t, c, table, keys)
		whole := segment(t, table, 0, 1)
		halves := append(segment(t, table, 0, 2), segment(t, table, 1, 2)...)
		var quarters []string
		for s := int32(0); s < 4; s++ {
			quarters = append(quarters, segment(t, table, s, 4)...)
		}
		if len(whole) != 20 || !slices.Equal(halves, whole) || !slices.Equal(quarters, whole) {
			t.Fatalf("segments do not split the scan order:\nwhole %q\nhalves %q\nquarters %q", whole, halves, quarters)
		}
	})
}
