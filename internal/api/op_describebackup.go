package api

import "github.com/kura-db/kura/internal/wire"

var describeBackup = op(Backend.DescribeBackup, func(in *wire.DescribeBackupInput) error {
	var v validator
	v.backupArn("backupArn", in.BackupArn, true)
	return v.err()
})
