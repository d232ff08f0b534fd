package api

import "github.com/kura-db/kura/internal/wire"

var listTagsOfResource = op(Backend.ListTagsOfResource, func(in *wire.ListTagsOfResourceInput) error {
	var v validator
	v.resourceArn(in.ResourceArn)
	return v.err()
})
