package test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDynamoDBLocalDifferences pins the answers docs/troubleshooting.md
// lists for users switching from DynamoDB Local, where Kura answers as
// DynamoDB does and DynamoDB Local is lenient or words it its own way.
func TestDynamoDBLocalDifferences(t *testing.T) {
	c := ddb()
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	ks := func(names ...string) []types.KeySchemaElement {
		out := []types.KeySchemaElement{{AttributeName: aws.String(names[0]), KeyType: types.KeyTypeHash}}
		if len(names) > 1 {
			out = append(out, types.KeySchemaElement{AttributeName: aws.String(names[1]), KeyType: types.KeyTypeRange})
		}
		return out
	}
	// An AttributeDefinition no key uses, in a table with an LSI: DynamoDB
	// refuses the table (DynamoDB Local creates it).
	name := uniqueTable("ddblocal")
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{s("pk"), s("sk"), s("lsk"), s("extra")}, KeySchema: ks("pk", "sk"),
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: ks("pk", "lsk"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Some AttributeDefinitions are not used. "+
		"AttributeDefinitions: [pk, sk, lsk, extra], keys used: [pk, sk, lsk]")
	// Without indexes the same mistake has DynamoDB's other text.
	_, err = c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{s("pk"), s("extra")}, KeySchema: ks("pk")})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Number of attributes in KeySchema "+
		"does not exactly match number of attributes defined in AttributeDefinitions")

	// A failed ConditionCheck's reason: DynamoDB's text has no trailing
	// period (DynamoDB Local's has one).
	table := createTable(t, c, "pk", "", "")
	_, err = c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("none")},
			ConditionExpression: aws.String("attribute_exists(pk)")}}}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 1 {
		t.Fatalf("want a TransactionCanceledException with one reason, got %v", err)
	}
	if r := tce.CancellationReasons[0]; aws.ToString(r.Code) != "ConditionalCheckFailed" || aws.ToString(r.Message) != "The conditional request failed" {
		t.Fatalf("reason: %s %q", aws.ToString(r.Code), aws.ToString(r.Message))
	}
}
