package tables

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Table and index statuses as DynamoDB reports them.
const (
	StatusCreating = "CREATING"
	StatusActive   = "ACTIVE"
	StatusUpdating = "UPDATING"
	StatusDeleting = "DELETING"
)

// Billing modes.
const (
	BillingProvisioned   = "PROVISIONED"
	BillingPayPerRequest = "PAY_PER_REQUEST"
)

// Projection types of secondary indexes.
const (
	ProjectAll      = "ALL"
	ProjectKeysOnly = "KEYS_ONLY"
	ProjectInclude  = "INCLUDE"
)

// Limits on secondary indexes per table and on capacity.
const (
	MaxGSIs = 20
	MaxLSIs = 5
	// MaxCapacityUnits is the largest throughput DynamoDB accepts at all.
	MaxCapacityUnits = 1000000000000
)

// Default warm throughput DynamoDB reports for on-demand tables and GSIs.
const (
	WarmReadOnDemand  = 12000
	WarmWriteOnDemand = 4000
)

// Account is the region and account a server answers for: the ARNs it
// gives tables and KMS keys, and the region its limit refusals name.
type Account struct {
	Region, AccountID string
}

// TableARN is the ARN of a table in this region and account.
func (a Account) TableARN(name string) string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", a.Region, a.AccountID, name)
}

// awsManagedKeyAlias names the AWS managed key of DynamoDB, which a KMS
// SSESpecification without KMSMasterKeyId also uses.
const awsManagedKeyAlias = "alias/aws/dynamodb"

// SSEDescription describes an enabled SSESpecification (KMS).
func (a Account) SSEDescription(s *wire.SSESpecification) *wire.SSEDescription {
	return &wire.SSEDescription{Status: "ENABLED", SSEType: "KMS", KMSMasterKeyArn: wire.Ptr(a.KMSKeyARN(wire.Deref(s.KMSMasterKeyId)))}
}

// KMSKeyARN is the key ARN DynamoDB reports for a KMSMasterKeyId: an ARN
// as given; a key ID within this region and account; an alias (the AWS
// managed key's when none is given) stands for a key whose ID Kura, with
// no KMS to ask, derives from the alias, so that one alias always means
// one key (DynamoDB reports the same managed key ARN for every table of an
// account and region).
func (a Account) KMSKeyARN(id string) string {
	if strings.HasPrefix(id, "arn:") {
		return id
	}
	if id == "" {
		id = awsManagedKeyAlias
	}
	if strings.HasPrefix(id, "alias/") {
		h := sha256.Sum256([]byte(a.Region + "/" + a.AccountID + "/" + id))
		h[6] = h[6]&0x0f | 0x40
		h[8] = h[8]&0x3f | 0x80
		id = fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
	}
	return fmt.Sprintf("arn:aws:kms:%s:%s:key/%s", a.Region, a.AccountID, strings.TrimPrefix(id, "key/"))
}

// StreamLabel formats a stream label (an ISO 8601 timestamp, milliseconds,
// no zone) as DynamoDB does.
func StreamLabel(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000")
}

// NewUUID returns a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// KeyNames are the attribute names of a key schema, in order.
func KeyNames(ks []wire.KeySchemaElement) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = wire.Deref(k.AttributeName)
	}
	return out
}

// CheckSameKMSKey refuses an UpdateTable that names the key the table is
// already encrypted with.
func (a Account) CheckSameKMSKey(s *wire.SSESpecification, cur *wire.SSEDescription) *ddberr.Error {
	if s.KMSMasterKeyId == nil || cur == nil || a.KMSKeyARN(*s.KMSMasterKeyId) != wire.Deref(cur.KMSMasterKeyArn) {
		return nil
	}
	return ddberr.InvalidParam("Table is already encrypted with given KMSMasterKeyId. Use KMSMasterKeyId parameter if you want to change Master Key")
}

// NameOf returns the table name a TableName member refers to: the
// name itself, or the name inside a table ARN
// (arn:<partition>:dynamodb:<region>:<account>:table/<name>), which
// DynamoDB accepts wherever a TableName is read. As in DynamoDB Local the
// ARN's region and account are not compared with the server's (with
// --shared-db=false one server answers for many). Anything else, an index
// or stream ARN included, is returned unchanged and so names no table.
func NameOf(s string) string {
	if !strings.HasPrefix(s, "arn:") {
		return s
	}
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[2] != "dynamodb" {
		return s
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return s
	}
	return name
}
