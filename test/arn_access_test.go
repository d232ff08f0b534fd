package test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestARNAccessAnswers: which ARN gets which answer (engine/arn_access.go
// names the evidence). Another account's ARN is refused by authorization,
// AccessDeniedException in IAM's cross-account words, by every operation
// whose member is an ARN; ListTagsOfResource of this account's ARN of no
// table is AccessDeniedException too, TagResource of it
// ResourceNotFoundException.
func TestARNAccessAnswers(t *testing.T) {
	c := ddb()
	const other = "111122223333"
	denied := func(action, arn string) string {
		return "User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:" + action + " on resource: " + arn +
			" because no resource-based policy allows the dynamodb:" + action + " action"
	}
	name := createTable(t, c, "pk", "", "")
	foreign := "arn:aws:dynamodb:us-east-1:" + other + ":table/" + name
	tags := []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}

	_, err := c.ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(foreign)})
	wantAPIError(t, err, "AccessDeniedException", denied("ListTagsOfResource", foreign))
	_, err = c.TagResource(bg, &dynamodb.TagResourceInput{ResourceArn: aws.String(foreign), Tags: tags})
	wantAPIError(t, err, "AccessDeniedException", denied("TagResource", foreign))
	_, err = c.UntagResource(bg, &dynamodb.UntagResourceInput{ResourceArn: aws.String(foreign), TagKeys: []string{"k"}})
	wantAPIError(t, err, "AccessDeniedException", denied("UntagResource", foreign))
	// Validation comes first: a bad tag of another account's ARN is a
	// ValidationException.
	_, err = c.TagResource(bg, &dynamodb.TagResourceInput{ResourceArn: aws.String(foreign), Tags: []types.Tag{{Key: aws.String("aws:x"), Value: aws.String("v")}}})
	wantAPIError(t, err, "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:x")

	_, err = c.GetResourcePolicy(bg, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(foreign)})
	wantAPIError(t, err, "AccessDeniedException", denied("GetResourcePolicy", foreign))
	_, err = c.DeleteResourcePolicy(bg, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(foreign)})
	wantAPIError(t, err, "AccessDeniedException", denied("DeleteResourcePolicy", foreign))

	backup := foreign + "/backup/01700000000000-abcdef12"
	_, err = c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(backup)})
	wantAPIError(t, err, "AccessDeniedException", denied("DescribeBackup", backup))
	_, err = c.DeleteBackup(bg, &dynamodb.DeleteBackupInput{BackupArn: aws.String(backup)})
	wantAPIError(t, err, "AccessDeniedException", denied("DeleteBackup", backup))
	_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(backup), TargetTableName: aws.String(name + "_r")})
	wantAPIError(t, err, "AccessDeniedException", denied("RestoreTableFromBackup", backup))

	export := foreign + "/export/01700000000000-abcdef12"
	_, err = c.DescribeExport(bg, &dynamodb.DescribeExportInput{ExportArn: aws.String(export)})
	wantAPIError(t, err, "AccessDeniedException", denied("DescribeExport", export))
	imp := foreign + "/import/01700000000000-abcdef12"
	_, err = c.DescribeImport(bg, &dynamodb.DescribeImportInput{ImportArn: aws.String(imp)})
	wantAPIError(t, err, "AccessDeniedException", denied("DescribeImport", imp))

	stream := foreign + "/stream/2026-01-01T00:00:00.000"
	sc := shared.streamsClient()
	_, err = sc.DescribeStream(bg, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(stream)})
	wantAPIError(t, err, "AccessDeniedException", denied("DescribeStream", stream))
	_, err = sc.GetShardIterator(bg, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(stream),
		ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: st.ShardIteratorTypeLatest})
	wantAPIError(t, err, "AccessDeniedException", denied("GetShardIterator", stream))

	// On the wire: the coral service namespace, the text under "Message"
	// (dynalite's DynamoDB-verified helpers read body.Message).
	status, raw := rawPost(t, shared.endpoint, "ListTagsOfResource", strings.NewReader(`{"ResourceArn":"`+foreign+`"}`))
	if want := `{"__type":"com.amazon.coral.service#AccessDeniedException","Message":"` + denied("ListTagsOfResource", foreign) + `"}`; status != 400 || string(raw) != want {
		t.Errorf("raw answer: %d %s\nwant 400 %s", status, raw, want)
	}

	// This account's ARN of no table.
	missing := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name + "x"
	_, err = c.ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(missing)})
	wantAPIError(t, err, "AccessDeniedException", "User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:ListTagsOfResource on resource: "+missing)
	_, err = c.TagResource(bg, &dynamodb.TagResourceInput{ResourceArn: aws.String(missing), Tags: tags})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: ResourceArn: "+missing+" not found")
	_, err = c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(missing + "/backup/01700000000000-abcdef12")})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+missing+"/backup/01700000000000-abcdef12")
}
