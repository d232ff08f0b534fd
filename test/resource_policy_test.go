package test

import (
	"strings"
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

func policyDoc(actions ...string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"000000000000"},"Action":["` +
		strings.Join(actions, `","`) + `"],"Resource":"*"}]}`
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
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Invalid policy document: This policy contains invalid Json")

	// The stream's policy is its own.
	if _, err := get(streamARN); err == nil {
		t.Fatal("the stream has the table's policy")
	}
	if _, err := c.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(streamARN),
		Policy: aws.String(policyDoc("dynamodb:GetRecords")), ExpectedRevisionId: aws.String("NO_POLICY")}); err != nil {
		t.Fatal(err)
	}
	// ... and takes only the stream's actions (ListStreams takes no
	// resource), on the stream's ARN.
	_, err = c.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(streamARN), Policy: aws.String(policyDoc("dynamodb:GetItem", "dynamodb:ListStreams"))})
	wantAPIError(t, err, "ValidationException", `One or more parameter values were invalid: Invalid policy document: The following action names are invalid: "dynamodb:GetItem", "dynamodb:ListStreams"`)
	_, err = c.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(streamARN),
		Policy: aws.String(strings.Replace(policyDoc("dynamodb:GetRecords"), `"Resource":"*"`, `"Resource":"`+arn+`"`, 1))})
	wantAPIError(t, err, "ValidationException", `One or more parameter values were invalid: Invalid policy document: The relative-id "table/`+name+`" is invalid for ARN "`+arn+`"`)

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

// PutResourcePolicy and CreateTable's ResourcePolicy refuse a document
// that is not a resource-based policy DynamoDB takes, in DynamoDB's words
// (internal/iam/resource_check.go names the evidence), with or without
// --iam-file; a stream's policy takes only the stream's actions.
func TestResourcePolicyGrammar(t *testing.T) {
	c := shared.client()
	name := createTable(t, c, "pk", "", "")
	arn := tableARN(name)
	const prefix = "One or more parameter values were invalid: Invalid policy document: "
	stmt := func(fields string) string { return `{"Version":"2012-10-17","Statement":[{` + fields + `}]}` }
	who := `"Principal":{"AWS":"arn:aws:iam::000000000000:user/alice"}`
	for _, tc := range []struct{ doc, msg string }{
		{"{not json", prefix + "This policy contains invalid Json"},
		{"", prefix + "This policy contains invalid Json"},
		{"[]", prefix + "This policy contains invalid Json"},
		{"null", prefix + "This text appears not to be a policy"},
		{"{}", prefix + "Syntax error at position (1,3)"},
		{`{"Version":"2012-10-17","Statement":[]}`, prefix + "Could not parse the policy: Statement is empty!"},
		{`{"Version":"2012-10-17","Statement":[{}]}`, prefix + "Missing required field Effect"},
		{stmt(`"Effect":"Allow",` + who + `,"Action":"dynamodb:GetItem"`), prefix + "Missing required field Resource"},
		{stmt(`"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"`), prefix + "Missing required field Principal"},
		{`{"Version":"2012-10-17","Statement":[{"Sid":"A","Effect":"Allow",` + who + `,"Action":"dynamodb:GetItem","Resource":"*"},` +
			`{"Sid":"A","Effect":"Deny",` + who + `,"Action":"dynamodb:PutItem","Resource":"*"}]}`, prefix + "The Statement Ids in the policy are not unique"},
		{stmt(`"Effect":"Allow",` + who + `,"Action":["dynamodb:GetRecords","dynamodb:GetItem","dynamodb:DescribeStream","dynamodb:GetRecords","dynamodb:Nope","s3:GetObject"],"Resource":"*"`),
			prefix + `The following action names are invalid: "dynamodb:GetRecords", "dynamodb:DescribeStream", "dynamodb:Nope", "s3:GetObject"`},
		{stmt(`"Effect":"Allow",` + who + `,"Action":"dynamodb:GetItem","Resource":"` + arn + `/stream/2026-01-01T00:00:00.000"`),
			prefix + `The relative-id "table/` + name + `/stream/2026-01-01T00:00:00.000" is invalid for ARN "` + arn + `/stream/2026-01-01T00:00:00.000"`},
		{stmt(`"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"`),
			"Resource-based policy grants unbounded access in one or more elements. Please revise the policy to ensure least-privilege form of access"},
		{stmt(`"Effect":"Allow","Principal":{"AWS":"*"},"Action":"dynamodb:GetItem","Resource":"*"`),
			"Resource-based policy grants unbounded access in one or more elements. Please revise the policy to ensure least-privilege form of access"},
		{stmt(`"Effect":"Maybe",` + who + `,"Action":"dynamodb:GetItem","Resource":"*"`), prefix + `statement 1: Effect: Effect "Maybe" is neither Allow nor Deny`},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",` + who + `,"Action":"dynamodb:GetItem","Resource":"*"}]}` + strings.Repeat(" ", 20480),
			"One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded"},
	} {
		_, err := c.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(tc.doc)})
		wantAPIError(t, err, "ValidationException", tc.msg)
	}
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(uniqueTable("badpolicy")), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		ResourcePolicy:       aws.String(stmt(`"Effect":"Allow",` + who + `,"Action":"dynamodb:GetShardIterator","Resource":"*"`))})
	wantAPIError(t, err, "ValidationException", prefix+`The following action names are invalid: "dynamodb:GetShardIterator"`)

	// Accepted: wildcards that name some of the table's actions, a Deny to
	// everyone, an Allow to everyone under a condition, another table's
	// ARN, an index's.
	for _, doc := range []string{
		stmt(`"Effect":"Allow",` + who + `,"Action":["dynamodb:Get*","dynamodb:*","*"],"Resource":"*"`),
		stmt(`"Effect":"Deny","Principal":"*","Action":"dynamodb:DeleteTable","Resource":"*"`),
		stmt(`"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*","Condition":{"StringEquals":{"aws:PrincipalAccount":"000000000000"}}`),
		stmt(`"Effect":"Allow",` + who + `,"Action":"dynamodb:Query","Resource":["arn:aws:dynamodb:us-east-1:000000000000:table/Other","` + arn + `/index/*"]`),
	} {
		if _, err := c.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(doc)}); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
