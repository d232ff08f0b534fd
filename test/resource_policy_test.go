package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Resource-based policies through the Go SDK, as DynamoDB answers them
// (the behaviours and texts of moto's tests that are run against
// DynamoDB): revisions that change with the document, conditional updates
// and deletes, a table's and its stream's policies apart, CreateTable's
// ResourcePolicy, and the policies kept across a restart.

const msgNoPolicy = "Resource-based policy not found for the provided ResourceArn: "

func policyDoc(action string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"000000000000"},"Action":["` +
		action + `"],"Resource":"*"}]}`
}

func TestResourcePolicies(t *testing.T) {
	dir := t.TempDir()
	k := startKura(t, "--data-dir", dir)
	c := k.client()
	name, streamARN := createStreamTable(t, c, types.StreamViewTypeKeysOnly)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
	put := func(doc string, expected *string) (string, error) {
		out, err := c.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(doc), ExpectedRevisionId: expected})
		if err != nil {
			return "", err
		}
		return aws.ToString(out.RevisionId), nil
	}
	get := func(resource string) (*dynamodb.GetResourcePolicyOutput, error) {
		return c.GetResourcePolicy(bg, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(resource)})
	}

	_, err := get(arn)
	wantAPIError(t, err, "PolicyNotFoundException", msgNoPolicy+arn)

	rev1, err := put(policyDoc("dynamodb:*"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := get(arn); err != nil || aws.ToString(got.Policy) != policyDoc("dynamodb:*") || aws.ToString(got.RevisionId) != rev1 {
		t.Fatalf("GetResourcePolicy: %+v %v", got, err)
	}
	// The same document again changes nothing; another is a new, later revision.
	if again, err := put(policyDoc("dynamodb:*"), nil); err != nil || again != rev1 {
		t.Fatalf("same policy again: revision %q (was %q) %v", again, rev1, err)
	}
	rev2, err := put(policyDoc("dynamodb:PutItem"), aws.String(rev1))
	if err != nil || rev2 <= rev1 {
		t.Fatalf("second revision %q after %q: %v", rev2, rev1, err)
	}
	_, err = put(policyDoc("dynamodb:GetItem"), aws.String(rev1))
	wantAPIError(t, err, "PolicyNotFoundException", msgNoPolicy+"Requested update for policy with revision id "+rev1+
		", but the policy associated to target table "+name+" has revision id "+rev2+".")
	_, err = put(policyDoc("dynamodb:GetItem"), aws.String("NO_POLICY"))
	wantAPIError(t, err, "PolicyNotFoundException", msgNoPolicy+"Requested policy update expecting none to be present for table "+
		name+", but a policy exists with revision id "+rev2+".")

	// Unknown tables, in the control plane's words.
	_, err = c.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn + "_"), Policy: aws.String(policyDoc("dynamodb:*"))})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+"_ not found")
	_, err = get(arn + "unknown")
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+"unknown not found")
	_, err = put("{not json", nil)
	wantAPIError(t, err, "ValidationException", "Resource-based policy document is not a valid JSON object")

	// The stream's policy is its own.
	if _, err := get(streamARN); err == nil {
		t.Fatal("the stream has the table's policy")
	}
	if _, err := c.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(streamARN),
		Policy: aws.String(policyDoc("dynamodb:GetRecords")), ExpectedRevisionId: aws.String("NO_POLICY")}); err != nil {
		t.Fatal(err)
	}

	// Deleting: conditionally, then again (a no-op without a revision).
	_, err = c.DeleteResourcePolicy(bg, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn), ExpectedRevisionId: aws.String("unknown")})
	wantAPIError(t, err, "PolicyNotFoundException", msgNoPolicy+"Requested update for policy with revision id unknown, but the policy associated to target table "+
		name+" has revision id "+rev2+".")
	del, err := c.DeleteResourcePolicy(bg, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn), ExpectedRevisionId: aws.String(rev2)})
	if err != nil || aws.ToString(del.RevisionId) != rev2 {
		t.Fatalf("DeleteResourcePolicy: %+v %v", del, err)
	}
	_, err = get(arn)
	wantAPIError(t, err, "PolicyNotFoundException", msgNoPolicy+arn)
	if del, err := c.DeleteResourcePolicy(bg, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn)}); err != nil || del.RevisionId != nil {
		t.Fatalf("deleting no policy: %+v %v", del, err)
	}

	// CreateTable's ResourcePolicy, and both policies after a restart.
	created := uniqueTable("policy")
	if _, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName: aws.String(created), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		ResourcePolicy:       aws.String(policyDoc("dynamodb:Query")),
	}); err != nil {
		t.Fatal(err)
	}
	k.stop()
	c = startKura(t, "--data-dir", dir).client()
	for resource, doc := range map[string]string{
		streamARN: policyDoc("dynamodb:GetRecords"),
		"arn:aws:dynamodb:us-east-1:000000000000:table/" + created: policyDoc("dynamodb:Query"),
	} {
		got, err := c.GetResourcePolicy(bg, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(resource)})
		if err != nil || aws.ToString(got.Policy) != doc {
			t.Fatalf("after a restart, %s: %+v %v", resource, got, err)
		}
	}
}
