package api

import "github.com/kura-db/kura/internal/wire"

var deleteResourcePolicy = op(Backend.DeleteResourcePolicy, func(in *wire.DeleteResourcePolicyInput) error {
	var v validator
	v.resourceArn(in.ResourceArn)
	v.revisionID(in.ExpectedRevisionId)
	return v.err()
})
