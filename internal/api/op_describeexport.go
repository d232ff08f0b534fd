package api

import "github.com/kura-db/kura/internal/wire"

var describeExport = op(Backend.DescribeExport, func(in *wire.DescribeExportInput) error {
	var v validator
	v.notNull("exportArn", in.ExportArn == nil)
	v.strLen("exportArn", in.ExportArn, 37, 1024)
	return v.err()
})
