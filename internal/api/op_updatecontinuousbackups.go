package api

import "github.com/kura-db/kura/internal/wire"

var updateContinuousBackups = op(Backend.UpdateContinuousBackups, func(in *wire.UpdateContinuousBackupsInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.tableName(in.TableName, true)
	spec := in.PointInTimeRecoverySpecification
	v.notNull("pointInTimeRecoverySpecification", spec == nil)
	if spec != nil {
		v.notNull("pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled", spec.PointInTimeRecoveryEnabled == nil)
		v.intRange("pointInTimeRecoverySpecification.recoveryPeriodInDays", spec.RecoveryPeriodInDays, 1, 35)
	}
	return v.err()
})
