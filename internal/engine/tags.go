package engine

import (
	"context"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/tables"
	"github.com/kura-db/kura/internal/engine/tags"
	"github.com/kura-db/kura/internal/wire"
)

// The tag APIs: this file resolves the resource a request names and keeps
// the tags in the table record; what tags are valid and what TagResource
// and UntagResource make of them is package tags'.

// parseTableARN checks a resource ARN and returns the table name it names.
func (e *Engine) parseTableARN(arn string) (string, *ddberr.Error) {
	name, sub, err := e.parseResourceARN(arn)
	if err != nil {
		return "", err
	}
	if sub != "" {
		return "", resourceARNNotFound(arn) // streams carry no tags here
	}
	return name, nil
}

// parseResourceARN checks the ARN of a table or of its stream and returns
// the table's name and, for a stream, the rest ("stream/<label>").
func (e *Engine) parseResourceARN(arn string) (name, sub string, err *ddberr.Error) {
	name, sub, _, err = e.parseResourceARNAccount(arn)
	return name, sub, err
}

// parseResourceARNAccount is parseResourceARN that also returns the ARN's
// account, for a caller that would otherwise split it again (authorizeARN).
func (e *Engine) parseResourceARNAccount(arn string) (name, sub, account string, err *ddberr.Error) {
	// Built only when refused: authorization asks for every request.
	invalid := func() *ddberr.Error {
		return ddberr.Validation("Invalid TableArn: Invalid ResourceArn provided as input " + arn)
	}
	if !strings.HasPrefix(arn, "arn:") {
		return "", "", "", ddberr.InvalidParam("ARNs must start with 'arn:': %s", arn)
	}
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 {
		return "", "", "", invalid()
	}
	if parts[2] != "dynamodb" {
		return "", "", "", ddberr.InvalidParam("Provided Arn is not a DynamoDB resource arn: %s", arn)
	}
	res, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return "", "", "", invalid()
	}
	name, sub, hasSub := strings.Cut(res, "/")
	if strings.HasPrefix(sub, "backup/") {
		// Backups are not taggable; DynamoDB's words (a probe of
		// DynamoDB, 2026-10-09).
		return "", "", "", ddberr.InvalidParam("Provided Arn is not a DynamoDB resource arn: %s", arn)
	}
	if hasSub && !strings.HasPrefix(sub, "stream/") {
		return "", "", "", ddberr.InvalidParam("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s", arn)
	}
	if !tables.ValidName(name) || parts[3] != e.cfg.Region {
		return "", "", "", invalid()
	}
	return name, sub, parts[4], nil // the account is the caller's to check
}

func resourceARNNotFound(arn string) *ddberr.Error {
	return ddberr.ResourceNotFound("Requested resource not found: ResourceArn: " + arn + " not found")
}

// taggable reports whether the tag APIs find a looked-up table: not while
// it is CREATING (DynamoDB does not find it, or the tags given to
// CreateTable, until it is ACTIVE) or DELETING.
func taggable(t *Table, ok bool) bool {
	return ok && t.Status != StatusCreating && t.Status != StatusDeleting
}

// tableByARN resolves ListTagsOfResource's ARN to a table the tag APIs
// find; an ARN naming no table is refused as unauthorized (arn_access.go).
func (e *Engine) tableByARN(arn string) (*Table, *ddberr.Error) {
	name, err := e.parseTableARN(arn)
	if err != nil {
		return nil, err
	}
	if err := e.authorizeARN("ListTagsOfResource", arn); err != nil {
		return nil, err
	}
	t, ok := e.lookupTable(name)
	if !ok {
		return nil, e.accessDenied("ListTagsOfResource", arn, false)
	}
	if !taggable(t, ok) {
		return nil, resourceARNNotFound(arn)
	}
	return t, nil
}

// TagResource adds or overwrites tags of a table.
func (e *Engine) TagResource(ctx context.Context, in *wire.TagResourceInput) (*wire.TagResourceOutput, error) {
	arn := cpDeref(in.ResourceArn)
	name, verr := e.parseTableARN(arn)
	if verr != nil {
		return nil, verr
	}
	if len(in.Tags) == 0 {
		return nil, ddberr.Validation("Atleast one Tag needs to be provided as Input.")
	}
	if verr := tags.Check(in.Tags); verr != nil {
		return nil, verr
	}
	if len(in.Tags) > tags.Max {
		return nil, ddberr.Validation(tags.MsgTooMany)
	}
	if err := e.authorizeARN("TagResource", arn); err != nil {
		return nil, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, ok := e.lookupTable(name)
	if !taggable(t, ok) {
		return nil, resourceARNNotFound(arn)
	}
	rec := t.rec.Clone()
	merged, verr := tags.Merge(rec.Tags, in.Tags)
	if verr != nil {
		return nil, verr
	}
	rec.Tags = merged
	if _, err := e.saveRecord(rec); err != nil {
		return nil, err
	}
	return &wire.TagResourceOutput{}, nil
}

// UntagResource removes tags (absent keys are ignored).
func (e *Engine) UntagResource(ctx context.Context, in *wire.UntagResourceInput) (*wire.UntagResourceOutput, error) {
	arn := cpDeref(in.ResourceArn)
	name, verr := e.parseTableARN(arn)
	if verr != nil {
		return nil, verr
	}
	if len(in.TagKeys) == 0 {
		return nil, ddberr.Validation("Atleast one Tag Key needs to be provided as Input.")
	}
	for _, k := range in.TagKeys {
		if verr := tags.CheckKey(&k); verr != nil {
			return nil, verr
		}
	}
	if len(in.TagKeys) > tags.Max {
		return nil, ddberr.Validation(tags.MsgTooMany)
	}
	if err := e.authorizeARN("UntagResource", arn); err != nil {
		return nil, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	t, ok := e.lookupTable(name)
	if !taggable(t, ok) {
		return nil, resourceARNNotFound(arn)
	}
	rec := t.rec.Clone()
	rec.Tags = tags.Remove(rec.Tags, in.TagKeys)
	if _, err := e.saveRecord(rec); err != nil {
		return nil, err
	}
	return &wire.UntagResourceOutput{}, nil
}

// ListTagsOfResource lists a table's tags (at most 50, so one page).
func (e *Engine) ListTagsOfResource(ctx context.Context, in *wire.ListTagsOfResourceInput) (*wire.ListTagsOfResourceOutput, error) {
	t, verr := e.tableByARN(cpDeref(in.ResourceArn))
	if verr != nil {
		return nil, verr
	}
	out := &wire.ListTagsOfResourceOutput{Tags: []wire.Tag{}}
	for _, tg := range t.rec.Tags {
		out.Tags = append(out.Tags, wire.Tag{Key: cpPtr(cpDeref(tg.Key)), Value: cpPtr(cpDeref(tg.Value))})
	}
	return out, nil
}
