package engine

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// awsManagedKeyAlias names the AWS managed key of DynamoDB, which a KMS
// SSESpecification without KMSMasterKeyId also uses.
const awsManagedKeyAlias = "alias/aws/dynamodb"

// sseDescription describes an enabled SSESpecification (KMS).
func (e *Engine) sseDescription(s *wire.SSESpecification) *wire.SSEDescription {
	return &wire.SSEDescription{Status: "ENABLED", SSEType: "KMS", KMSMasterKeyArn: cpPtr(e.kmsKeyARN(cpDeref(s.KMSMasterKeyId)))}
}

// kmsKeyARN is the key ARN DynamoDB reports for a KMSMasterKeyId: an ARN
// as given; a key ID within this region and account; an alias (the AWS
// managed key's when none is given) stands for a key whose ID Kura, with
// no KMS to ask, derives from the alias, so that one alias always means
// one key (DynamoDB reports the same managed key ARN for every table of an
// account and region).
func (e *Engine) kmsKeyARN(id string) string {
	if strings.HasPrefix(id, "arn:") {
		return id
	}
	if id == "" {
		id = awsManagedKeyAlias
	}
	if strings.HasPrefix(id, "alias/") {
		h := sha256.Sum256([]byte(e.cfg.Region + "/" + e.cfg.AccountID + "/" + id))
		h[6] = h[6]&0x0f | 0x40
		h[8] = h[8]&0x3f | 0x80
		id = fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
	}
	return fmt.Sprintf("arn:aws:kms:%s:%s:key/%s", e.cfg.Region, e.cfg.AccountID, strings.TrimPrefix(id, "key/"))
}

// AWSManagedKeyARN is the ARN of DynamoDB's AWS managed key in the
// engine's region and account (what a KMS SSESpecification without a key
// uses): global tables tell it from a customer managed key.
func (e *Engine) AWSManagedKeyARN() string { return e.kmsKeyARN("") }

// checkSameKMSKey refuses an UpdateTable that names the key the table is
// already encrypted with.
func (e *Engine) checkSameKMSKey(s *wire.SSESpecification, cur *wire.SSEDescription) *ddberr.Error {
	if s.KMSMasterKeyId == nil || cur == nil || e.kmsKeyARN(*s.KMSMasterKeyId) != cpDeref(cur.KMSMasterKeyArn) {
		return nil
	}
	return ddberr.InvalidParam("Table is already encrypted with given KMSMasterKeyId. Use KMSMasterKeyId parameter if you want to change Master Key")
}
