package test

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// What the on-demand backup operations answer follows a probe report
// captured from DynamoDB in us-west-2 and us-east-1 (2026-10-08/09) and
// the SDK's documentation; see docs/compatibility.md.

// backupTable creates a PROVISIONED table with a GSI and an LSI, a stream,
// TTL, tags and deletion protection, and writes n items.
func backupTable(t *testing.T, c *dynamodb.Client, n int) string {
	t.Helper()
	table := uniqueTable("bk")
	_, err := c.CreateTable(bg, &dynamodb.CreateTableInput{
		TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(7), WriteCapacityUnits: aws.Int64(8)}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		ProvisionedThroughput:     &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(6)},
		StreamSpecification:       &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
		DeletionProtectionEnabled: aws.Bool(true),
		Tags:                      []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTimeToLive(bg, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		putItem(t, c, table, i)
	}
	return table
}

func putItem(t *testing.T, c *dynamodb.Client, table string, i int) {
	t.Helper()
	item := map[string]types.AttributeValue{"pk": S(fmt.Sprintf("p%d", i%7)), "sk": N(strconv.Itoa(i)),
		"g": S(fmt.Sprintf("g%d", i%3)), "l": N(strconv.Itoa(1000 - i)), "v": S(fmt.Sprintf("value %d", i))}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func waitBackupAvailable(t *testing.T, c *dynamodb.Client, arn string) *types.BackupDescription {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		out, err := c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		if out.BackupDescription.BackupDetails.BackupStatus == types.BackupStatusAvailable {
			return out.BackupDescription
		}
	}
	t.Fatalf("backup %s never AVAILABLE", arn)
	return nil
}

func waitTableActive(t *testing.T, c *dynamodb.Client, table string) *types.TableDescription {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		out, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		if out.Table.TableStatus == types.TableStatusActive {
			return out.Table
		}
	}
	t.Fatalf("table %s never ACTIVE", table)
	return nil
}

func scanCount(t *testing.T, c *dynamodb.Client, table string) int {
	t.Helper()
	n := 0
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		out, err := p.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		n += len(out.Items)
	}
	return n
}

// A backup holds the table as it was when it was requested, survives the
// table, and restores into a new table with its indexes, keys, throughput
// and items, without its stream, TTL, tags and deletion protection.
func TestBackupAndRestore(t *testing.T) {
	c := ddb()
	const n = 600 // more than one copy chunk
	table := backupTable(t, c, n)
	src, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}

	out, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("nightly")})
	if err != nil {
		t.Fatal(err)
	}
	bd := out.BackupDetails
	arn := aws.ToString(bd.BackupArn)
	if !regexp.MustCompile(`^arn:aws:dynamodb:us-east-1:000000000000:table/` + table + `/backup/\d{14}-[0-9a-f]{8}$`).MatchString(arn) {
		t.Fatalf("BackupArn %q", arn)
	}
	if bd.BackupStatus != types.BackupStatusCreating || bd.BackupType != types.BackupTypeUser || aws.ToString(bd.BackupName) != "nightly" ||
		bd.BackupCreationDateTime == nil || bd.BackupExpiryDateTime != nil {
		t.Fatalf("BackupDetails %+v", bd)
	}
	// Changes after the request are not in the backup.
	putItem(t, c, table, n)
	if _, err := c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"pk": S("p0"), "sk": N("0")}}); err != nil {
		t.Fatal(err)
	}

	desc := waitBackupAvailable(t, c, arn)
	sd := desc.SourceTableDetails
	if aws.ToString(sd.TableName) != table || aws.ToString(sd.TableArn) != aws.ToString(src.Table.TableArn) ||
		aws.ToString(sd.TableId) != aws.ToString(src.Table.TableId) || !countIs(sd.ItemCount, n) ||
		sd.BillingMode != types.BillingModeProvisioned || aws.ToInt64(sd.ProvisionedThroughput.ReadCapacityUnits) != 5 ||
		len(sd.KeySchema) != 2 || !sd.TableCreationDateTime.Equal(aws.ToTime(src.Table.CreationDateTime)) {
		t.Fatalf("SourceTableDetails %+v", sd)
	}
	f := desc.SourceTableFeatureDetails
	if len(f.GlobalSecondaryIndexes) != 1 || aws.ToString(f.GlobalSecondaryIndexes[0].IndexName) != "byG" ||
		aws.ToInt64(f.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits) != 8 ||
		len(f.LocalSecondaryIndexes) != 1 || f.LocalSecondaryIndexes[0].Projection.ProjectionType != types.ProjectionTypeKeysOnly ||
		f.StreamDescription == nil || f.StreamDescription.StreamViewType != types.StreamViewTypeNewImage ||
		f.TimeToLiveDescription == nil || aws.ToString(f.TimeToLiveDescription.AttributeName) != "exp" || f.SSEDescription != nil {
		t.Fatalf("SourceTableFeatureDetails %+v", f)
	}

	target := table + "-restored"
	r, err := c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(target)})
	if err != nil {
		t.Fatal(err)
	}
	rs := r.TableDescription.RestoreSummary
	if r.TableDescription.TableStatus != types.TableStatusCreating || rs == nil || !aws.ToBool(rs.RestoreInProgress) ||
		aws.ToString(rs.SourceBackupArn) != arn || aws.ToString(rs.SourceTableArn) != aws.ToString(src.Table.TableArn) ||
		!rs.RestoreDateTime.Equal(aws.ToTime(bd.BackupCreationDateTime)) {
		t.Fatalf("restore response %+v %+v", r.TableDescription, rs)
	}
	td := waitTableActive(t, c, target)
	if td.RestoreSummary != nil || td.StreamSpecification != nil || td.LatestStreamArn != nil || aws.ToBool(td.DeletionProtectionEnabled) ||
		aws.ToInt64(td.ProvisionedThroughput.ReadCapacityUnits) != 5 || aws.ToInt64(td.ProvisionedThroughput.WriteCapacityUnits) != 6 ||
		len(td.GlobalSecondaryIndexes) != 1 || td.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive ||
		aws.ToInt64(td.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits) != 7 || len(td.LocalSecondaryIndexes) != 1 ||
		!countIs(td.ItemCount, n) || aws.ToString(td.TableArn) == aws.ToString(src.Table.TableArn) {
		t.Fatalf("restored table %+v", td)
	}
	if got := scanCount(t, c, target); got != n {
		t.Fatalf("restored table has %d items, want %d", got, n)
	}
	got, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(target), Key: map[string]types.AttributeValue{"pk": S("p0"), "sk": N("0")}})
	if err != nil || got.Item == nil || got.Item["v"].(*types.AttributeValueMemberS).Value != "value 0" {
		t.Fatalf("item deleted after the backup: %v %v", err, got)
	}
	got, err = c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(target), Key: map[string]types.AttributeValue{"pk": S(fmt.Sprintf("p%d", n%7)), "sk": N(strconv.Itoa(n))}})
	if err != nil || got.Item != nil {
		t.Fatalf("item written after the backup: %v %v", err, got)
	}
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(target), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": S("g1")}, Select: types.SelectCount})
	if err != nil || q.Count != n/3 {
		t.Fatalf("GSI query: %v %+v", err, q)
	}
	q, err = c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(target), IndexName: aws.String("byL"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("p3")}, Select: types.SelectCount})
	if err != nil || q.Count != int32((n+3)/7) {
		t.Fatalf("LSI query: %v %+v", err, q)
	}
	ttl, err := c.DescribeTimeToLive(bg, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(target)})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Fatalf("restored TTL: %v %+v", err, ttl)
	}
	tags, err := c.ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: td.TableArn})
	if err != nil || len(tags.Tags) != 0 {
		t.Fatalf("restored tags: %v %+v", err, tags)
	}

	// The backup outlives its table.
	if _, err := c.UpdateTable(bg, &dynamodb.UpdateTableInput{TableName: aws.String(table), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		t.Fatal(err)
	}
	l, err := c.ListBackups(bg, &dynamodb.ListBackupsInput{TableName: aws.String(table)})
	if err != nil || len(l.BackupSummaries) != 1 || aws.ToString(l.BackupSummaries[0].BackupArn) != arn ||
		l.BackupSummaries[0].BackupStatus != types.BackupStatusAvailable || aws.ToString(l.BackupSummaries[0].TableName) != table {
		t.Fatalf("ListBackups after DeleteTable: %v %+v", err, l)
	}

	del, err := c.DeleteBackup(bg, &dynamodb.DeleteBackupInput{BackupArn: aws.String(arn)})
	if err != nil || del.BackupDescription.BackupDetails.BackupStatus != types.BackupStatusDeleted || del.BackupDescription.SourceTableDetails == nil {
		t.Fatalf("DeleteBackup: %v %+v", err, del)
	}
	_, err = c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+arn)
	_, err = c.DeleteBackup(bg, &dynamodb.DeleteBackupInput{BackupArn: aws.String(arn)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+arn)
}

// A backup is found by its ARN whatever region the ARN names, and a plain
// table's backup describes no features.
func TestBackupARNRegionIgnored(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	out, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("bk-1")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.BackupDetails.BackupArn)
	// Backups carry no tags.
	notResource := "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: " + arn
	_, err = c.TagResource(bg, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	wantAPIError(t, err, "ValidationException", notResource)
	_, err = c.ListTagsOfResource(bg, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	wantAPIError(t, err, "ValidationException", notResource)
	_, err = c.UntagResource(bg, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"k"}})
	wantAPIError(t, err, "ValidationException", notResource)
	other := regexp.MustCompile(`:us-east-1:`).ReplaceAllString(arn, ":eu-west-2:")
	d, err := c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(other)})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(d.BackupDescription.BackupDetails.BackupArn); got != other {
		t.Fatalf("BackupArn answered %s, want the ARN as given %s", got, other)
	}
	otherService := regexp.MustCompile(`:dynamodb:`).ReplaceAllString(arn, ":s3:")
	_, err = c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(otherService)})
	wantAPIError(t, err, "ValidationException", "BackupArn is not valid")
	f := d.BackupDescription.SourceTableFeatureDetails
	if f == nil || f.GlobalSecondaryIndexes != nil || f.LocalSecondaryIndexes != nil || f.StreamDescription != nil ||
		f.TimeToLiveDescription != nil || f.SSEDescription != nil {
		t.Fatalf("features of a plain table: %+v", f)
	}
	if d.BackupDescription.SourceTableDetails.BillingMode != types.BillingModePayPerRequest ||
		aws.ToInt64(d.BackupDescription.SourceTableDetails.ProvisionedThroughput.ReadCapacityUnits) != 0 {
		t.Fatalf("SourceTableDetails %+v", d.BackupDescription.SourceTableDetails)
	}
}

// The errors of the backup operations, in DynamoDB's types and words.
func TestBackupErrors(t *testing.T) {
	c := ddb()
	missing := uniqueTable("nobk")
	_, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(missing), BackupName: aws.String("b")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'b' at 'backupName' failed to satisfy constraint: Member must have length greater than or equal to 3")
	_, err = c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(missing), BackupName: aws.String("")})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: Value '' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "+
		"Value '' at 'backupName' failed to satisfy constraint: Member must have length greater than or equal to 3")
	_, err = c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(missing), BackupName: aws.String("bk1")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: "+missing)

	unknown := "arn:aws:dynamodb:us-east-1:000000000000:table/" + missing + "/backup/01791504762511-2779fadd"
	_, err = c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(unknown)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+unknown)
	_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(unknown), TargetTableName: aws.String(missing)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+unknown)
	tableARN := "arn:aws:dynamodb:us-east-1:000000000000:table/" + missing + "-and-some-more"
	_, err = c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: aws.String(tableARN)})
	wantAPIError(t, err, "ValidationException", "Invalid Backup ARN")
	_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(tableARN), TargetTableName: aws.String(missing)})
	wantAPIError(t, err, "ValidationException", "Invalid Backup ARN")

	_, err = c.ListBackups(bg, &dynamodb.ListBackupsInput{TimeRangeLowerBound: aws.Time(time.Now()), TimeRangeUpperBound: aws.Time(time.Now().Add(-time.Hour))})
	wantAPIError(t, err, "ValidationException", "Time range lower bound must be less than or equal to upper bound")
	typ, msg := rawCall(t, shared, "ListBackups", `{"Limit":101}`)
	if typ != "ValidationException" || msg != "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100" {
		t.Fatalf("Limit 101: %s %q", typ, msg)
	}

	// Restores: the target must be free, the overrides must fit the backup.
	table := backupTable(t, c, 3)
	out, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("bk-1")})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.BackupDetails.BackupArn
	waitBackupAvailable(t, c, *arn)
	_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(table)})
	wantAPIError(t, err, "TableAlreadyExistsException", "Table already exists: "+table)
	_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(table + "-x"),
		GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{{IndexName: aws.String("other"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}})
	wantAPIError(t, err, "ValidationException", "Index other does not match a secondary index that existed in the source table and cannot be created during the restore operation")
	_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(table + "-x"),
		BillingModeOverride: types.BillingModePayPerRequest, ProvisionedThroughputOverride: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
	wantAPIError(t, err, "ValidationException", "Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED")

	ppr := createTable(t, c, "pk", "", "")
	out, err = c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(ppr), BackupName: aws.String("bk-1")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: out.BackupDetails.BackupArn, TargetTableName: aws.String(ppr + "-x"),
		BillingModeOverride: types.BillingModeProvisioned})
	wantAPIError(t, err, "ValidationException", "Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED")
}

// Index overrides choose among the backup's indexes: an empty list drops
// them all, a renamed index of the same keys and projection is restored
// under its new name; a billing mode override applies.
func TestRestoreOverrides(t *testing.T) {
	c := ddb()
	table := backupTable(t, c, 10)
	out, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("bk-1")})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.BackupDetails.BackupArn
	waitBackupAvailable(t, c, *arn)

	bare := table + "-bare"
	if _, err := c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(bare),
		GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{}, LocalSecondaryIndexOverride: []types.LocalSecondaryIndex{},
		BillingModeOverride: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	td := waitTableActive(t, c, bare)
	if len(td.GlobalSecondaryIndexes) != 0 || len(td.LocalSecondaryIndexes) != 0 || len(td.AttributeDefinitions) != 2 ||
		td.BillingModeSummary == nil || td.BillingModeSummary.BillingMode != types.BillingModePayPerRequest || !countIs(td.ItemCount, 10) {
		t.Fatalf("restore without indexes: %+v", td)
	}

	// A second restore of the same backup waits for the first to finish.
	renamed := table + "-renamed"
	for {
		_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(renamed),
			GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG2"),
				KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
				Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4)}}}})
		if err == nil {
			break
		}
		wantAPIError(t, err, "BackupInUseException", "Backup is being used to restore another table: "+*arn)
		time.Sleep(5 * time.Millisecond)
	}
	td = waitTableActive(t, c, renamed)
	if len(td.GlobalSecondaryIndexes) != 1 || aws.ToString(td.GlobalSecondaryIndexes[0].IndexName) != "byG2" ||
		aws.ToInt64(td.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits) != 3 || len(td.LocalSecondaryIndexes) != 1 {
		t.Fatalf("restore with a renamed GSI: %+v", td)
	}
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(renamed), IndexName: aws.String("byG2"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": S("g0")}, Select: types.SelectCount})
	if err != nil || q.Count != 4 {
		t.Fatalf("renamed GSI query: %v %+v", err, q)
	}
}

// ListBackups pages by Limit and ExclusiveStartBackupArn, oldest first,
// and filters by table (name or ARN), time (lower bound inclusive, upper
// exclusive) and type.
func TestListBackups(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	var arns []string
	var times []time.Time
	for i := 0; i < 3; i++ {
		out, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("same")})
		if err != nil {
			t.Fatal(err)
		}
		arns = append(arns, *out.BackupDetails.BackupArn)
		times = append(times, *out.BackupDetails.BackupCreationDateTime)
		time.Sleep(3 * time.Millisecond)
	}
	list := func(in *dynamodb.ListBackupsInput) ([]string, *string) {
		t.Helper()
		out, err := c.ListBackups(bg, in)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range out.BackupSummaries {
			got = append(got, *s.BackupArn)
		}
		return got, out.LastEvaluatedBackupArn
	}
	want := func(what string, got, want []string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
	got, last := list(&dynamodb.ListBackupsInput{TableName: aws.String(table), Limit: aws.Int32(2)})
	want("page 1", got, arns[:2])
	if aws.ToString(last) != arns[1] {
		t.Fatalf("LastEvaluatedBackupArn %v", aws.ToString(last))
	}
	got, last = list(&dynamodb.ListBackupsInput{TableName: aws.String(table), Limit: aws.Int32(2), ExclusiveStartBackupArn: last})
	want("page 2", got, arns[2:])
	if last != nil {
		t.Fatalf("LastEvaluatedBackupArn on the last page: %v", *last)
	}
	_, last = list(&dynamodb.ListBackupsInput{TableName: aws.String(table), Limit: aws.Int32(3)})
	if last != nil {
		t.Fatalf("LastEvaluatedBackupArn when Limit is the count: %v", *last)
	}
	arn, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = list(&dynamodb.ListBackupsInput{TableName: arn.Table.TableArn, TimeRangeLowerBound: aws.Time(times[1]), TimeRangeUpperBound: aws.Time(times[2])})
	want("time range", got, arns[1:2])
	got, _ = list(&dynamodb.ListBackupsInput{TableName: aws.String(table), BackupType: types.BackupTypeFilterSystem})
	want("SYSTEM", got, nil)
	got, _ = list(&dynamodb.ListBackupsInput{TableName: aws.String(table), BackupType: types.BackupTypeFilterAll})
	want("ALL", got, arns)
	// A deleted backup's ARN is still a position to resume from.
	if _, err := c.DeleteBackup(bg, &dynamodb.DeleteBackupInput{BackupArn: aws.String(arns[0])}); err != nil {
		t.Fatal(err)
	}
	got, _ = list(&dynamodb.ListBackupsInput{TableName: aws.String(table), ExclusiveStartBackupArn: aws.String(arns[0])})
	want("after a deleted backup", got, arns[1:])
}

// Backups and restores in progress survive a restart: the backup is still
// there, and a restored table interrupted before it was ACTIVE finishes.
func TestBackupSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	k := startKura(t, "--data-dir", dir)
	c := k.client()
	table := backupTable(t, c, 300)
	out, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("bk-1")})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.BackupDetails.BackupArn
	waitBackupAvailable(t, c, *arn)
	target := table + "-r"
	if _, err := c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(target)}); err != nil {
		t.Fatal(err)
	}
	k.kill()

	k = startKura(t, "--data-dir", dir)
	c = k.client()
	if d := waitBackupAvailable(t, c, *arn); !countIs(d.SourceTableDetails.ItemCount, 300) {
		t.Fatalf("backup after restart: %+v", d.SourceTableDetails)
	}
	waitTableActive(t, c, target)
	if got := scanCount(t, c, target); got != 300 {
		t.Fatalf("restored table after restart: %d items", got)
	}
}

// A restored table's vector index is built from the restored items and
// answers SearchVectors; an empty VectorIndexOverride drops it.
func TestRestoreVectorIndex(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	if err := addVector(c, table, vecCreate("vix", "emb", 3)); err != nil {
		t.Fatal(err)
	}
	waitTableActive(t, c, table)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		d, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		if v := d.Table.VectorIndexes; len(v) == 1 && v[0].IndexStatus == types.IndexStatusActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("vector index never ACTIVE")
		}
	}
	vec := func(a, b, c string) types.AttributeValue {
		return &types.AttributeValueMemberL{Value: []types.AttributeValue{N(a), N(b), N(c)}}
	}
	for i, v := range []types.AttributeValue{vec("1", "0", "0"), vec("0", "1", "0"), vec("0", "0", "1")} {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": S(strconv.Itoa(i)), "emb": v}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("vec")})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.BackupDetails.BackupArn
	d := waitBackupAvailable(t, c, *arn)
	if v := d.SourceTableFeatureDetails.VectorIndexes; len(v) != 1 || aws.ToInt64(v[0].Dimensions) != 3 {
		t.Fatalf("backup's vector indexes: %+v", v)
	}
	target := table + "-r"
	if _, err := c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(target)}); err != nil {
		t.Fatal(err)
	}
	td := waitTableActive(t, c, target)
	if len(td.VectorIndexes) != 1 || td.VectorIndexes[0].IndexStatus != types.IndexStatusActive {
		t.Fatalf("restored vector indexes: %+v", td.VectorIndexes)
	}
	s, err := c.SearchVectors(bg, &dynamodb.SearchVectorsInput{TableName: aws.String(target), IndexName: aws.String("vix"),
		SearchVector: searchVec([]float64{0, 0.9, 0.1}), TopK: aws.Int32(1)})
	if err != nil || len(s.SearchResults) != 1 || s.SearchResults[0].Item["pk"].(*types.AttributeValueMemberS).Value != "1" {
		t.Fatalf("SearchVectors on the restored table: %v %+v", err, s)
	}
	bare := table + "-nv"
	for {
		_, err = c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String(bare),
			VectorIndexOverride: []types.VectorIndex{}})
		if err == nil {
			break
		}
		wantAPIError(t, err, "BackupInUseException", "Backup is being used to restore another table: "+*arn)
		time.Sleep(5 * time.Millisecond)
	}
	if td := waitTableActive(t, c, bare); len(td.VectorIndexes) != 0 || len(td.AttributeDefinitions) != 1 {
		t.Fatalf("restore without vector indexes: %+v", td)
	}
}

// A table with point-in-time recovery on can be restored to any time of
// its window: each item as it was then, its indexes with it. The window
// runs from the enabling to five minutes ago (the server's clock is
// advanced through its admin endpoint).
func TestRestoreToPointInTime(t *testing.T) {
	k := startKura(t, "--in-memory", "--admin")
	c := k.client()
	table := backupTable(t, c, 0)
	item := func(tbl, pk string, sk int) map[string]types.AttributeValue {
		t.Helper()
		out, err := c.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(tbl), Key: map[string]types.AttributeValue{"pk": S(pk), "sk": N(strconv.Itoa(sk))}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	restore := func(target string, at *time.Time) {
		t.Helper()
		in := &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table), TargetTableName: aws.String(target)}
		if at != nil {
			in.RestoreDateTime = at
		} else {
			in.UseLatestRestorableTime = aws.Bool(true)
		}
		out, err := c.RestoreTableToPointInTime(bg, in)
		if err != nil {
			t.Fatal(err)
		}
		if rs := out.TableDescription.RestoreSummary; rs == nil || rs.SourceBackupArn != nil || !aws.ToBool(rs.RestoreInProgress) {
			t.Fatalf("RestoreSummary %+v", rs)
		}
		waitTableActive(t, c, target)
	}

	_, err := c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
		TargetTableName: aws.String(table + "-x"), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table '"+table+"'")
	if _, err := c.UpdateContinuousBackups(bg, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(table),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		putItem(t, c, table, i) // items 0, 1, 2: v "value i"
	}
	k.admin(t, "/admin/clock/advance?by=10m")
	cb, err := c.DescribeContinuousBackups(bg, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	enabled := *cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.EarliestRestorableDateTime
	then := enabled.Add(5 * time.Minute)
	if _, err := c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("p0"), "sk": N("0")},
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("changed")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S("p1"), "sk": N("1")}}); err != nil {
		t.Fatal(err)
	}
	putItem(t, c, table, 3)
	k.admin(t, "/admin/clock/advance?by=10m")

	early := table + "-early"
	restore(early, &then)
	if got := item(early, "p0", 0); got == nil || got["v"].(*types.AttributeValueMemberS).Value != "value 0" {
		t.Fatalf("item 0 as it was: %v", got)
	}
	if item(early, "p1", 1) == nil || item(early, "p3", 3) != nil || scanCount(t, c, early) != 3 {
		t.Fatal("items deleted or added since are not as they were")
	}
	q, err := c.Query(bg, &dynamodb.QueryInput{TableName: aws.String(early), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": S("g1")}})
	if err != nil || len(q.Items) != 1 {
		t.Fatalf("restored GSI: %v %+v", err, q)
	}

	latest := table + "-latest"
	restore(latest, nil)
	if got := item(latest, "p0", 0); got == nil || got["v"].(*types.AttributeValueMemberS).Value != "changed" {
		t.Fatalf("item 0 at the latest time: %v", got)
	}
	if item(latest, "p1", 1) != nil || item(latest, "p3", 3) == nil || scanCount(t, c, latest) != 3 {
		t.Fatal("latest restore misses the changes")
	}

	// Errors, in DynamoDB's order and words.
	before := enabled.Add(-time.Hour)
	_, err = c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
		TargetTableName: aws.String(table), RestoreDateTime: &before})
	cb, _ = c.DescribeContinuousBackups(bg, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(table)})
	last := *cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.LatestRestorableDateTime
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
	wantAPIError(t, err, "InvalidRestoreTimeException", "RestoreDateTime '"+iso(before)+"' must be within EarliestRestorableDateTime '"+
		iso(enabled)+"' and LatestRestorableDateTime '"+iso(last)+"'")
	_, err = c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
		TargetTableName: aws.String(early), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "TableAlreadyExistsException", "Table already exists: "+early)
	_, err = c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table),
		TargetTableName: aws.String(early), UseLatestRestorableTime: aws.Bool(true), RestoreDateTime: &then})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for point-in-time restore request. "+
		"Please specify either RestoreDateTime time or UseLatestRestorableTime")
	_, err = c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table), TargetTableName: aws.String(early)})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both")
	_, err = c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{TargetTableName: aws.String(early), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "ValidationException", "The parameter 'TableName' is required")
	_, err = c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table), SourceTableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/" + table),
		TargetTableName: aws.String(early), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "ValidationException", "Must provide exactly one of: sourceTableArn, sourceTableName")
	_, err = c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(table + "-none"),
		TargetTableName: aws.String(early), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: "+table+"-none")
	_, err = c.RestoreTableToPointInTime(bg, &dynamodb.RestoreTableToPointInTimeInput{SourceTableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/" + table + "-none"),
		TargetTableName: aws.String(early), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "TableNotFoundException", "Table not found")
}

// An on-demand table with a GSI restored as provisioned: the table takes
// the override's throughput and its GSI, which recorded none, the same.
func TestRestoreOnDemandAsProvisioned(t *testing.T) {
	c := ddb()
	table := uniqueTable("bkod")
	createGTable(t, c, table)
	out, err := c.CreateBackup(bg, &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String("ondemand")})
	if err != nil {
		t.Fatal(err)
	}
	target := table + "-prov"
	if _, err := c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: out.BackupDetails.BackupArn, TargetTableName: aws.String(target),
		BillingModeOverride: types.BillingModeProvisioned, ProvisionedThroughputOverride: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(4), WriteCapacityUnits: aws.Int64(2)}}); err != nil {
		t.Fatal(err)
	}
	td := waitTableActive(t, c, target)
	if td.BillingModeSummary == nil || td.BillingModeSummary.BillingMode != types.BillingModeProvisioned ||
		aws.ToInt64(td.ProvisionedThroughput.ReadCapacityUnits) != 4 || len(td.GlobalSecondaryIndexes) != 1 ||
		aws.ToInt64(td.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits) != 2 {
		t.Fatalf("restored as provisioned: %+v %+v", td, td.GlobalSecondaryIndexes)
	}
}

// Deleting a table with point-in-time recovery on leaves a SYSTEM backup
// of it, as DynamoDB does: listed only when SYSTEM or ALL backups are
// asked for, restorable, not deletable, expiring after 35 days.
func TestSystemBackupOfDeletedTable(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	if _, err := c.UpdateContinuousBackups(bg, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(table),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(strconv.Itoa(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		t.Fatal(err)
	}
	l, err := c.ListBackups(bg, &dynamodb.ListBackupsInput{TableName: aws.String(table)})
	if err != nil || len(l.BackupSummaries) != 0 {
		t.Fatalf("USER backups after the delete: %v %+v", err, l)
	}
	l, err = c.ListBackups(bg, &dynamodb.ListBackupsInput{TableName: aws.String(table), BackupType: types.BackupTypeFilterSystem})
	if err != nil || len(l.BackupSummaries) != 1 {
		t.Fatalf("SYSTEM backups after the delete: %v %+v", err, l)
	}
	s := l.BackupSummaries[0]
	arn := aws.ToString(s.BackupArn)
	if aws.ToString(s.BackupName) != table+"$DeletedTableBackup" || s.BackupType != types.BackupTypeSystem || !regexp.MustCompile(`/backup/\d{14}-00000000$`).MatchString(arn) ||
		s.BackupExpiryDateTime == nil || !s.BackupExpiryDateTime.Equal(s.BackupCreationDateTime.AddDate(0, 0, 35)) {
		t.Fatalf("system backup %+v", s)
	}
	d, err := c.DescribeBackup(bg, &dynamodb.DescribeBackupInput{BackupArn: s.BackupArn})
	if err != nil || d.BackupDescription.SourceTableFeatureDetails == nil || d.BackupDescription.SourceTableFeatureDetails.TimeToLiveDescription != nil ||
		!countIs(d.BackupDescription.SourceTableDetails.ItemCount, 5) {
		t.Fatalf("DescribeBackup: %v %+v", err, d)
	}
	_, err = c.DeleteBackup(bg, &dynamodb.DeleteBackupInput{BackupArn: s.BackupArn})
	wantAPIError(t, err, "ValidationException", "Invalid Request: User is not allowed to delete the system backup with arn "+arn+
		". It will automatically expire on "+s.BackupExpiryDateTime.UTC().Format(time.RFC3339))
	if _, err := c.RestoreTableFromBackup(bg, &dynamodb.RestoreTableFromBackupInput{BackupArn: s.BackupArn, TargetTableName: aws.String(table)}); err != nil {
		t.Fatal(err)
	}
	waitTableActive(t, c, table)
	if n := scanCount(t, c, table); n != 5 {
		t.Fatalf("restored %d items of 5", n)
	}
}
