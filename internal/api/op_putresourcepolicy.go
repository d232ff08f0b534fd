package api

import "github.com/kura-db/kura/internal/wire"

// PutResourcePolicy's member checks; the document itself is checked by the
// backend (engine/policies).
var putResourcePolicy = op(Backend.PutResourcePolicy, func(in *wire.PutResourcePolicyInput) error {
	var v validator
	v.resourceArn(in.ResourceArn)
	v.notNull("policy", in.Policy == nil)
	v.revisionID(in.ExpectedRevisionId)
	return v.err()
})

// revisionID checks an optional ExpectedRevisionId (length 1..255).
func (v *validator) revisionID(p *string) {
	if p != nil {
		v.minLen("expectedRevisionId", quote(*p), len(*p), 1)
		v.maxLen("expectedRevisionId", quote(*p), len(*p), 255)
	}
}
