package api

import "github.com/kura-db/kura/internal/wire"

var untagResource = emptyBody(op(Backend.UntagResource, func(in *wire.UntagResourceInput) error {
	var v validator
	v.resourceArn(in.ResourceArn)
	v.notNull("tagKeys", in.TagKeys == nil)
	return v.err()
}))
