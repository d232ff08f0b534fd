package api

import "github.com/kura-db/kura/internal/wire"

var createBackup = op(Backend.CreateBackup, func(in *wire.CreateBackupInput) error {
	var v validator
	// TableName is a name or a table ARN here (DynamoDB's TableArn shape:
	// a length, no pattern); a name that fits no table is
	// TableNotFoundException from the backend.
	v.notNull("tableName", in.TableName == nil)
	v.strLen("tableName", in.TableName, 1, 1024)
	v.notNull("backupName", in.BackupName == nil)
	if in.BackupName != nil {
		v.plainName("backupName", *in.BackupName)
	}
	return v.err()
})

// backupArn checks a BackupArn member (DynamoDB's BackupArn shape: 37 to
// 1024 characters); its form is checked by the backend.
func (v *validator) backupArn(member string, p *string, required bool) {
	if p == nil {
		if required {
			v.notNull(member, true)
		}
		return
	}
	v.minLen(member, quote(*p), len(*p), 37)
	v.maxLen(member, quote(*p), len(*p), 1024)
}
