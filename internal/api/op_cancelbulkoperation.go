package api

import "github.com/kura-db/kura/internal/wire"

var cancelBulkOperation = op(Backend.CancelBulkOperation, func(in *wire.CancelBulkOperationInput) error {
	return bulkOperationArn(in.BulkOperationArn)
})
