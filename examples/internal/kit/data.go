package kit

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is one DynamoDB item.
type Item = map[string]types.AttributeValue

// S is a string attribute value.
func S(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// N is a number attribute value (an int, a float or a decimal string).
func N(n any) types.AttributeValue { return &types.AttributeValueMemberN{Value: fmt.Sprint(n)} }

// M is a map attribute value.
func M(m Item) types.AttributeValue { return &types.AttributeValueMemberM{Value: m} }

// L is a list attribute value.
func L(vs ...types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: vs}
}

// Null is the NULL attribute value.
func Null() types.AttributeValue { return &types.AttributeValueMemberNULL{Value: true} }

// At follows a path of map keys from an item ("data", "steps", "ocr").
func At(it Item, path ...string) types.AttributeValue {
	var v types.AttributeValue = &types.AttributeValueMemberM{Value: it}
	for _, p := range path {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			return nil
		}
		v = m.Value[p]
	}
	return v
}

// Str is the string at a path ("" when absent or not a string).
func Str(it Item, path ...string) string {
	if s, ok := At(it, path...).(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// Num is the number (as its decimal text) at a path ("" when absent).
func Num(it Item, path ...string) string {
	if n, ok := At(it, path...).(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

// Map is the map at a path (nil when absent).
func Map(it Item, path ...string) Item {
	if m, ok := At(it, path...).(*types.AttributeValueMemberM); ok {
		return m.Value
	}
	return nil
}

// List is the list at a path (nil when absent).
func List(it Item, path ...string) []types.AttributeValue {
	if l, ok := At(it, path...).(*types.AttributeValueMemberL); ok {
		return l.Value
	}
	return nil
}

// Names is the sorted, comma-separated attribute names of an item.
func Names(it Item) string {
	var ns []string
	for k := range it {
		ns = append(ns, k)
	}
	sort.Strings(ns)
	return strings.Join(ns, ",")
}

// Want fails with a readable message when got differs from want.
func Want[T comparable](what string, got, want T) error {
	if got != want {
		return fmt.Errorf("%s: got %v, want %v", what, got, want)
	}
	return nil
}

// Check fails with the message when ok is false.
func Check(ok bool, format string, args ...any) error {
	if !ok {
		return fmt.Errorf(format, args...)
	}
	return nil
}

// FirstErr returns the first non-nil error.
func FirstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// QueryAll runs a Query to the end, following LastEvaluatedKey, and returns
// the items and the number of pages.
func QueryAll(ctx context.Context, db *dynamodb.Client, in *dynamodb.QueryInput) ([]Item, int, error) {
	var items []Item
	pages := 0
	p := dynamodb.NewQueryPaginator(db, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, pages, fmt.Errorf("Query %s: %w", aws.ToString(in.TableName), err)
		}
		pages++
		items = append(items, out.Items...)
	}
	return items, pages, nil
}

// ScanCount counts a table's items with a paginated Scan (Select COUNT).
func ScanCount(ctx context.Context, db *dynamodb.Client, table string) (int, error) {
	n := 0
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return 0, fmt.Errorf("Scan %s: %w", table, err)
		}
		n += int(out.Count)
	}
	return n, nil
}

// BatchWrite writes requests with BatchWriteItem, 25 per call, resending
// UnprocessedItems with backoff. It returns the number of calls made.
func BatchWrite(ctx context.Context, db *dynamodb.Client, table string, reqs []types.WriteRequest) (int, error) {
	calls := 0
	for start := 0; start < len(reqs); start += 25 {
		pending := map[string][]types.WriteRequest{table: reqs[start:min(start+25, len(reqs))]}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				if attempt > 10 {
					return calls, fmt.Errorf("BatchWriteItem %s: items still unprocessed after %d attempts", table, attempt)
				}
				time.Sleep(time.Duration(10<<attempt) * time.Millisecond)
			}
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			calls++
			if err != nil {
				return calls, fmt.Errorf("BatchWriteItem %s: %w", table, err)
			}
			pending = out.UnprocessedItems
		}
	}
	return calls, nil
}

// Puts turns items into PutRequests.
func Puts(items []Item) []types.WriteRequest {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	return reqs
}
