package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestClusterBackupRestore: on three `kura --cluster` nodes, a backup
// created through node 0 is listed by node 1 and restored through it;
// node 2 describes the backup and the restored table (ACTIVE, every
// item), and a DeleteBackup through node 2 is seen by node 0. Seen
// failing before these ran in cluster mode (CreateBackup was refused).
func TestClusterBackupRestore(t *testing.T) {
	c := startNodes(t, 3)
	a, b, z := c.clients[0], c.clients[1], c.clients[2]
	table := createTable(t, a, "pk", "", "")
	for i := range 20 {
		if _, err := c.rr().PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S(fmt.Sprint(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := a.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("nightly")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.BackupDetails.BackupArn)
	waitBackupAvailable(t, b, arn)
	list, err := b.ListBackups(bg, &dynamodb.ListBackupsInput{TableName: aws.String(table)})
	if err != nil || len(list.BackupSummaries) != 1 || aws.ToString(list.BackupSummaries[0].BackupArn) != arn {
		t.Fatalf("node 1's ListBackups: %+v %v", list, err)
	}
	target := table + "-restored"
	if _, err := b.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn),
		TargetTableName: aws.String(target)}); err != nil {
		t.Fatal(err)
	}
	// (Its ItemCount is node 0's figure when it was taken: a node
	// recounts the others' writes every minute, engine.Config.ClusterRecount.)
	if d := waitBackupAvailable(t, z, arn); aws.ToString(d.BackupDetails.BackupName) != "nightly" {
		t.Fatalf("node 2 describes the backup as %+v", d.BackupDetails)
	}
	waitTableActive(t, z, target)
	if n := scanCount(t, z, target); n != 20 {
		t.Fatalf("the restored table holds %d items through node 2", n)
	}
	if _, err := z.DeleteBackup(bg, &dynamodb.DeleteBackupInput{BackupArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	_, err = a.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	var nf *types.BackupNotFoundException
	if !errorsAs(err, &nf) {
		t.Fatalf("node 0's DescribeBackup of the deleted backup: %v", err)
	}
}

// TestClusterExportTakenOver: an export to S3 (SeaweedFS) started through
// node 0, which is killed right after, is finished by another node once
// node 0's lease on it lapsed (lease.DefaultTTL, then the adoption
// round), with every item; the other nodes describe it throughout.
func TestClusterExportTakenOver(t *testing.T) {
	env := newS3Env(t)
	c := startNodes(t, 3, "--s3-endpoint", env.endpoint, "--s3-path-style")
	a, b := c.clients[0], c.clients[1]
	table := pitrTable(t, a)
	const items = 2000
	for i := 0; i < items; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < i+25; j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": S(fmt.Sprint(j)), "pad": S(fmt.Sprintf("%0500d", j))}}})
		}
		if _, err := c.rr().BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := a.ExportTableToPointInTime(bg, &dynamodb.ExportTableToPointInTimeInput{
		TableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/" + table), S3Bucket: aws.String(env.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	c.nodes[0].kill()
	arn := aws.ToString(out.ExportDescription.ExportArn)
	got, err := b.DescribeExport(bg, &dynamodb.DescribeExportInput{ExportArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	if got.ExportDescription.ExportStatus != types.ExportStatusInProgress {
		t.Logf("the export ended (%s) before node 0 was killed: no takeover", got.ExportDescription.ExportStatus)
	}
	d := waitExportWithin(t, b, arn, 90*time.Second)
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != items {
		t.Fatalf("the export ended %s with %d items (%s)", d.ExportStatus, aws.ToInt64(d.ItemCount), aws.ToString(d.FailureMessage))
	}
	file, _ := env.dataFile(t, d, items)
	if file.DataFileS3Key == "" {
		t.Fatal("no data file")
	}
}
