package test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB refuses a condition with more than 300 operators (comparators,
// BETWEEN, IN, AND, OR, NOT) and names the count at which it stopped; it
// accepts deep nesting within that budget (a suite run against DynamoDB:
// 149 levels, 299 operators, accepted; 454 levels refused at 301).
func TestExpressionOperatorLimit(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	vals := map[string]types.AttributeValue{":v": N("1")}

	_, err := c.Scan(bg, &dynamodb.ScanInput{
		TableName:                 aws.String(table),
		FilterExpression:          aws.String(strings.Repeat("n = :v OR ", 150) + "n = :v"),
		ExpressionAttributeValues: vals,
	})
	wantAPIError(t, err, "ValidationException", "Invalid FilterExpression: The expression contains too many operators; operator count: 301")

	key := map[string]types.AttributeValue{"pk": S("a")}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
		Item: map[string]types.AttributeValue{"pk": S("a"), "a": N("1"), "b": N("2")}}); err != nil {
		t.Fatal(err)
	}
	nested := func(depth int) string {
		return "a<b " + strings.Repeat("or (a<b ", depth) + strings.Repeat(")", depth)
	}
	update := func(cond string) error {
		_, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{
			TableName: aws.String(table), Key: key,
			UpdateExpression:          aws.String("SET z = :v"),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeValues: vals,
		})
		return err
	}
	if err := update(nested(149)); err != nil {
		t.Fatalf("149 levels, 299 operators: %v", err)
	}
	wantAPIError(t, update(nested(454)), "ValidationException",
		"1 validation error detected: Invalid ConditionExpression: The expression contains too many operators; operator count: 301")
}

// Only strings, numbers and binaries are ordered: a comparison or BETWEEN
// with a value of another type is refused before evaluation, whatever the
// item (an emulator's pull request measured against DynamoDB, 2026-07);
// it matched nothing.
func TestOrderingOperandTypes(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	yes := &types.AttributeValueMemberBOOL{Value: true}
	_, err := c.Scan(bg, &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("n < :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": yes}})
	wantAPIError(t, err, "ValidationException", "Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL")
	_, err = c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S("a")},
		ConditionExpression:       aws.String("n BETWEEN :a AND :b"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":a": yes, ":b": yes}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL")
}
