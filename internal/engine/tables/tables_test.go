package tables

import (
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// noIndexes answers the index questions as for a table whose indexes
// raise no objection: the rules of index keys and projections are the
// index code's, tested with it (and through the engine).
type noIndexes struct{}

func (noIndexes) CheckGSIKeySchema(ks []wire.KeySchemaElement, defined map[string]bool, defNames []string) *ddberr.Error {
	return nil
}
func (noIndexes) CheckGSIKeySchemaShape([]wire.KeySchemaElement) *ddberr.Error { return nil }
func (noIndexes) CheckNonKeyTotal(...*wire.Projection) *ddberr.Error           { return nil }
func (noIndexes) VectorKeys([]wire.VectorIndex, map[string]bool) []wire.KeySchemaElement {
	return nil
}
func (noIndexes) VectorAttrDefined(name string) *ddberr.Error              { return nil }
func (noIndexes) OnlineChangeRunning(*wire.TableDescription) bool          { return false }
func (noIndexes) AllProjections(*wire.TableDescription) []*wire.Projection { return nil }
func (noIndexes) VectorIndex(*wire.TableDescription, string) bool          { return false }
func (noIndexes) PruneDefinitions(d *wire.TableDescription)                { PruneAttributeDefinitions(d) }
func (noIndexes) VectorOfAttr(*wire.TableDescription, string) *wire.VectorIndexDescription {
	return nil
}
func (noIndexes) DeletesBackfilling(*wire.TableDescription, *wire.DeleteGlobalSecondaryIndexAction) bool {
	return false
}
func (noIndexes) VectorBuilding(*wire.TableDescription) bool { return false }
func (noIndexes) CheckCreateVectors(in *wire.CreateTableInput, _ string) *ddberr.Error {
	if len(in.VectorIndexes) > 0 {
		return ddberr.Validation("no vector indexes here")
	}
	return nil
}
func (noIndexes) VectorDeleteAllocating(*wire.TableDescription, string, *wire.DeleteVectorIndexAction) *ddberr.Error {
	return nil
}

const ip = "One or more parameter values were invalid: "

var acct = Account{Region: "us-east-1", AccountID: "000000000000"}

func ks(names ...string) []wire.KeySchemaElement {
	out := make([]wire.KeySchemaElement, len(names))
	for i, n := range names {
		kt := "HASH"
		if i == 1 {
			kt = "RANGE"
		}
		out[i] = wire.KeySchemaElement{AttributeName: wire.Ptr(n), KeyType: kt}
	}
	return out
}

func defs(pairs ...string) []wire.AttributeDefinition {
	var out []wire.AttributeDefinition
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, wire.AttributeDefinition{AttributeName: wire.Ptr(pairs[i]), AttributeType: pairs[i+1]})
	}
	return out
}

func pt(r, w int64) *wire.ProvisionedThroughput {
	return &wire.ProvisionedThroughput{ReadCapacityUnits: wire.Ptr(r), WriteCapacityUnits: wire.Ptr(w)}
}

func ppr() *wire.CreateTableInput {
	return &wire.CreateTableInput{TableName: wire.Ptr("tbl"), BillingMode: BillingPayPerRequest,
		KeySchema: ks("pk"), AttributeDefinitions: defs("pk", "S")}
}

func wantErr(t *testing.T, err *ddberr.Error, typ, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s: %s", typ, msg)
	}
	if err.Type != typ || err.Message != msg {
		t.Fatalf("got %s: %q\nwant %s: %q", err.Type, err.Message, typ, msg)
	}
}

// TestValidateCreate: CreateTable's own rules in DynamoDB's order and
// words, and the billing mode a valid request gets.
func TestValidateCreate(t *testing.T) {
	proj := &wire.Projection{ProjectionType: ProjectAll}
	cases := []struct {
		name, typ, msg string
		mod            func(in *wire.CreateTableInput)
	}{
		{"ppr with throughput", "ValidationException", ip + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
			func(in *wire.CreateTableInput) { in.ProvisionedThroughput = pt(5, 5) }},
		{"provisioned without throughput", "ValidationException", ip + "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED",
			func(in *wire.CreateTableInput) { in.BillingMode = "" }},
		{"out of bounds", "ValidationException", "Given value 1000000000001 for WriteCapacityUnits is out of bounds",
			func(in *wire.CreateTableInput) {
				in.BillingMode, in.ProvisionedThroughput = "", pt(1, MaxCapacityUnits+1)
			}},
		{"duplicate definition", "ValidationException", "Attribute Name is duplicated: pk",
			func(in *wire.CreateTableInput) { in.AttributeDefinitions = defs("pk", "S", "pk", "N") }},
		{"missing definition", "ValidationException", ip + "Some index key attributes are not defined in AttributeDefinitions. Keys: [pk], AttributeDefinitions: [x]",
			func(in *wire.CreateTableInput) { in.AttributeDefinitions = defs("x", "S") }},
		{"missing definition two keys", "ValidationException", "Invalid KeySchema: Some index key attribute have no definition",
			func(in *wire.CreateTableInput) { in.KeySchema = ks("pk", "sk") }},
		{"unused definition", "ValidationException", ip + "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions",
			func(in *wire.CreateTableInput) { in.AttributeDefinitions = defs("pk", "S", "x", "N") }},
		{"too many LSIs", "ValidationException", ip + "Number of LocalSecondaryIndexes exceeds per-table limit of 5",
			func(in *wire.CreateTableInput) {
				in.KeySchema = ks("pk", "sk")
				in.AttributeDefinitions = defs("pk", "S", "sk", "S")
				for i := range MaxLSIs + 1 {
					in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, wire.LocalSecondaryIndex{
						IndexName: wire.Ptr("l" + strings.Repeat("x", i)), KeySchema: ks("pk", "sk"), Projection: proj})
				}
			}},
		{"include without attributes", "ValidationException", ip + "ProjectionType is INCLUDE, but NonKeyAttributes is not specified",
			func(in *wire.CreateTableInput) {
				in.AttributeDefinitions = defs("pk", "S", "g", "S")
				in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: wire.Ptr("g"), KeySchema: ks("g"),
					Projection: &wire.Projection{ProjectionType: ProjectInclude}}}
			}},
		{"on-demand out of range", "ValidationException", ip + "Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range",
			func(in *wire.CreateTableInput) {
				in.OnDemandThroughput = &wire.OnDemandThroughput{MaxWriteRequestUnits: wire.Ptr[int64](0)}
			}},
		{"warm below on-demand", "ValidationException", ip + "Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. " + msgWarmOnDemandDoc,
			func(in *wire.CreateTableInput) {
				in.WarmThroughput = &wire.WarmThroughput{ReadUnitsPerSecond: wire.Ptr[int64](WarmReadOnDemand - 1)}
			}},
		{"AES256", "ValidationException", ip + "SSEType AES256 is not supported",
			func(in *wire.CreateTableInput) { in.SSESpecification = &wire.SSESpecification{SSEType: "AES256"} }},
		{"KMS key without KMS", "ValidationException", ip + "SSEType KMS is required if KMSMasterKeyId is specified",
			func(in *wire.CreateTableInput) {
				in.SSESpecification = &wire.SSESpecification{Enabled: wire.Ptr(true), KMSMasterKeyId: wire.Ptr("k")}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ppr()
			c.mod(in)
			_, err := ValidateCreate(in, noIndexes{})
			wantErr(t, err, c.typ, c.msg)
		})
	}
	in := ppr()
	in.BillingMode, in.ProvisionedThroughput = "", pt(5, 5)
	if billing, err := ValidateCreate(in, noIndexes{}); err != nil || billing != BillingProvisioned {
		t.Fatalf("billing %q, %v; want PROVISIONED", billing, err)
	}
}

// TestCreateCaps: the account's per-table maxima, in the region's words.
func TestCreateCaps(t *testing.T) {
	in := ppr()
	in.BillingMode, in.ProvisionedThroughput = "", pt(MaxTableCapacity+1, 1)
	wantErr(t, acct.CheckCreateCaps(in), "LimitExceededException",
		"The requested ReadCapacityUnits, 40001, is above the per table maximum for the account in us-east-1. Per table maximum: 40000. "+
			"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
	in = ppr()
	in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: wire.Ptr("g"),
		OnDemandThroughput: &wire.OnDemandThroughput{MaxWriteRequestUnits: wire.Ptr[int64](MaxTableCapacity + 1)}}}
	wantErr(t, acct.CheckCreateCaps(in), "LimitExceededException",
		"Subscriber limit exceeded: Requested MaxWriteRequestUnits for OnDemandThroughput for index : g exceeds TableMaxWriteCapacityUnits of the account in region us-east-1")
}

// TestValidateCreateTable: the request's own checks, then the caps, then
// the vector indexes, and the billing mode they settle on.
func TestValidateCreateTable(t *testing.T) {
	in := ppr()
	in.BillingMode, in.ProvisionedThroughput = "", pt(MaxTableCapacity+1, 1)
	in.VectorIndexes = []wire.VectorIndex{{}}
	_, err := acct.ValidateCreateTable(in, noIndexes{})
	wantErr(t, err, "LimitExceededException",
		"The requested ReadCapacityUnits, 40001, is above the per table maximum for the account in us-east-1. Per table maximum: 40000. "+
			"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
	in.ProvisionedThroughput = pt(1, 1)
	_, err = acct.ValidateCreateTable(in, noIndexes{})
	wantErr(t, err, "ValidationException", "no vector indexes here")
	in.VectorIndexes = nil
	if billing, err := acct.ValidateCreateTable(in, noIndexes{}); err != nil || billing != BillingProvisioned {
		t.Fatalf("billing %q, %v", billing, err)
	}
}

// TestNewDescription: the stored definition of a new table and the
// response CreateTable shows of it.
func TestNewDescription(t *testing.T) {
	now := time.Date(2026, 10, 9, 12, 0, 0, 0, time.UTC)
	in := ppr()
	in.AttributeDefinitions = defs("pk", "S", "a", "N")
	in.GlobalSecondaryIndexes = []wire.GlobalSecondaryIndex{{IndexName: wire.Ptr("g"), KeySchema: ks("a"),
		Projection: &wire.Projection{ProjectionType: ProjectInclude, NonKeyAttributes: []string{"z", "b"}}}}
	in.StreamSpecification = &wire.StreamSpecification{StreamEnabled: wire.Ptr(true), StreamViewType: "KEYS_ONLY"}
	in.SSESpecification = &wire.SSESpecification{Enabled: wire.Ptr(true)}
	d := acct.NewDescription(in, BillingPayPerRequest, now)
	if got := wire.Deref(d.TableArn); got != "arn:aws:dynamodb:us-east-1:000000000000:table/tbl" {
		t.Fatalf("TableArn %s", got)
	}
	if a := d.AttributeDefinitions; wire.Deref(a[0].AttributeName) != "a" || wire.Deref(a[1].AttributeName) != "pk" {
		t.Fatalf("definitions not sorted by name: %+v", a)
	}
	if got := wire.Deref(d.LatestStreamArn); got != "arn:aws:dynamodb:us-east-1:000000000000:table/tbl/stream/2026-10-09T12:00:00.000" {
		t.Fatalf("LatestStreamArn %s", got)
	}
	g := d.GlobalSecondaryIndexes[0]
	if nk := g.Projection.NonKeyAttributes; nk[0] != "b" || nk[1] != "z" {
		t.Fatalf("NonKeyAttributes not sorted: %v", nk)
	}
	if wire.Deref(g.WarmThroughput.ReadUnitsPerSecond) != WarmReadOnDemand || wire.Deref(d.WarmThroughput.WriteUnitsPerSecond) != WarmWriteOnDemand {
		t.Fatalf("warm throughput %+v %+v", g.WarmThroughput, d.WarmThroughput)
	}
	if d.BillingModeSummary.LastUpdateToPayPerRequestDateTime == nil {
		t.Fatal("no LastUpdateToPayPerRequestDateTime")
	}
	if k := wire.Deref(d.SSEDescription.KMSMasterKeyArn); k != acct.KMSKeyARN("alias/aws/dynamodb") || !strings.HasPrefix(k, "arn:aws:kms:us-east-1:000000000000:key/") {
		t.Fatalf("KMSMasterKeyArn %s", k)
	}

	CreateResponse(&d, in, BillingPayPerRequest)
	if d.TableStatus != StatusCreating || d.WarmThroughput != nil || d.BillingModeSummary.LastUpdateToPayPerRequestDateTime != nil ||
		d.GlobalSecondaryIndexes[0].IndexStatus != StatusCreating || d.GlobalSecondaryIndexes[0].WarmThroughput != nil {
		t.Fatalf("CreateTable response %+v", d)
	}
}

// TestKMSKeyARN: an ARN as given, a key ID within the account, one key
// per alias.
func TestKMSKeyARN(t *testing.T) {
	if got := acct.KMSKeyARN("arn:aws:kms:eu-west-1:1:key/x"); got != "arn:aws:kms:eu-west-1:1:key/x" {
		t.Fatal(got)
	}
	if got := acct.KMSKeyARN("1234"); got != "arn:aws:kms:us-east-1:000000000000:key/1234" {
		t.Fatal(got)
	}
	a1, a2 := acct.KMSKeyARN("alias/a"), acct.KMSKeyARN("alias/a")
	if a1 != a2 || a1 == acct.KMSKeyARN("alias/b") ||
		acct.KMSKeyARN("") != acct.KMSKeyARN("alias/aws/dynamodb") {
		t.Fatal("an alias does not stand for one key")
	}
	cur := acct.SSEDescription(&wire.SSESpecification{KMSMasterKeyId: wire.Ptr("alias/a")})
	wantErr(t, acct.CheckSameKMSKey(&wire.SSESpecification{KMSMasterKeyId: wire.Ptr("alias/a")}, cur), "ValidationException",
		ip+"Table is already encrypted with given KMSMasterKeyId. Use KMSMasterKeyId parameter if you want to change Master Key")
}
