package test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
