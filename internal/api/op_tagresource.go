package api

import "github.com/kura-db/kura/internal/wire"

var tagResource = op(Backend.TagResource, func(in *wire.TagResourceInput) error {
	var v validator
	v.resourceArn(in.ResourceArn)
	v.notNull("tags", in.Tags == nil)
	// Each tag's key and value are checked by the backend, whose texts
	// DynamoDB answers for them ("The Tag Key provided is invalid, ...").
	return v.err()
})

// resourceArn checks a required ResourceArn (length 1..1283).
func (v *validator) resourceArn(p *string) {
	v.notNull("resourceArn", p == nil)
	if p != nil {
		v.minLen("resourceArn", quote(*p), len(*p), 1)
		v.maxLen("resourceArn", quote(*p), len(*p), 1283)
	}
}
