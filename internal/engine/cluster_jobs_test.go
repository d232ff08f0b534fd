package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/export"
	"github.com/kura-db/kura/internal/engine/restore"
	"github.com/kura-db/kura/internal/lease"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Backups, restores and jobs in cluster mode: their records are read
// from the store by every node, and their work runs once, on the node
// holding its lease, and is taken over when that node goes.

// jobsLeaseTTL is the lease life of these tests, in real time for the
// renewers, polls and the adoption loop; expiries follow the shared
// lease clock, which only the test moves.
const jobsLeaseTTL = 300 * time.Millisecond

// forEachJobsCluster runs f on n cluster-mode engines named "0", "1", ...
// of each backend, their leases on clock, with objects as their S3.
func forEachJobsCluster(t *testing.T, n int, objects objstore.Store, f func(t *testing.T, nodes []*Engine, clock *ctlClock)) {
	for name, open := range clusterBackends(t) {
		t.Run(name, func(t *testing.T) {
			clock := &ctlClock{}
			var nodes []*Engine
			for i, s := range open(t, n) {
				e, err := Open(s, Config{Cluster: true, TTLInterval: -1, Objects: objects,
					Node: lease.Node{ID: string(rune('0' + i)), Host: "test", PID: 1}, LeaseClock: clock, LeaseTTL: jobsLeaseTTL})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close() })
				nodes = append(nodes, e)
			}
			f(t, nodes, clock)
		})
	}
}

// TestClusterBackupRestoreTakeover: a backup created through node a is
// described and listed by the others; a restore of it started through a
// while its copy is stuck (another node holds the copy's lease, then
// stops renewing it) is finished by node b after a closed: b adopts the
// copy once its lease lapsed, then the restore; c describes the restored
// table ACTIVE with every item, and a DeleteBackup through c is seen by
// b. Seen failing without the adoption of backups and restores in
// cluster mode (adoptBackups: the table stayed CREATING) and without
// reading the backup records from the store (backup.Config.Shared: c's
// DescribeBackup answered BackupNotFoundException).
func TestClusterBackupRestoreTakeover(t *testing.T) {
	forEachJobsCluster(t, 3, nil, func(t *testing.T, nodes []*Engine, clock *ctlClock) {
		a, b, c := nodes[0], nodes[1], nodes[2]
		dpTable(t, a, "t", "pk:S")
		for _, k := range []string{"x", "y", "z"} {
			dpPut(t, b, "t", attr.Item{"pk": dpS(k), "v": dpN("1")})
		}
		out, err := a.CreateBackup(dpCtx, &wire.CreateBackupInput{TableName: dpStr("t"), BackupName: dpStr("bk")})
		if err != nil {
			t.Fatal(err)
		}
		arn := *out.BackupDetails.BackupArn
		waitFor(t, "the backup AVAILABLE on c", func() bool { return describeBackupStatus(t, c, arn) == backup.Available })
		list, err := b.ListBackups(dpCtx, &wire.ListBackupsInput{TableName: dpStr("t")})
		if err != nil || len(list.BackupSummaries) != 1 || *list.BackupSummaries[0].BackupArn != arn {
			t.Fatalf("b's ListBackups: %+v %v", list, err)
		}

		// The copy again, its lease held by a node that then dies before
		// it is done.
		dead := lease.New(lease.Config{Store: a.store, Node: lease.Node{ID: "dead", Host: "elsewhere", PID: 1}, Clock: clock, TTL: jobsLeaseTTL})
		// The node that copied it releases the copy's lease just after the
		// backup is AVAILABLE: until then the lease is held.
		var l *lease.Lease
		waitFor(t, "the copy's lease released", func() bool {
			l, err = dead.Acquire(backup.LeasePrefix + arn)
			return err == nil
		})
		if err := l.Save(nil); err != nil { // not done
			t.Fatal(err)
		}
		rec, _ := b.backup(arn)
		again := *rec
		again.Status = backup.Creating
		if err := b.commit(true, func(txn storage.Txn) error { return backup.Put(txn, &again) }); err != nil {
			t.Fatal(err)
		}
		if _, err := a.RestoreTableFromBackup(dpCtx, &wire.RestoreTableFromBackupInput{BackupArn: &arn, TargetTableName: dpStr("r")}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * jobsLeaseTTL)
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if st := describeStatus(t, c, "r"); st != StatusCreating {
			t.Fatalf("the restored table is %s while the backup's copy is held", st)
		}
		_, err = c.DeleteBackup(dpCtx, &wire.DeleteBackupInput{BackupArn: &arn})
		dpWantErr(t, err, "BackupInUseException", "Backup is being created: "+arn)

		clock.advance(time.Hour) // the dead node's lease lapses
		waitFor(t, "the restored table ACTIVE on c", func() bool { return describeStatus(t, c, "r") == StatusActive })
		if got := dpScanAll(t, c, wire.ScanInput{TableName: dpStr("r")}); len(got) != 3 {
			t.Fatalf("the restored table holds %v", got)
		}
		if st := describeBackupStatus(t, c, arn); st != backup.Available {
			t.Fatalf("the backup is %s on c", st)
		}
		if _, err := c.DeleteBackup(dpCtx, &wire.DeleteBackupInput{BackupArn: &arn}); err != nil {
			t.Fatal(err)
		}
		_, err = b.DescribeBackup(dpCtx, &wire.DescribeBackupInput{BackupArn: &arn})
		dpWantErr(t, err, "BackupNotFoundException", "Backup not found: "+arn)
	})
}

// TestClusterPITRRestoreOnAnotherNode: a point-in-time restore started
// through a, which closes before it runs (another node holds the
// restore's lease), is run by b; every node sees the table ACTIVE.
func TestClusterPITRRestoreOnAnotherNode(t *testing.T) {
	forEachJobsCluster(t, 3, nil, func(t *testing.T, nodes []*Engine, clock *ctlClock) {
		a, b, c := nodes[0], nodes[1], nodes[2]
		dpTable(t, a, "t", "pk:S")
		for _, k := range []string{"x", "y"} {
			dpPut(t, c, "t", attr.Item{"pk": dpS(k)})
		}
		// Early on, the latest restorable time is the enabling.
		if _, err := b.UpdateContinuousBackups(dpCtx, &wire.UpdateContinuousBackupsInput{TableName: dpStr("t"),
			PointInTimeRecoverySpecification: &wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: dpBool(true)}}); err != nil {
			t.Fatal(err)
		}
		dpPut(t, c, "t", attr.Item{"pk": dpS("later")})
		// The restore's lease (its target's ID is the next table ID) is
		// held by a node that then dies.
		dead := lease.New(lease.Config{Store: a.store, Node: lease.Node{ID: "dead", Host: "elsewhere", PID: 1}, Clock: clock, TTL: jobsLeaseTTL})
		next := mustTable(t, a, "t").ID + 1
		if _, err := dead.Acquire(restoreLease(next)); err != nil {
			t.Fatal(err)
		}
		out, err := a.RestoreTableToPointInTime(dpCtx, &wire.RestoreTableToPointInTimeInput{SourceTableName: dpStr("t"),
			TargetTableName: dpStr("r"), UseLatestRestorableTime: dpBool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if id := cpDeref(out.TableDescription.TableId); id == "" {
			t.Fatal("no table ID")
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		clock.advance(time.Hour)
		waitFor(t, "the restored table ACTIVE on c", func() bool { return describeStatus(t, c, "r") == StatusActive })
		if got := dpScanAll(t, b, wire.ScanInput{TableName: dpStr("r")}); len(got) != 2 {
			t.Fatalf("the restored table holds %v", got)
		}
	})
}

// TestClusterExportDescribedEverywhere: an export started through one
// node is described and listed, COMPLETED, by the others. Seen failing
// without jobs.Log.Share (the other nodes answered ExportNotFoundException
// until their next adoption round).
func TestClusterExportDescribedEverywhere(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "exports"), 0o755); err != nil {
		t.Fatal(err)
	}
	forEachJobsCluster(t, 2, objstore.Dir{Root: root}, func(t *testing.T, nodes []*Engine, _ *ctlClock) {
		a, b := nodes[0], nodes[1]
		dpTable(t, a, "tab", "pk:S")
		if _, err := b.UpdateContinuousBackups(dpCtx, &wire.UpdateContinuousBackupsInput{TableName: dpStr("tab"),
			PointInTimeRecoverySpecification: &wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: dpBool(true)}}); err != nil {
			t.Fatal(err)
		}
		dpPut(t, b, "tab", attr.Item{"pk": dpS("x")})
		out, err := a.ExportTableToPointInTime(dpCtx, &wire.ExportTableToPointInTimeInput{
			TableArn: dpStr("arn:aws:dynamodb:us-east-1:000000000000:table/tab"), S3Bucket: dpStr("exports")})
		if err != nil {
			t.Fatal(err)
		}
		arn := cpDeref(out.ExportDescription.ExportArn)
		d := describeExport(t, b, arn) // at once: no adoption round in between
		waitFor(t, "the export COMPLETED on b", func() bool { d = describeExport(t, b, arn); return d.ExportStatus == export.Completed })
		if cpDeref(d.ItemCount) != 1 {
			t.Fatalf("the export counted %d items", cpDeref(d.ItemCount))
		}
		list, err := b.ListExports(dpCtx, &wire.ListExportsInput{})
		if err != nil || len(list.ExportSummaries) != 1 || *list.ExportSummaries[0].ExportArn != arn {
			t.Fatalf("b's ListExports: %+v %v", list, err)
		}
	})
}

func restoreLease(tableID uint64) string {
	return restore.LeasePrefix + strconv.FormatUint(tableID, 10)
}

func describeBackupStatus(t *testing.T, e *Engine, arn string) string {
	t.Helper()
	out, err := e.DescribeBackup(dpCtx, &wire.DescribeBackupInput{BackupArn: &arn})
	if err != nil {
		t.Fatal(err)
	}
	return out.BackupDescription.BackupDetails.BackupStatus
}

func describeStatus(t *testing.T, e *Engine, name string) string {
	t.Helper()
	out, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: &name})
	if err != nil {
		t.Fatal(err)
	}
	return out.Table.TableStatus
}
