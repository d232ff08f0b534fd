package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/wire"
)

// benchEngine opens an engine on a Pebble store in a temporary directory
// (writes not synced: the figures are of the engine's own work), with a
// table t of n items of about 1 KB and a GSI, and the clock clk.
func benchEngine(b *testing.B, n int, clk Clock) *Engine {
	b.Helper()
	store, err := pebble.Open(b.TempDir(), pebble.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := Open(store, Config{Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close(); store.Close() })
	if _, err := e.CreateTable(dpCtx, ctlPPRWithGSI("t", "g", ProjectKeysOnly)); err != nil {
		b.Fatal(err)
	}
	pad := dpS(strings.Repeat("x", 1000))
	for i := 0; i < n; i++ {
		dpPut(b, e, "t", attr.Item{"pk": dpS(fmt.Sprint(i)), "g": dpS(fmt.Sprint(i % 16)), "pad": pad})
	}
	return e
}

// BenchmarkBackupRestore: CreateBackup of a 20,000-item table (about
// 20 MB) until AVAILABLE, then RestoreTableFromBackup until ACTIVE;
// reported per item.
func BenchmarkBackupRestore(b *testing.B) {
	const n = 20000
	e := benchEngine(b, n, nil)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		out, err := e.CreateBackup(dpCtx, &wire.CreateBackupInput{TableName: dpStr("t"), BackupName: dpStr("bench")})
		if err != nil {
			b.Fatal(err)
		}
		for {
			d, err := e.DescribeBackup(dpCtx, &wire.DescribeBackupInput{BackupArn: out.BackupDetails.BackupArn})
			if err != nil {
				b.Fatal(err)
			}
			if d.BackupDescription.BackupDetails.BackupStatus == backupAvailable {
				break
			}
			time.Sleep(time.Millisecond)
		}
		backup := time.Since(start)
		target := fmt.Sprintf("r%d", i)
		start = time.Now()
		if _, err := e.RestoreTableFromBackup(dpCtx, &wire.RestoreTableFromBackupInput{BackupArn: out.BackupDetails.BackupArn, TargetTableName: dpStr(target)}); err != nil {
			b.Fatal(err)
		}
		for {
			d, err := e.DescribeTable(dpCtx, &wire.DescribeTableInput{TableName: dpStr(target)})
			if err != nil {
				b.Fatal(err)
			}
			if d.Table.TableStatus == StatusActive {
				break
			}
			time.Sleep(time.Millisecond)
		}
		b.ReportMetric(float64(backup.Microseconds())/n, "backup-us/item")
		b.ReportMetric(float64(time.Since(start).Microseconds())/n, "restore-us/item")
	}
}

// BenchmarkPutPITR is a 1 KB PutItem overwriting existing items, with
// point-in-time recovery off and on (each change then also writes the
// image it replaced).
func BenchmarkPutPITR(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("pitr=%v", on), func(b *testing.B) {
			e := benchEngine(b, 1000, nil)
			if on {
				if _, err := e.UpdateContinuousBackups(dpCtx, &wire.UpdateContinuousBackupsInput{TableName: dpStr("t"),
					PointInTimeRecoverySpecification: &wire.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: dpBool(true)}}); err != nil {
					b.Fatal(err)
				}
			}
			pad := dpS(strings.Repeat("y", 1000))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				dpPut(b, e, "t", attr.Item{"pk": dpS(fmt.Sprint(i % 1000)), "g": dpS("1"), "pad": pad})
			}
		})
	}
}
