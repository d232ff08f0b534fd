package api

import "github.com/kura-db/kura/internal/wire"

var listImports = op(Backend.ListImports, func(in *wire.ListImportsInput) error {
	var v validator
	v.strLen("tableArn", in.TableArn, 1, 1024)
	v.intRange("pageSize", in.PageSize, 1, 25)
	return v.err()
})
