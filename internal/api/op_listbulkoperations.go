package api

import "github.com/kura-db/kura/internal/wire"

// ListBulkOperations: MaxResults of at least 1 (the SDK: 10 when omitted;
// no upper bound was found stated, so none is applied).
var listBulkOperations = op(Backend.ListBulkOperations, func(in *wire.ListBulkOperationsInput) error {
	var v validator
	v.intRange("maxResults", in.MaxResults, 1, 2147483647)
	return v.err()
})
