package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/wire"
)

// TestCtlSSEKeys: the AWS managed key is one key ARN per account and
// region whichever way it is asked for, and naming the key a table is
// already encrypted with is refused (live DynamoDB probes, October 2026).
func TestCtlSSEKeys(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	create := func(name string, s *wire.SSESpecification) string {
		t.Helper()
		in := ctlPPR(name)
		in.SSESpecification = s
		out, err := e.CreateTable(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return cpDeref(out.TableDescription.SSEDescription.KMSMasterKeyArn)
	}
	a := create("a", &wire.SSESpecification{Enabled: cpPtr(true)})
	b := create("b", &wire.SSESpecification{SSEType: "KMS"})
	c := create("c", &wire.SSESpecification{Enabled: cpPtr(true), SSEType: "KMS", KMSMasterKeyId: cpPtr("alias/aws/dynamodb")})
	if a != b || a != c || !strings.HasPrefix(a, "arn:aws:kms:us-east-1:000000000000:key/") || strings.Contains(a, "alias") {
		t.Fatalf("managed key ARNs %q %q %q: want one key ARN", a, b, c)
	}
	up, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("a"), SSESpecification: &wire.SSESpecification{Enabled: cpPtr(true)}})
	if err != nil || cpDeref(up.TableDescription.SSEDescription.KMSMasterKeyArn) != a {
		t.Fatalf("re-enabling: %v %+v", err, up)
	}
	_, err = e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("a"),
		SSESpecification: &wire.SSESpecification{Enabled: cpPtr(true), SSEType: "KMS", KMSMasterKeyId: cpPtr(a)}})
	ctlWantErr(t, err, "ValidationException", ctlIP+"Table is already encrypted with given KMSMasterKeyId. Use KMSMasterKeyId parameter if you want to change Master Key")
}

// TestCtlSSEDisable: going back to the AWS owned key answers with the KMS
// description UPDATING (LocalStack's snapshot of DynamoDB, validated
// 2024-01-10); the table then describes no SSEDescription.
func TestCtlSSEDisable(t *testing.T) {
	ctx := context.Background()
	e := ctlOpen(t, Config{})
	in := ctlPPR("enc")
	in.SSESpecification = &wire.SSESpecification{Enabled: cpPtr(true)}
	created, err := e.CreateTable(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	key := cpDeref(created.TableDescription.SSEDescription.KMSMasterKeyArn)
	up, err := e.UpdateTable(ctx, &wire.UpdateTableInput{TableName: cpPtr("enc"), SSESpecification: &wire.SSESpecification{Enabled: cpPtr(false)}})
	if err != nil {
		t.Fatal(err)
	}
	if d := up.TableDescription.SSEDescription; d == nil || d.Status != "UPDATING" || d.SSEType != "KMS" || cpDeref(d.KMSMasterKeyArn) != key {
		t.Fatalf("UpdateTable SSEDescription %+v, want the KMS key UPDATING", d)
	}
	desc, err := e.DescribeTable(ctx, &wire.DescribeTableInput{TableName: cpPtr("enc")})
	if err != nil || desc.Table.SSEDescription != nil {
		t.Fatalf("DescribeTable: %v %+v", err, desc)
	}
}
