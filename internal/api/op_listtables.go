package api

import "github.com/kura-db/kura/internal/wire"

var listTables = op(Backend.ListTables, func(in *wire.ListTablesInput) error {
	var v validator
	if s := in.ExclusiveStartTableName; s != nil {
		v.plainName("exclusiveStartTableName", *s) // a name: unlike TableName, no ARN
	}
	v.intRange("limit", in.Limit, 1, 100)
	return v.err()
})
