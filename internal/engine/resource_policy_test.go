package engine

import (
	"context"
	"testing"

	"github.com/kura-db/kura/internal/wire"
)

// TestResourcePolicyDocument: the authorizer's lookup finds what
// GetResourcePolicy answers, no more, and looking up a table with no
// policy builds no error (it splits the ARN once: that is all it
// allocates).
func TestResourcePolicyDocument(t *testing.T) {
	e, ctx := ctlOpen(t, Config{}), context.Background()
	for _, name := range []string{"tbl", "other"} {
		if _, err := e.CreateTable(ctx, ctlPPR(name)); err != nil {
			t.Fatal(err)
		}
	}
	const arn = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:root"},"Action":"dynamodb:GetItem","Resource":"` + arn + `"}]}`
	if _, err := e.PutResourcePolicy(ctx, &wire.PutResourcePolicyInput{ResourceArn: cpPtr(arn), Policy: cpPtr(doc)}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{
		arn,
		"arn:aws:dynamodb:us-east-1:000000000000:table/other", // no policy
		"arn:aws:dynamodb:us-east-1:000000000000:table/nope",  // no table
		"arn:aws:dynamodb:us-east-1:111111111111:table/tbl",   // another account
		"arn:aws:dynamodb:eu-west-1:000000000000:table/tbl",   // another region
		arn + "/stream/2024-01-01T00:00:00.000",               // no stream
		"table/tbl",
	} {
		out, err := e.GetResourcePolicy(ctx, &wire.GetResourcePolicyInput{ResourceArn: cpPtr(a)})
		got, ok := e.ResourcePolicyDocument(ctx, a)
		if (err == nil) != ok || ok && got != *out.Policy {
			t.Fatalf("%s: lookup %q %v, GetResourcePolicy %v %v", a, got, ok, out, err)
		}
	}
	if got, ok := e.ResourcePolicyDocument(ctx, arn); !ok || got != doc {
		t.Fatalf("the table's policy: %q %v", got, ok)
	}
	none := "arn:aws:dynamodb:us-east-1:000000000000:table/other"
	if n := testing.AllocsPerRun(100, func() { e.ResourcePolicyDocument(ctx, none) }); n > 1 {
		t.Fatalf("looking up no policy allocates %v times", n)
	}
}
