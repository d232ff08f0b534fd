package backup_test

import (
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/wire"
)

func wantErr(t *testing.T, err *ddberr.Error, typ, msg string) {
	t.Helper()
	if err == nil || err.Type != typ || err.Message != msg {
		t.Fatalf("got %v, want %s: %s", err, typ, msg)
	}
}

// TestCheckARN: what names a backup, in DynamoDB's two refusals.
func TestCheckARN(t *testing.T) {
	for _, s := range []string{"x", "arn:aws:dynamodb:us-east-1:1:table/T", "arn:aws:dynamodb:us-east-1:1:table/T/backup/", "arn:aws:dynamodb:r:1:table//backup/1"} {
		wantErr(t, backup.CheckARN(s), "ValidationException", "Invalid Backup ARN")
	}
	wantErr(t, backup.CheckARN("arn:aws:s3:us-east-1:1:table/T/backup/1"), "ValidationException", "BackupArn is not valid")
	if err := backup.CheckARN(arnOf + "01700000000000-abcdef12"); err != nil {
		t.Fatal(err)
	}
}

// TestCheckDeletable: a system backup, one being created and one being
// restored from are not deleted.
func TestCheckDeletable(t *testing.T) {
	at := time.Date(2026, 10, 8, 1, 2, 3, 0, time.UTC)
	sys := record{ARN: arnOf + "s", System: true, Status: backup.Available, Expires: at}
	wantErr(t, sys.CheckDeletable("given", 0), "ValidationException",
		"Invalid Request: User is not allowed to delete the system backup with arn given. It will automatically expire on 2026-10-08T01:02:03Z")
	creating := record{ARN: arnOf + "c", Status: backup.Creating}
	wantErr(t, creating.CheckDeletable("given", 0), "BackupInUseException", "Backup is being created: given")
	avail := record{ARN: arnOf + "a", Status: backup.Available}
	wantErr(t, avail.CheckDeletable("given", 1), "BackupInUseException", "Backup is being used to restore table: given")
	if err := avail.CheckDeletable("given", 0); err != nil {
		t.Fatal(err)
	}
}

// TestList: ListBackups' type filter, time range, start position and
// limit, and the summaries' table.
func TestList(t *testing.T) {
	t0 := time.Date(2026, 10, 8, 0, 0, 0, 0, time.UTC)
	var all []*record
	for i := range 4 {
		at := t0.Add(time.Duration(i) * time.Second)
		all = append(all, &record{ARN: backup.NewARN("us-east-1", "000000000000", "T", at), Name: "b", Status: backup.Available,
			Created: at, System: i == 3})
	}
	desc := &wire.TableDescription{TableName: wire.Ptr("T"), TableArn: wire.Ptr("arn:t")}
	src := func(*record) backup.Source { return backup.Source{Desc: desc} }
	out, err := backup.List(all, &wire.ListBackupsInput{}, src)
	if err != nil || len(out.BackupSummaries) != 3 || wire.Deref(out.BackupSummaries[0].TableArn) != "arn:t" {
		t.Fatalf("user backups: %+v %v", out, err)
	}
	out, _ = backup.List(all, &wire.ListBackupsInput{BackupType: "ALL", Limit: wire.Ptr[int32](2)}, src)
	if len(out.BackupSummaries) != 2 || wire.Deref(out.LastEvaluatedBackupArn) != all[1].ARN {
		t.Fatalf("limit: %+v", out)
	}
	out, _ = backup.List(all, &wire.ListBackupsInput{BackupType: "ALL", ExclusiveStartBackupArn: out.LastEvaluatedBackupArn,
		TimeRangeUpperBound: wire.NewTime(t0.Add(3 * time.Second))}, src)
	if len(out.BackupSummaries) != 1 || wire.Deref(out.BackupSummaries[0].BackupArn) != all[2].ARN {
		t.Fatalf("after the start, before the upper bound: %+v", out)
	}
	_, err = backup.List(all, &wire.ListBackupsInput{TimeRangeLowerBound: wire.NewTime(t0.Add(time.Second)), TimeRangeUpperBound: wire.NewTime(t0)}, src)
	wantErr(t, err, "ValidationException", "Time range lower bound must be less than or equal to upper bound")
}

// TestDescription: the backup's table as it was, its features ({} for a
// system backup).
func TestDescription(t *testing.T) {
	pt := &wire.ProvisionedThroughputDescription{ReadCapacityUnits: wire.Ptr[int64](3), WriteCapacityUnits: wire.Ptr[int64](4)}
	desc := &wire.TableDescription{TableName: wire.Ptr("T"), ProvisionedThroughput: pt,
		GlobalSecondaryIndexes: []wire.GlobalSecondaryIndexDescription{{IndexName: wire.Ptr("g"), IndexStatus: "ACTIVE"}, {IndexName: wire.Ptr("gone"), IndexStatus: "DELETING"}},
		StreamSpecification:    &wire.StreamSpecification{StreamEnabled: wire.Ptr(true), StreamViewType: "KEYS_ONLY"}}
	b := record{ARN: arnOf + "1", Status: backup.Available, SizeBytes: 9, ItemCount: 2}
	d := b.Description(backup.Source{Desc: desc, TTLAttribute: "exp"})
	st, f := d.SourceTableDetails, d.SourceTableFeatureDetails
	if st.BillingMode != "PROVISIONED" || wire.Deref(st.ItemCount) != 2 || wire.Deref(st.ProvisionedThroughput.WriteCapacityUnits) != 4 {
		t.Fatalf("SourceTableDetails %+v", st)
	}
	if len(f.GlobalSecondaryIndexes) != 1 || f.StreamDescription == nil || wire.Deref(f.TimeToLiveDescription.AttributeName) != "exp" {
		t.Fatalf("SourceTableFeatureDetails %+v", f)
	}
	b.System = true
	if f := b.Description(backup.Source{Desc: desc}).SourceTableFeatureDetails; f.GlobalSecondaryIndexes != nil || f.StreamDescription != nil {
		t.Fatalf("a system backup's features %+v", f)
	}
}
