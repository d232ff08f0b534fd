package engine

import (
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/wire"
)

// TestClusterRestoredTableServesAtOnce: node b looks up a table another
// node is restoring (and caches it CREATING); once the store has it
// ACTIVE, b serves it at once rather than answering
// ResourceNotFoundException from its cached definition for up to
// catalogRecheck. Seen failing in the black-box suite run against three
// nodes (TestBackupAndRestore: a Scan of the restored table through
// another node than the one DescribeTable said ACTIVE through).
func TestClusterRestoredTableServesAtOnce(t *testing.T) {
	forEachJobsCluster(t, 2, nil, func(t *testing.T, nodes []*Engine, _ *ctlClock) {
		a, b := nodes[0], nodes[1]
		dpTable(t, a, "t", "pk:S")
		for _, k := range []string{"x", "y", "z"} {
			dpPut(t, a, "t", attr.Item{"pk": dpS(k)})
		}
		out, err := a.CreateBackup(dpCtx, &wire.CreateBackupInput{TableName: dpStr("t"), BackupName: dpStr("bk")})
		if err != nil {
			t.Fatal(err)
		}
		arn := *out.BackupDetails.BackupArn
		waitFor(t, "the backup AVAILABLE", func() bool { return describeBackupStatus(t, a, arn) == backup.Available })
		if _, err := a.RestoreTableFromBackup(dpCtx, &wire.RestoreTableFromBackupInput{BackupArn: &arn, TargetTableName: dpStr("r")}); err != nil {
			t.Fatal(err)
		}
		if st := describeStatus(t, b, "r"); st != StatusCreating { // b caches it CREATING
			t.Skipf("the restore finished before b looked (%s): nothing to check", st)
		}
		_, err = b.Scan(dpCtx, &wire.ScanInput{TableName: dpStr("r")})
		if err != nil || describeStatus(t, a, "r") != StatusActive {
			// (A Scan that succeeded is right only if the restore
			// finished between b's DescribeTable and it: CI's run saw it.)
			dpWantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
		}
		waitFor(t, "the restored table ACTIVE on a", func() bool { return describeStatus(t, a, "r") == StatusActive })
		if got := dpScanAll(t, b, wire.ScanInput{TableName: dpStr("r")}); len(got) != 3 {
			t.Fatalf("the restored table through b holds %v", got)
		}
	})
}
