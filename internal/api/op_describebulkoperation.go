package api

import "github.com/kura-db/kura/internal/wire"

var describeBulkOperation = op(Backend.DescribeBulkOperation, func(in *wire.DescribeBulkOperationInput) error {
	return bulkOperationArn(in.BulkOperationArn)
})

// bulkOperationArn checks a BulkOperationArn member: required, 37 to 1024
// characters (API_DescribeBulkOperation, API_CancelBulkOperation).
func bulkOperationArn(p *string) error {
	var v validator
	v.notNull("bulkOperationArn", p == nil)
	v.strLen("bulkOperationArn", p, 37, 1024)
	return v.err()
}
