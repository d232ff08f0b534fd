package api

import (
	"context"
	"testing"

	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/wire"
)

// onlyOperations hides the engine's PolicyLookup.
type onlyOperations struct{ Backend }

// TestPolicyDocument: authorization finds the same policies through a
// Backend's PolicyLookup as through GetResourcePolicy.
func TestPolicyDocument(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(memory.New(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	key := []wire.KeySchemaElement{{AttributeName: ptrTo("pk"), KeyType: "HASH"}}
	defs := []wire.AttributeDefinition{{AttributeName: ptrTo("pk"), AttributeType: "S"}}
	for _, name := range []string{"tbl", "other"} {
		if _, err := eng.CreateTable(ctx, &wire.CreateTableInput{TableName: ptrTo(name), KeySchema: key, AttributeDefinitions: defs, BillingMode: "PAY_PER_REQUEST"}); err != nil {
			t.Fatal(err)
		}
	}
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:root"},"Action":"dynamodb:GetItem","Resource":"` + arn + `"}]}`
	if _, err := eng.PutResourcePolicy(ctx, &wire.PutResourcePolicyInput{ResourceArn: &arn, Policy: &doc}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Backend(onlyOperations{eng}).(PolicyLookup); ok {
		t.Fatal("onlyOperations offers the lookup")
	}
	for _, b := range []Backend{eng, onlyOperations{eng}} {
		if got, ok := policyDocument(ctx, b, arn); !ok || got != doc {
			t.Fatalf("%T, tbl: %q %v", b, got, ok)
		}
		if got, ok := policyDocument(ctx, b, "arn:aws:dynamodb:us-east-1:000000000000:table/other"); ok {
			t.Fatalf("%T, other: %q", b, got)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
