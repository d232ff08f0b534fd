package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// With --iam-file the refusals of another account's ARN, and of
// ListTagsOfResource of no table, name the signing principal (the user,
// the assumed-role session) as DynamoDB does, not the account's root
// user; a principal whose own policies do not allow the action is refused
// for that first (IAM evaluates the identity-based policies of a
// cross-account request before the resource's).
func TestIAMForeignARN(t *testing.T) {
	k, _ := startIAMKura(t)
	root := clientAs(k, "AKIDROOT", "root-secret")
	name := createTable(t, root, "pk", "", "")
	foreign := "arn:aws:dynamodb:us-east-1:111122223333:table/" + name
	noResourcePolicy := "because no resource-based policy allows the dynamodb:ListTagsOfResource action"

	_, err := clientAs(k, "AKIDBOB", "s").ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(foreign)})
	wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "bob"), "ListTagsOfResource", foreign, noResourcePolicy))
	_, err = clientAs(k, "AKIDCAROL", "s").ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(foreign)})
	wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "carol"), "ListTagsOfResource", foreign, noResourcePolicy))
	_, err = clientAs(k, "AKIDNOBODY", "s").ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(foreign)})
	wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "nobody"), "ListTagsOfResource", foreign, noIdentityPolicy("ListTagsOfResource")))
	session := "arn:aws:sts::" + iamAccount + ":assumed-role/app/AKIDAPP"
	_, err = clientAs(k, "AKIDAPP", "s").ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(foreign)})
	wantAPIError(t, err, "AccessDeniedException", denied(session, "ListTagsOfResource", foreign, noResourcePolicy))
	// The root user of this account is named as before.
	_, err = root.ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(foreign)})
	wantAPIError(t, err, "AccessDeniedException", denied("arn:aws:iam::"+iamAccount+":root", "ListTagsOfResource", foreign, noResourcePolicy))

	// This account's ARN of no table: the refusal without a reason.
	missing := tableARN(name + "x")
	_, err = clientAs(k, "AKIDBOB", "s").ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(missing)})
	wantAPIError(t, err, "AccessDeniedException", "User: "+iamARN("user", "bob")+" is not authorized to perform: dynamodb:ListTagsOfResource on resource: "+missing)
}

// The rest of the decision table through the Go SDK: dynamodb:Attributes
// (with Null), a condition with IfExists, NotResource.
func TestIAMFineGrained(t *testing.T) {
	k, _ := startIAMKura(t)
	root := clientAs(k, "AKIDROOT", "root-secret")
	for _, name := range []string{"Notes", "Shared"} {
		if _, err := root.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("owner"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}}}); err != nil {
			t.Fatal(err)
		}
	}
	frank, frankARN, notes := clientAs(k, "AKIDFRANK", "s"), iamARN("user", "frank"), tableARN("Notes")
	key := map[string]types.AttributeValue{"owner": S("x")}
	get := func(projection string) error {
		in := &dynamodb.GetItemInput{TableName: aws.String("Notes"), Key: key}
		if projection != "" {
			in.ProjectionExpression = aws.String(projection)
			in.ExpressionAttributeNames = map[string]string{"#o": "owner", "#t": "text"}
		}
		_, err := frank.GetItem(bg, in)
		return err
	}
	if err := get("#o, #t"); err != nil {
		t.Fatalf("the two attributes: %v", err)
	}
	wantAPIError(t, get("#o, secret"), "AccessDeniedException", denied(frankARN, "GetItem", notes, noIdentityPolicy("GetItem")))
	wantAPIError(t, get(""), "AccessDeniedException", denied(frankARN, "GetItem", notes, noIdentityPolicy("GetItem")))

	query := func(sel types.Select) error {
		_, err := frank.Query(bg, &dynamodb.QueryInput{TableName: aws.String("Notes"), Select: sel, KeyConditionExpression: aws.String("#o = :o"),
			ExpressionAttributeNames: map[string]string{"#o": "owner"}, ExpressionAttributeValues: map[string]types.AttributeValue{":o": S("x")}})
		return err
	}
	if err := query(""); err != nil {
		t.Fatalf("no Select (IfExists): %v", err)
	}
	if err := query(types.SelectCount); err != nil {
		t.Fatalf("Select COUNT: %v", err)
	}
	wantAPIError(t, query(types.SelectAllAttributes), "AccessDeniedException", denied(frankARN, "Query", notes, noIdentityPolicy("Query")))

	if _, err := frank.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Shared")}); err != nil {
		t.Fatalf("NotResource allows another table: %v", err)
	}
	_, err := frank.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Notes")})
	wantAPIError(t, err, "AccessDeniedException", denied(frankARN, "DescribeTable", notes, noIdentityPolicy("DescribeTable")))
}
