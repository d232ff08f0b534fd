package api

import "github.com/kura-db/kura/internal/wire"

var deleteBackup = op(Backend.DeleteBackup, func(in *wire.DeleteBackupInput) error {
	var v validator
	v.backupArn("backupArn", in.BackupArn, true)
	return v.err()
})
