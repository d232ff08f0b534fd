package test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attribute names are at most 65,535 bytes at every depth, however they
// arrive. Measured against us-east-1 on 2026-09-16 (quoted in a public
// emulator's issue tracker): a 65,536-byte name is refused with the text
// below as a top-level item attribute, as a nested map key (in PutItem and
// in an UpdateItem value) and through ExpressionAttributeNames; 65,535
// bytes is accepted.
func TestAttributeNameLength(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	const tooLarge = "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
	long := strings.Repeat("n", 65536)
	longest := long[:65535]
	key := map[string]types.AttributeValue{"pk": S("a")}
	put := func(name string, nested bool) error {
		item := map[string]types.AttributeValue{"pk": S("a")}
		if nested {
			item["doc"] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{name: S("x")}}
		} else {
			item[name] = S("x")
		}
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		return err
	}

	t.Run("top-level name", func(t *testing.T) {
		wantAPIError(t, put(long, false), "ValidationException", tooLarge)
		if err := put(longest, false); err != nil {
			t.Fatalf("65,535 bytes: %v", err)
		}
	})
	t.Run("nested map key", func(t *testing.T) {
		wantAPIError(t, put(long, true), "ValidationException", tooLarge)
		if err := put(longest, true); err != nil {
			t.Fatalf("65,535 bytes: %v", err)
		}
	})
	t.Run("map key in an UpdateItem value", func(t *testing.T) {
		_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{
			TableName:        aws.String(table),
			Key:              key,
			UpdateExpression: aws.String("SET doc = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":v": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{long: S("x")}},
			},
		})
		wantAPIError(t, err, "ValidationException", tooLarge)
	})
	t.Run("ExpressionAttributeNames", func(t *testing.T) {
		update := func(name string) error {
			_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{
				TableName:                 aws.String(table),
				Key:                       key,
				UpdateExpression:          aws.String("SET #n = :v"),
				ExpressionAttributeNames:  map[string]string{"#n": name},
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
			})
			return err
		}
		wantAPIError(t, update(long), "ValidationException", tooLarge)
		if err := update(longest); err != nil {
			t.Fatalf("65,535 bytes: %v", err)
		}
	})
	// An empty name is refused too, naming its placeholder (DynamoDB's
	// text, quoted from its answers by an emulator's pull request,
	// 2026-06); it was stored as an attribute named "".
	t.Run("empty ExpressionAttributeNames value", func(t *testing.T) {
		_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(table),
			Key:                       key,
			UpdateExpression:          aws.String("SET #a = :v"),
			ExpressionAttributeNames:  map[string]string{"#a": ""},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
		})
		wantAPIError(t, err, "ValidationException", "1 validation error detected: ExpressionAttributeNames contains invalid value: Empty attribute name for key #a")
		_, err = c.Query(bg, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("#p = :v"),
			ExpressionAttributeNames:  map[string]string{"#p": "pk", "#DE": ""},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("x")},
		})
		wantAPIError(t, err, "ValidationException", "ExpressionAttributeNames contains invalid value: Empty attribute name for key #DE")
	})
}

// Placeholders are at most 255 bytes with their sigil, checked before
// their syntax; the texts as us-east-1 answers them (captured by an
// emulator's dual-target tests, 2026-06), bare on GetItem and Scan.
func TestPlaceholderKeyLength(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	key := map[string]types.AttributeValue{"pk": S("k1")}
	get := func(names map[string]string) error {
		_, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key,
			ProjectionExpression: aws.String("#a"), ExpressionAttributeNames: names})
		return err
	}
	wantAPIError(t, get(map[string]string{"#" + strings.Repeat("a", 255): "foo"}), "ValidationException",
		"ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256")
	wantAPIError(t, get(map[string]string{"#" + strings.Repeat("a", 255) + "-x": "foo"}), "ValidationException",
		"ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 258")
	if err := get(map[string]string{"#a": "foo", "#" + strings.Repeat("b", 254): "bar"}); err == nil ||
		!strings.Contains(err.Error(), "unused in expressions") {
		t.Fatalf("255 bytes is a valid key: %v", err)
	}
	_, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("foo = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":" + strings.Repeat("a", 255): S("x")}})
	wantAPIError(t, err, "ValidationException",
		"ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
}

// The legacy parameters refuse an attribute name of 65,536 bytes as items
// and expressions do (ScyllaDB's Alternator tests, which are run against
// DynamoDB: GetItem's AttributesToGet).
func TestLegacyParameterNameLength(t *testing.T) {
	table := createTable(t, ddb(), "pk", "", "")
	long := strings.Repeat("n", 65536)
	const tooLarge = "Attribute name is too large, must be less than 65536 bytes"
	cond := `{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"x"}]}`
	tn := `"TableName":"` + table + `",`
	for _, c := range []struct{ op, body, want string }{
		{"GetItem", `{` + tn + `"Key":{"pk":{"S":"k"}},"AttributesToGet":["` + long + `"]}`, tooLarge},
		{"Scan", `{` + tn + `"AttributesToGet":["` + long + `"]}`, tooLarge},
		{"Scan", `{` + tn + `"ScanFilter":{"` + long + `":` + cond + `}}`, tooLarge},
		{"PutItem", `{` + tn + `"Item":{"pk":{"S":"k"}},"Expected":{"` + long + `":{"Exists":false}}}`, "1 validation error detected: " + tooLarge},
		{"UpdateItem", `{` + tn + `"Key":{"pk":{"S":"k"}},"AttributeUpdates":{"` + long + `":{"Action":"PUT","Value":{"S":"x"}}}}`, "1 validation error detected: " + tooLarge},
	} {
		typ, msg := rawCall(t, shared, c.op, c.body)
		if typ != "ValidationException" || msg != c.want {
			t.Errorf("%s %.80s\n got %s: %q\nwant %q", c.op, c.body, typ, msg, c.want)
		}
	}
}
