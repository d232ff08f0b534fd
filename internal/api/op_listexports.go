package api

import "github.com/kura-db/kura/internal/wire"

var listExports = op(Backend.ListExports, func(in *wire.ListExportsInput) error {
	var v validator
	v.strLen("tableArn", in.TableArn, 1, 1024)
	v.intRange("maxResults", in.MaxResults, 1, 25)
	return v.err()
})
