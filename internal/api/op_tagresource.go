package api

import (
	"context"

	"github.com/kura-db/kura/internal/wire"
)

// TagResource and UntagResource answer with an empty body, as DynamoDB does
// (ScyllaDB's Alternator tests, which are run against DynamoDB).
var tagResource = emptyBody(op(Backend.TagResource, func(in *wire.TagResourceInput) error {
	var v validator
	v.resourceArn(in.ResourceArn)
	v.notNull("tags", in.Tags == nil)
	// Each tag's key and value are checked by the backend, whose texts
	// DynamoDB answers for them ("The Tag Key provided is invalid, ...").
	return v.err()
}))

// noBody is the output of an operation that answers with an empty body.
type noBody struct{}

// emptyBody makes h answer with an empty body when it succeeds.
func emptyBody(h handler) handler {
	return func(ctx context.Context, b Backend, body []byte) (any, error) {
		if _, err := h(ctx, b, body); err != nil {
			return nil, err
		}
		return noBody{}, nil
	}
}

// resourceArn checks a required ResourceArn (length 1..1283).
func (v *validator) resourceArn(p *string) {
	v.notNull("resourceArn", p == nil)
	if p != nil {
		v.minLen("resourceArn", quote(*p), len(*p), 1)
		v.maxLen("resourceArn", quote(*p), len(*p), 1283)
	}
}
