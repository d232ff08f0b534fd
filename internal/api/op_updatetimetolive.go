package api

import "github.com/kura-db/kura/internal/wire"

var updateTimeToLive = op(Backend.UpdateTimeToLive, func(in *wire.UpdateTimeToLiveInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.tableName(in.TableName, true)
	v.notNull("timeToLiveSpecification", in.TimeToLiveSpecification == nil)
	if s := in.TimeToLiveSpecification; s != nil {
		v.notNull("timeToLiveSpecification.attributeName", s.AttributeName == nil)
		if s.AttributeName != nil {
			n := len(*s.AttributeName)
			v.minLen("timeToLiveSpecification.attributeName", quote(*s.AttributeName), n, 1)
			v.maxLen("timeToLiveSpecification.attributeName", quote(*s.AttributeName), n, 255)
		}
		v.notNull("timeToLiveSpecification.enabled", s.Enabled == nil)
	}
	return v.err()
})
