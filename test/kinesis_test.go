package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Texts of the destination operations' refusals: DynamoDB's, as measured
// against it (ack-api-quirks findings DDB-TABLE-268, -300 and -302, which
// localstack's texts agree with).
const (
	kinNotValid      = "Table is not in a valid state to enable Kinesis Streaming Destination: "
	kinEnableRefused = kinNotValid + "EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform ENABLE operation."
	kinDisableRefuse = kinNotValid + "KinesisStreamingDestination must be ACTIVE to perform DISABLE operation."
	kinNullUpdate    = "Streaming destination cannot be updated with given parameters: UpdateKinesisStreamingConfiguration cannot be null or contain only null values"
)

// TestKinesisDestinationStates drives the four operations through every
// state: ENABLING → ACTIVE, UPDATING (held two minutes, as DynamoDB's: the
// test moves the clock), DISABLING → DISABLED, ENABLE_FAILED for a stream
// that does not exist, and each refusal with DynamoDB's text.
func TestKinesisDestinationStates(t *testing.T) {
	ep := kinesisEndpoint(t)
	k := startKuraKinesis(t, ep, "--in-memory", "--admin")
	c := k.client()
	kc := kinesisClient(ep)
	_, arn := createKinesisStream(t, kc, 1)
	_, arn2 := createKinesisStream(t, kc, 1)
	table := createTable(t, c, "pk", "", "")
	tn := aws.String(table)

	out, err := c.DescribeKinesisStreamingDestination(bg, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: tn})
	if err != nil || aws.ToString(out.TableName) != table || len(out.KinesisDataStreamDestinations) != 0 {
		t.Fatalf("fresh table: %v %+v", err, out)
	}
	en, err := c.EnableKinesisStreamingDestination(bg, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: tn, StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	if en.DestinationStatus != types.DestinationStatusEnabling || aws.ToString(en.StreamArn) != arn || aws.ToString(en.TableName) != table ||
		en.EnableKinesisStreamingConfiguration == nil || en.EnableKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision != "" {
		t.Fatalf("Enable answered %+v", en)
	}
	waitDestination(t, c, table, arn, types.DestinationStatusEnabling)
	d := waitDestination(t, c, table, arn, types.DestinationStatusActive)
	if d.ApproximateCreationDateTimePrecision != "" || d.DestinationStatusDescription != nil {
		t.Fatalf("ACTIVE destination shows %s %q (DynamoDB shows neither until a precision is set)", d.ApproximateCreationDateTimePrecision, aws.ToString(d.DestinationStatusDescription))
	}

	// One live destination a table.
	_, err = c.EnableKinesisStreamingDestination(bg, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: tn, StreamArn: aws.String(arn2)})
	wantAPIError(t, err, "ValidationException", kinEnableRefused)

	// Update: the implicit default is MILLISECOND; a configuration is required.
	desc, err := c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: tn})
	if err != nil {
		t.Fatal(err)
	}
	update := func(arn string, p types.ApproximateCreationDateTimePrecision) (*dynamodb.UpdateKinesisStreamingDestinationOutput, error) {
		in := &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: tn, StreamArn: aws.String(arn)}
		if p != "" {
			in.UpdateKinesisStreamingConfiguration = &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: p}
		}
		return c.UpdateKinesisStreamingDestination(bg, in)
	}
	_, err = update(arn, types.ApproximateCreationDateTimePrecisionMillisecond)
	wantAPIError(t, err, "ValidationException", "Invalid Request: Precision is already set to the desired value of MILLISECOND for tableId: "+aws.ToString(desc.Table.TableId)+", kdsArn: "+arn)
	_, err = update(arn, "")
	wantAPIError(t, err, "ValidationException", kinNullUpdate)
	_, err = update(arn2, types.ApproximateCreationDateTimePrecisionMicrosecond)
	wantAPIError(t, err, "ValidationException", kinNotValid+"No streaming destination with streamArn: "+arn2+" found for table with tableName: "+table)
	up, err := update(arn, types.ApproximateCreationDateTimePrecisionMicrosecond)
	if err != nil || up.DestinationStatus != types.DestinationStatusUpdating ||
		up.UpdateKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("Update: %v %+v", err, up)
	}
	if d := waitDestination(t, c, table, arn, types.DestinationStatusUpdating); d.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("UPDATING destination shows precision %q, want the new one", d.ApproximateCreationDateTimePrecision)
	}
	_, err = update(arn, types.ApproximateCreationDateTimePrecisionMillisecond)
	wantAPIError(t, err, "ValidationException", kinNotValid+"Kinesis streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. TableName: "+table)
	disable := func(arn string) (*dynamodb.DisableKinesisStreamingDestinationOutput, error) {
		return c.DisableKinesisStreamingDestination(bg, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: tn, StreamArn: aws.String(arn)})
	}
	_, err = disable(arn)
	wantAPIError(t, err, "ValidationException", kinDisableRefuse)
	k.admin(t, "/admin/clock/advance?by=2m") // UPDATING lasts two minutes
	if d := waitDestination(t, c, table, arn, types.DestinationStatusActive); d.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("updated destination shows precision %q", d.ApproximateCreationDateTimePrecision)
	}

	// Disable: DISABLING, then DISABLED; only an ACTIVE one can be, and
	// never with an EnableKinesisStreamingConfiguration (DynamoDB's
	// refusal, DDB-TABLE-301); an empty one is no configuration.
	_, err = disable(arn2)
	wantAPIError(t, err, "ValidationException", kinDisableRefuse)
	_, err = c.DisableKinesisStreamingDestination(bg, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: tn, StreamArn: aws.String(arn),
		EnableKinesisStreamingConfiguration: &types.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}})
	wantAPIError(t, err, "ValidationException", "Stream cannot be disabled using EnableKinesisStreamingConfiguration parameters")
	if d := waitDestination(t, c, table, arn, types.DestinationStatusActive); d.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("refused Disable changed the destination: precision %q", d.ApproximateCreationDateTimePrecision)
	}
	_, raw := rawPost(t, k.endpoint, "DisableKinesisStreamingDestination",
		strings.NewReader(`{"TableName":"`+table+`","StreamArn":"`+arn+`","EnableKinesisStreamingConfiguration":{}}`))
	var dis struct{ DestinationStatus, StreamArn string }
	if err := json.Unmarshal(raw, &dis); err != nil || dis.DestinationStatus != "DISABLING" || dis.StreamArn != arn {
		t.Fatalf("Disable (with an empty configuration): %v %s", err, raw)
	}
	if d := waitDestination(t, c, table, arn, types.DestinationStatusDisabled); d.ApproximateCreationDateTimePrecision != "" {
		t.Fatalf("DISABLED destination shows precision %q", d.ApproximateCreationDateTimePrecision)
	}
	_, err = disable(arn)
	wantAPIError(t, err, "ValidationException", kinDisableRefuse)
	_, err = update(arn, types.ApproximateCreationDateTimePrecisionMillisecond)
	wantAPIError(t, err, "ValidationException", kinNotValid+"Kinesis streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. TableName: "+table)

	// A stream that does not exist: accepted, then ENABLE_FAILED.
	missing := arn + "-missing"
	if _, err := c.EnableKinesisStreamingDestination(bg, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: tn, StreamArn: aws.String(missing)}); err != nil {
		t.Fatalf("Enable of a missing stream: %v (DynamoDB accepts it and fails later)", err)
	}
	if d := waitDestination(t, c, table, missing, types.DestinationStatusEnableFailed); aws.ToString(d.DestinationStatusDescription) != "User does not have a permission to use kinesis stream" {
		t.Fatalf("ENABLE_FAILED description %q", aws.ToString(d.DestinationStatusDescription))
	}
	// Re-enabling the disabled stream flips its entry, with the precision
	// reset; the failed one stays listed.
	enableAndWait(t, c, table, arn, nil)
	all, err := c.DescribeKinesisStreamingDestination(bg, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: tn})
	if err != nil || len(all.KinesisDataStreamDestinations) != 2 {
		t.Fatalf("destinations: %v %s", err, describeDests(all.KinesisDataStreamDestinations))
	}
	for _, d := range all.KinesisDataStreamDestinations {
		if aws.ToString(d.StreamArn) == arn && d.ApproximateCreationDateTimePrecision != "" {
			t.Fatalf("re-enabled destination kept precision %s", d.ApproximateCreationDateTimePrecision)
		}
	}

	// DescribeTable shows no destination, and no DynamoDB stream: the
	// destination is independent of it.
	desc, err = c.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: tn})
	if err != nil || desc.Table.StreamSpecification != nil || desc.Table.LatestStreamArn != nil {
		t.Fatalf("DescribeTable: %v %+v", err, desc.Table)
	}

	// A missing table, and member constraints.
	_, err = c.DescribeKinesisStreamingDestination(bg, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(table + "_missing")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+table+"_missing not found")
	typ, msg := rawCall(t, k, "EnableKinesisStreamingDestination", `{"TableName":"`+table+`","StreamArn":"arn:aws:kinesis"}`)
	if typ != "ValidationException" || msg != "1 validation error detected: Value 'arn:aws:kinesis' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to 37" {
		t.Fatalf("short StreamArn: %s %s", typ, msg)
	}
	typ, msg = rawCall(t, k, "EnableKinesisStreamingDestination", `{"TableName":"`+table+`","StreamArn":"`+arn+`","EnableKinesisStreamingConfiguration":{"ApproximateCreationDateTimePrecision":"SECOND"}}`)
	if typ != "ValidationException" || msg != "1 validation error detected: Value 'SECOND' at 'enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision' failed to satisfy constraint: Member must satisfy enum value set: [MILLISECOND, MICROSECOND]" {
		t.Fatalf("bad precision: %s %s", typ, msg)
	}
	typ, msg = rawCall(t, k, "DisableKinesisStreamingDestination", `{"TableName":"`+table+`"}`)
	if typ != "ValidationException" || msg != "1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: Member must not be null" {
		t.Fatalf("no StreamArn: %s %s", typ, msg)
	}
}

// TestKinesisWithoutEndpoint: with no --kinesis-endpoint Enable is refused
// with a clear error; Describe answers.
func TestKinesisWithoutEndpoint(t *testing.T) {
	c := ddb()
	table := createTable(t, c, "pk", "", "")
	_, err := c.EnableKinesisStreamingDestination(bg, &dynamodb.EnableKinesisStreamingDestinationInput{
		TableName: aws.String(table), StreamArn: aws.String("arn:aws:kinesis:us-east-1:000000000000:stream/s")})
	wantAPIError(t, err, "ValidationException", "Kinesis streaming destinations put records to Kinesis Data Streams: start Kura with --kinesis-endpoint")
	out, err := c.DescribeKinesisStreamingDestination(bg, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(table)})
	if err != nil || len(out.KinesisDataStreamDestinations) != 0 {
		t.Fatalf("Describe: %v %+v", err, out)
	}
}

// TestKinesisRecords reads back, field by field, the records of every
// kind of change from every write path: PutItem, UpdateItem, DeleteItem,
// BatchWriteItem, TransactWriteItems, PartiQL and a TTL deletion (whose
// userIdentity names the service).
func TestKinesisRecords(t *testing.T) {
	ep := kinesisEndpoint(t)
	k := startKuraKinesis(t, ep, "--in-memory", "--admin")
	c := k.client()
	kc := kinesisClient(ep)
	stream, arn := createKinesisStream(t, kc, 2)
	table := createTable(t, c, "pk", "sk", types.ScalarAttributeTypeN)
	tn := aws.String(table)
	if _, err := c.UpdateTimeToLive(bg, &dynamodb.UpdateTimeToLiveInput{TableName: tn,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	enableAndWait(t, c, table, arn, nil)

	key := map[string]types.AttributeValue{"pk": S("a"), "sk": N("1")}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	before := time.Now().Add(-time.Second)
	must(c.PutItem(bg, &dynamodb.PutItemInput{TableName: tn, Item: map[string]types.AttributeValue{"pk": S("a"), "sk": N("1"), "v": S("one")}}))
	must(c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: tn, Key: key, UpdateExpression: aws.String("SET v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("two")}}))
	// A write that changes nothing puts no record.
	must(c.UpdateItem(bg, &dynamodb.UpdateItemInput{TableName: tn, Key: key, UpdateExpression: aws.String("SET v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": S("two")}}))
	must(c.DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: tn, Key: key}))
	must(c.BatchWriteItem(bg, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
		{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": S("b"), "sk": N("1")}}}}}}))
	must(c.TransactWriteItems(bg, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: tn, Item: map[string]types.AttributeValue{"pk": S("c"), "sk": N("1")}}}}}))
	must(c.ExecuteStatement(bg, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "` + table + `" VALUE {'pk': 'd', 'sk': 1}`)}))
	past := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	must(c.PutItem(bg, &dynamodb.PutItemInput{TableName: tn, Item: map[string]types.AttributeValue{"pk": S("e"), "sk": N("1"), "exp": N(past)}}))
	k.admin(t, "/admin/ttl/expire")
	after := time.Now().Add(time.Second)

	recs := waitKinesis(t, kc, stream, 8, 10*time.Second)
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	byKey := map[string][]ddbKinesisRecord{}
	pks := map[string]string{}
	ids := map[string]bool{}
	for _, r := range recs {
		if r.AwsRegion != "us-east-1" || r.RecordFormat != "application/json" || r.TableName != table || r.EventSource != "aws:dynamodb" ||
			r.Dynamodb.ApproximateCreationDateTimePrecision != "MILLISECOND" || r.Dynamodb.SizeBytes <= 0 {
			t.Fatalf("record %s", r.raw)
		}
		if at := time.UnixMilli(r.Dynamodb.ApproximateCreationDateTime); at.Before(before) || at.After(after) {
			t.Fatalf("ApproximateCreationDateTime %v not in milliseconds of now: %s", at, r.raw)
		}
		if len(r.EventID) != 36 || ids[r.EventID] {
			t.Fatalf("eventID %q (want a fresh UUID)", r.EventID)
		}
		ids[r.EventID] = true
		pk := string(r.Dynamodb.Keys["pk"])
		if p, ok := pks[pk]; ok && p != r.partitionKey {
			t.Fatalf("item %s under partition keys %s and %s", pk, p, r.partitionKey)
		}
		pks[pk] = r.partitionKey
		if len(r.partitionKey) != 32 {
			t.Fatalf("Kinesis partition key %q", r.partitionKey)
		}
		byKey[pk] = append(byKey[pk], r)
	}
	a := byKey[`{"S":"a"}`]
	if len(a) != 3 || a[0].EventName != "INSERT" || a[1].EventName != "MODIFY" || a[2].EventName != "REMOVE" {
		t.Fatalf("item a's records: %v", a)
	}
	wantJSON(t, a[0].raw, "dynamodb.Keys", `{"pk":{"S":"a"},"sk":{"N":"1"}}`)
	wantJSON(t, a[0].raw, "dynamodb.NewImage", `{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"one"}}`)
	wantJSON(t, a[0].raw, "dynamodb.OldImage", ``)
	wantJSON(t, a[0].raw, "userIdentity", `null`)
	wantJSON(t, a[1].raw, "dynamodb.OldImage", `{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"one"}}`)
	wantJSON(t, a[1].raw, "dynamodb.NewImage", `{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"two"}}`)
	wantJSON(t, a[2].raw, "dynamodb.NewImage", ``)
	wantJSON(t, a[2].raw, "dynamodb.OldImage", `{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"two"}}`)
	wantJSON(t, a[2].raw, "userIdentity", `null`)
	// SizeBytes counts the keys and the images: a MODIFY has two.
	if a[1].Dynamodb.SizeBytes <= a[0].Dynamodb.SizeBytes {
		t.Fatalf("SizeBytes %d of a MODIFY, %d of its INSERT", a[1].Dynamodb.SizeBytes, a[0].Dynamodb.SizeBytes)
	}
	for _, pk := range []string{`{"S":"b"}`, `{"S":"c"}`, `{"S":"d"}`} {
		if rs := byKey[pk]; len(rs) != 1 || rs[0].EventName != "INSERT" {
			t.Fatalf("item %s's records: %v", pk, rs)
		}
	}
	e := byKey[`{"S":"e"}`]
	if len(e) != 2 || e[1].EventName != "REMOVE" {
		t.Fatalf("item e's records: %v", e)
	}
	wantJSON(t, e[1].raw, "userIdentity", `{"type":"Service","principalId":"dynamodb.amazonaws.com"}`)
}

// TestKinesisMicrosecondPrecision: a destination enabled with MICROSECOND
// gives ApproximateCreationDateTime in microseconds; a change made while
// it is still ENABLING arrives once it is ACTIVE.
func TestKinesisMicrosecondPrecision(t *testing.T) {
	ep := kinesisEndpoint(t)
	k := startKuraKinesis(t, ep, "--in-memory")
	c := k.client()
	kc := kinesisClient(ep)
	stream, arn := createKinesisStream(t, kc, 1)
	table := createTable(t, c, "pk", "", "")
	if _, err := c.EnableKinesisStreamingDestination(bg, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String(table), StreamArn: aws.String(arn),
		EnableKinesisStreamingConfiguration: &types.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}}); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S("a")}}); err != nil {
		t.Fatal(err)
	}
	d := waitDestination(t, c, table, arn, types.DestinationStatusActive)
	if d.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("destination precision %q", d.ApproximateCreationDateTimePrecision)
	}
	r := waitKinesis(t, kc, stream, 1, 10*time.Second)[0]
	at := time.UnixMicro(r.Dynamodb.ApproximateCreationDateTime)
	if r.Dynamodb.ApproximateCreationDateTimePrecision != "MICROSECOND" || at.Before(before) || at.After(time.Now().Add(time.Second)) {
		t.Fatalf("record %s", r.raw)
	}
}

// wantJSON checks one member (a dotted path) of a record's JSON; want ""
// means absent.
func wantJSON(t *testing.T, raw []byte, path string, want string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var got json.RawMessage
	for {
		head, rest, more := cut(path)
		got = m[head]
		if !more {
			break
		}
		m = nil
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("%s in %s: %v", head, raw, err)
		}
		path = rest
	}
	if (want == "") != (got == nil) || want != "" && !sameJSON(got, []byte(want)) {
		t.Fatalf("%s = %s, want %s\nin %s", path, got, want, raw)
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func cut(path string) (head, rest string, more bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

// TestBoto3Kinesis runs the Kinesis destination flow of
// test/clients/python/test_boto3_kinesis.py (boto3's dynamodb and kinesis
// clients) against Kura and kinesalite.
func TestBoto3Kinesis(t *testing.T) {
	ep := kinesisEndpoint(t)
	if exec.Command("python3", "-c", "import boto3").Run() != nil {
		t.Skip("python3 with boto3 not available")
	}
	k := startKuraKinesis(t, ep, "--in-memory")
	cmd := exec.Command("python3", "-m", "unittest", "-v", "test_boto3_kinesis")
	cmd.Dir = "clients/python"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint, "KURA_KINESIS_ENDPOINT="+ep, "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("boto3 Kinesis flow failed: %v\n%s", err, out)
	}
}

// TestKinesisDeletedTable: DeleteTable is accepted with an ACTIVE
// destination (as DynamoDB's); the changes made before arrive, and a table
// created again under the name has no destination.
func TestKinesisDeletedTable(t *testing.T) {
	ep := kinesisEndpoint(t)
	k := startKuraKinesis(t, ep, "--in-memory")
	c := k.client()
	kc := kinesisClient(ep)
	stream, arn := createKinesisStream(t, kc, 1)
	table := createTable(t, c, "pk", "", "")
	enableAndWait(t, c, table, arn, nil)
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S("a")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		t.Fatal(err)
	}
	waitKinesis(t, kc, stream, 1, 10*time.Second)
	if _, err := c.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.DescribeKinesisStreamingDestination(bg, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(table)})
	if err != nil || len(out.KinesisDataStreamDestinations) != 0 {
		t.Fatalf("the new table's destinations: %v %s", err, describeDests(out.KinesisDataStreamDestinations))
	}
	if _, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S("b")}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if recs := readKinesis(t, kc, stream); len(recs) != 1 {
		t.Fatalf("%d records, want only the old table's one", len(recs))
	}
}

// TestKinesisBulkPutItems: the items of a bulk operation are changes like
// any other, each put to the destination's stream.
func TestKinesisBulkPutItems(t *testing.T) {
	ep := kinesisEndpoint(t)
	s3 := bulkDirs(t)
	k := startKuraKinesis(t, ep, "--in-memory", "--s3-dir", s3)
	c := k.client()
	kc := kinesisClient(ep)
	stream, arn := createKinesisStream(t, kc, 1)
	table := createTable(t, c, "pk", "", "")
	enableAndWait(t, c, table, arn, nil)
	writeInput(t, s3, "load/part-1.json", false, []string{`{"Item":{"pk":{"S":"a"}}}`, `{"Item":{"pk":{"S":"b"},"v":{"N":"2"}}}`})
	start, err := c.StartBulkPutItems(bg, bulkInput(table, "load/", "NONE"))
	if err != nil {
		t.Fatal(err)
	}
	if d := waitBulk(t, c, aws.ToString(start.BulkOperationDescription.BulkOperationArn), 10*time.Second); d.BulkOperationStatus != types.BulkOperationStatusCompleted {
		t.Fatalf("bulk operation %s", d.BulkOperationStatus)
	}
	waitRebuilt(t, kc, stream, scanJSON(t, c, table), 10*time.Second)
}
