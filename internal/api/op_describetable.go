package api

import "github.com/kura-db/kura/internal/wire"

var describeTable = op(Backend.DescribeTable, func(in *wire.DescribeTableInput) error {
	return tableNameOnly(in.TableName)
})

// tableNameOnly validates an input whose only constrained member is a
// required TableName.
func tableNameOnly(name *string) error {
	if err := emptyTableName(name); err != nil {
		return err
	}
	var v validator
	v.tableName(name, true)
	return v.err()
}
