package api

import "github.com/kura-db/kura/internal/wire"

var describeContinuousBackups = op(Backend.DescribeContinuousBackups, func(in *wire.DescribeContinuousBackupsInput) error {
	return tableNameOnly(in.TableName)
})
