package api

import "github.com/kura-db/kura/internal/wire"

var deleteTable = op(Backend.DeleteTable, func(in *wire.DeleteTableInput) error {
	return tableNameOnly(in.TableName)
})
