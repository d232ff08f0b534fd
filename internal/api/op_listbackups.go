package api

import "github.com/kura-db/kura/internal/wire"

// enumBackupTypeFilter is ListBackups' BackupType set.
var enumBackupTypeFilter = []string{"USER", "SYSTEM", "AWS_BACKUP", "ALL"}

var listBackups = op(Backend.ListBackups, func(in *wire.ListBackupsInput) error {
	var v validator
	if in.TableName != nil {
		v.strLen("tableName", in.TableName, 1, 1024)
	}
	v.intRange("limit", in.Limit, 1, 100)
	v.backupArn("exclusiveStartBackupArn", in.ExclusiveStartBackupArn, false)
	v.enum("backupType", in.BackupType, enumBackupTypeFilter)
	return v.err()
})
