package api

import "github.com/kura-db/kura/internal/wire"

var getResourcePolicy = op(Backend.GetResourcePolicy, func(in *wire.GetResourcePolicyInput) error {
	var v validator
	v.resourceArn(in.ResourceArn)
	return v.err()
})
