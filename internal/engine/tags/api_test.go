package tags

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
type core struct {
	*metatest.Catalog[Table]
	sets int
}

func (c *core) TagTable(name string) (Table, bool) { return c.Table(name) }

func (c *core) SetTags(name string, tags []wire.Tag) error {
	c.Change(name, func(t *Table) { t.Tags = tags })
	c.sets++
	return nil
}

const arn = "arn:aws:dynamodb:us-east-1:000000000000:table/"

// TestTagAPIs: tags are merged, removed and listed through the Core, in
// DynamoDB's order of refusals: the ARN, the tags, the account, then the
// table (not found while CREATING or DELETING; ListTagsOfResource of no
// table is unauthorized).
func TestTagAPIs(t *testing.T) {
	c := &core{Catalog: metatest.New(time.Time{}, map[string]Table{"tbl": {Status: "ACTIVE"}, "new": {Status: "CREATING"}})}
	if _, err := TagResource(c, scope, &wire.TagResourceInput{ResourceArn: wire.Ptr(arn + "tbl"), Tags: []wire.Tag{tag("a", "1"), tag("b", "2")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := UntagResource(c, scope, &wire.UntagResourceInput{ResourceArn: wire.Ptr(arn + "tbl"), TagKeys: []string{"a", "zz"}}); err != nil {
		t.Fatal(err)
	}
	out, err := ListTagsOfResource(c, scope, &wire.ListTagsOfResourceInput{ResourceArn: wire.Ptr(arn + "tbl")})
	if err != nil || len(out.Tags) != 1 || *out.Tags[0].Key != "b" || c.sets != 2 {
		t.Fatalf("tags after tag and untag: %v %v (%d stores)", out, err, c.sets)
	}
	other := "arn:aws:dynamodb:us-east-1:111111111111:table/tbl"
	_, err = TagResource(c, scope, &wire.TagResourceInput{ResourceArn: wire.Ptr("tbl")})
	ddberrtest.Want(t, "no ARN", err, "ValidationException", "One or more parameter values were invalid: ARNs must start with 'arn:': tbl")
	_, err = TagResource(c, scope, &wire.TagResourceInput{ResourceArn: wire.Ptr(other)})
	ddberrtest.Want(t, "no tags", err, "ValidationException", "Atleast one Tag needs to be provided as Input.")
	_, err = TagResource(c, scope, &wire.TagResourceInput{ResourceArn: wire.Ptr(other), Tags: []wire.Tag{tag("aws:x", "1")}})
	ddberrtest.Want(t, "bad tag before the account", err, "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:x")
	_, err = TagResource(c, scope, &wire.TagResourceInput{ResourceArn: wire.Ptr(other), Tags: []wire.Tag{tag("x", "1")}})
	ddberrtest.Want(t, "another account", err, "AccessDeniedException", "User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:TagResource on resource: "+other+" because no resource-based policy allows the dynamodb:TagResource action")
	_, err = UntagResource(c, scope, &wire.UntagResourceInput{ResourceArn: wire.Ptr(arn + "new"), TagKeys: []string{"x"}})
	ddberrtest.Want(t, "a CREATING table", err, "ResourceNotFoundException", "Requested resource not found: ResourceArn: "+arn+"new not found")
	_, err = TagResource(c, scope, &wire.TagResourceInput{ResourceArn: wire.Ptr(arn + "nope"), Tags: []wire.Tag{tag("x", "1")}})
	ddberrtest.Want(t, "no table", err, "ResourceNotFoundException", "Requested resource not found: ResourceArn: "+arn+"nope not found")
	_, err = ListTagsOfResource(c, scope, &wire.ListTagsOfResourceInput{ResourceArn: wire.Ptr(arn + "nope")})
	ddberrtest.Want(t, "listing no table", err, "AccessDeniedException", "User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:ListTagsOfResource on resource: "+arn+"nope")
	_, err = ListTagsOfResource(c, scope, &wire.ListTagsOfResourceInput{ResourceArn: wire.Ptr(arn + "new")})
	ddberrtest.Want(t, "listing a CREATING table", err, "ResourceNotFoundException", "Requested resource not found: ResourceArn: "+arn+"new not found")
	if c.sets != 2 {
		t.Fatalf("refused requests stored tags (%d stores)", c.sets)
	}
}
