package tags

import (
	"sync"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/arns"
	"github.com/kura-db/kura/internal/wire"
)

// Core is what the tag APIs need of the core: its tables and their
// records. (The region and account the server answers for come with each
// request, as an arns.Scope.)
type Core interface {
	// DDL is the control-plane lock: table records change holding it.
	DDL() sync.Locker
	// TagTable is the named table now, ok false when there is none.
	TagTable(name string) (t Table, ok bool)
	// SetTags stores the named table's tags in its record (the caller
	// holds DDL).
	SetTags(name string, tags []wire.Tag) error
}

// Table is a table as the tag APIs see it.
type Table struct {
	Status string // CREATING, ACTIVE, UPDATING or DELETING
	Tags   []wire.Tag
}

// found reports whether the tag APIs find a looked-up table: not while it
// is CREATING (DynamoDB does not find it, or the tags given to
// CreateTable, until it is ACTIVE) or DELETING.
func (t Table) found(ok bool) bool {
	return ok && t.Status != "CREATING" && t.Status != "DELETING"
}

// TagResource adds or overwrites tags of a table.
func TagResource(c Core, scope arns.Scope, in *wire.TagResourceInput) (*wire.TagResourceOutput, error) {
	arn := wire.Deref(in.ResourceArn)
	name, verr := scope.ParseTable(arn)
	if verr != nil {
		return nil, verr
	}
	if len(in.Tags) == 0 {
		return nil, ddberr.Validation("Atleast one Tag needs to be provided as Input.")
	}
	if verr := Check(in.Tags); verr != nil {
		return nil, verr
	}
	if len(in.Tags) > Max {
		return nil, ddberr.Validation(MsgTooMany)
	}
	if err := scope.Authorize("TagResource", arn); err != nil {
		return nil, err
	}
	err := change(c, name, arn, func(cur []wire.Tag) ([]wire.Tag, error) {
		merged, verr := Merge(cur, in.Tags)
		if verr != nil {
			return nil, verr
		}
		return merged, nil
	})
	if err != nil {
		return nil, err
	}
	return &wire.TagResourceOutput{}, nil
}

// UntagResource removes tags (absent keys are ignored).
func UntagResource(c Core, scope arns.Scope, in *wire.UntagResourceInput) (*wire.UntagResourceOutput, error) {
	arn := wire.Deref(in.ResourceArn)
	name, verr := scope.ParseTable(arn)
	if verr != nil {
		return nil, verr
	}
	if len(in.TagKeys) == 0 {
		return nil, ddberr.Validation("Atleast one Tag Key needs to be provided as Input.")
	}
	for _, k := range in.TagKeys {
		if verr := CheckKey(&k); verr != nil {
			return nil, verr
		}
	}
	if len(in.TagKeys) > Max {
		return nil, ddberr.Validation(MsgTooMany)
	}
	if err := scope.Authorize("UntagResource", arn); err != nil {
		return nil, err
	}
	err := change(c, name, arn, func(cur []wire.Tag) ([]wire.Tag, error) {
		return Remove(cur, in.TagKeys), nil
	})
	if err != nil {
		return nil, err
	}
	return &wire.UntagResourceOutput{}, nil
}

// change replaces the named table's tags with what f makes of them,
// holding the control-plane lock; a table the tag APIs do not find is
// arn's ResourceNotFoundException.
func change(c Core, name, arn string, f func(cur []wire.Tag) ([]wire.Tag, error)) error {
	ddl := c.DDL()
	ddl.Lock()
	defer ddl.Unlock()
	t, ok := c.TagTable(name)
	if !t.found(ok) {
		return arns.NotFound(arn)
	}
	next, err := f(t.Tags)
	if err != nil {
		return err
	}
	return c.SetTags(name, next)
}

// ListTagsOfResource lists a table's tags (at most 50, so one page). An
// ARN of this account naming no table is refused as unauthorized
// (package arns).
func ListTagsOfResource(c Core, scope arns.Scope, in *wire.ListTagsOfResourceInput) (*wire.ListTagsOfResourceOutput, error) {
	arn := wire.Deref(in.ResourceArn)
	name, verr := scope.ParseTable(arn)
	if verr != nil {
		return nil, verr
	}
	if err := scope.Authorize("ListTagsOfResource", arn); err != nil {
		return nil, err
	}
	t, ok := c.TagTable(name)
	if !ok {
		return nil, scope.AccessDenied("ListTagsOfResource", arn, false)
	}
	if !t.found(ok) {
		return nil, arns.NotFound(arn)
	}
	out := &wire.ListTagsOfResourceOutput{Tags: []wire.Tag{}}
	for _, tg := range t.Tags {
		out.Tags = append(out.Tags, wire.Tag{Key: wire.Ptr(wire.Deref(tg.Key)), Value: wire.Ptr(wire.Deref(tg.Value))})
	}
	return out, nil
}
