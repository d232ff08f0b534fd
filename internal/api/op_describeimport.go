package api

import "github.com/kura-db/kura/internal/wire"

var describeImport = op(Backend.DescribeImport, func(in *wire.DescribeImportInput) error {
	var v validator
	v.notNull("importArn", in.ImportArn == nil)
	v.strLen("importArn", in.ImportArn, 37, 1024)
	return v.err()
})
