package policies

import (
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr/ddberrtest"
	"github.com/kura-db/kura/internal/engine/arns"
	"github.com/kura-db/kura/internal/engine/metatest"
	"github.com/kura-db/kura/internal/wire"
)

var scope = arns.Scope{Region: "us-east-1", AccountID: "000000000000"}

// core is a Core over tables in memory.
type core struct{ *metatest.Catalog[Table] }

func (c core) PolicyTable(name string) (Table, bool) { return c.Table(name) }

func (c core) SetPolicies(name string, s Set) error {
	c.Change(name, func(t *Table) { t.Policies = s })
	return nil
}

const tbl = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"

func doc(resource string) string {
	action := "dynamodb:GetItem"
	if len(resource) > len(tbl) && resource[len(tbl):len(tbl)+8] == "/stream/" {
		action = "dynamodb:GetRecords" // a stream's policy names stream actions only
	}
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:root"},"Action":"` + action + `","Resource":"` + resource + `"}]}`
}

// TestPolicyAPIs: a table's and its stream's policies are attached,
// read, replaced and deleted through the Core, with their revisions; the
// answers for another account, no table and a stream that is not the
// table's current one; Lookup finds what GetResourcePolicy answers.
func TestPolicyAPIs(t *testing.T) {
	stream := tbl + "/stream/2024-01-01T00:00:00.000"
	c := core{metatest.New(time.UnixMilli(1000), map[string]Table{
		"tbl":  {Name: "tbl", Status: "ACTIVE", StreamARN: stream},
		"gone": {Name: "gone", Status: "DELETING"},
	})}
	put, err := PutResourcePolicy(c, scope, &wire.PutResourcePolicyInput{ResourceArn: wire.Ptr(tbl), Policy: wire.Ptr(doc(tbl))})
	if err != nil || *put.RevisionId != "1000" {
		t.Fatalf("put: %v %v", put, err)
	}
	again, err := PutResourcePolicy(c, scope, &wire.PutResourcePolicyInput{ResourceArn: wire.Ptr(tbl), Policy: wire.Ptr(doc(tbl))})
	if err != nil || *again.RevisionId != "1000" {
		t.Fatalf("the same document again keeps its revision: %v %v", again, err)
	}
	_, err = PutResourcePolicy(c, scope, &wire.PutResourcePolicyInput{ResourceArn: wire.Ptr(tbl), Policy: wire.Ptr(doc(tbl + "/index/*")), ExpectedRevisionId: wire.Ptr("999")})
	ddberrtest.Want(t, "a stale revision", err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id 999, but the policy associated to target table tbl has revision id 1000.")
	next, err := PutResourcePolicy(c, scope, &wire.PutResourcePolicyInput{ResourceArn: wire.Ptr(tbl), Policy: wire.Ptr(doc(tbl + "/index/*")), ExpectedRevisionId: wire.Ptr("1000")})
	if err != nil || *next.RevisionId != "1001" { // the clock stood still: still later
		t.Fatalf("replace: %v %v", next, err)
	}
	if _, err := PutResourcePolicy(c, scope, &wire.PutResourcePolicyInput{ResourceArn: wire.Ptr(stream), Policy: wire.Ptr(doc(stream))}); err != nil {
		t.Fatalf("the stream's: %v", err)
	}
	if got, ok := Lookup(c, scope, stream); !ok || got != doc(stream) {
		t.Fatalf("Lookup(stream) = %q %v", got, ok)
	}
	got, err := GetResourcePolicy(c, scope, &wire.GetResourcePolicyInput{ResourceArn: wire.Ptr(tbl)})
	if err != nil || *got.Policy != doc(tbl+"/index/*") || *got.RevisionId != "1001" {
		t.Fatalf("get: %v %v", got, err)
	}
	del, err := DeleteResourcePolicy(c, scope, &wire.DeleteResourcePolicyInput{ResourceArn: wire.Ptr(tbl)})
	if err != nil || *del.RevisionId != "1001" || len(c.Tables["tbl"].Policies) != 1 {
		t.Fatalf("delete: %v %v, left %v", del, err, c.Tables["tbl"].Policies)
	}
	if del, err := DeleteResourcePolicy(c, scope, &wire.DeleteResourcePolicyInput{ResourceArn: wire.Ptr(tbl)}); err != nil || del.RevisionId != nil {
		t.Fatalf("deleting none: %v %v", del, err)
	}
	_, err = GetResourcePolicy(c, scope, &wire.GetResourcePolicyInput{ResourceArn: wire.Ptr(tbl)})
	ddberrtest.Want(t, "none", err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+tbl)
	other := "arn:aws:dynamodb:us-east-1:111111111111:table/tbl"
	_, err = GetResourcePolicy(c, scope, &wire.GetResourcePolicyInput{ResourceArn: wire.Ptr(other)})
	ddberrtest.Want(t, "another account", err, "AccessDeniedException", "User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:GetResourcePolicy on resource: "+other+" because no resource-based policy allows the dynamodb:GetResourcePolicy action")
	_, err = GetResourcePolicy(c, scope, &wire.GetResourcePolicyInput{ResourceArn: wire.Ptr("arn:aws:dynamodb:us-east-1:000000000000:table/gone")})
	ddberrtest.Want(t, "a DELETING table", err, "ResourceNotFoundException", "Requested resource not found: Table: gone not found")
	_, err = GetResourcePolicy(c, scope, &wire.GetResourcePolicyInput{ResourceArn: wire.Ptr(tbl + "/stream/x")})
	ddberrtest.Want(t, "another stream", err, "ResourceNotFoundException", "Requested resource not found: ResourceArn: "+tbl+"/stream/x not found")
	if _, ok := Lookup(c, scope, tbl); ok {
		t.Fatal("Lookup found a deleted policy")
	}
}
