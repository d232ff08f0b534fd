package embed_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/kura-db/kura/pkg/embed"
)

func TestEmbeddedServersAreIsolatedAndDurable(t *testing.T) {
	ctx := context.Background()
	create := func(c *dynamodb.Client) {
		t.Helper()
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String("things"),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := embed.Start(t), embed.Start(t)
	create(a.Client)
	create(b.Client) // same name, separate database: no ResourceInUseException

	dir := t.TempDir()
	k, err := embed.New(embed.WithDataDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	create(k.Client)
	if _, err := k.Client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("things"),
		Item:      map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "1"}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	k2 := embed.Start(t, embed.WithDataDir(dir))
	out, err := k2.Client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("things"),
		Key:       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "1"}},
	})
	if err != nil || out.Item == nil {
		t.Fatalf("item lost across restart: %v %v", out, err)
	}
}
