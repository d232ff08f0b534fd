package api

import "github.com/kura-db/kura/internal/wire"

var listTables = op(Backend.ListTables, func(in *wire.ListTablesInput) error {
	var v validator
	if in.ExclusiveStartTableName != nil {
		v.name("exclusiveStartTableName", *in.ExclusiveStartTableName)
	}
	v.intRange("limit", in.Limit, 1, 100)
	return v.err()
})
