package api

import (
	"math"
	"regexp"

	"github.com/kura-db/kura/internal/wire"
)

// StartBulkPutItems' member constraints, from the API reference
// (API_StartBulkPutItems, API_InputS3Configuration,
// API_OutputS3Configuration) and the SDK's doc comments (v1.74.0:
// MaxWriteRequestUnits "must be at least 1,024").
var startBulkPutItems = op(Backend.StartBulkPutItems, func(in *wire.StartBulkPutItemsInput) error {
	var v validator
	v.notNull("inputS3Configuration", in.InputS3Configuration == nil)
	if s := in.InputS3Configuration; s != nil {
		v.notNull("inputS3Configuration.inputFormat", s.InputFormat == "")
		v.enum("inputS3Configuration.inputFormat", s.InputFormat, []string{"DYNAMODB_JSON", "ION"})
		v.notNull("inputS3Configuration.s3Bucket", s.S3Bucket == nil)
		v.s3Bucket("inputS3Configuration.s3Bucket", s.S3Bucket)
		v.strLen("inputS3Configuration.s3KeyPrefix", s.S3KeyPrefix, 0, 1024)
		v.enum("inputS3Configuration.inputCompressionType", s.InputCompressionType, []string{"GZIP", "ZSTD", "NONE"})
		v.accountID("inputS3Configuration.s3BucketOwner", s.S3BucketOwner)
	}
	v.notNull("outputS3Configuration", in.OutputS3Configuration == nil)
	if o := in.OutputS3Configuration; o != nil {
		v.notNull("outputS3Configuration.outputType", o.OutputType == nil)
		for _, t := range o.OutputType {
			v.enum("outputS3Configuration.outputType.member", t, []string{"ERROR", "CONDITION_CHECK_FAILURE"})
		}
		v.s3Bucket("outputS3Configuration.s3Bucket", o.S3Bucket)
		v.strLen("outputS3Configuration.s3KeyPrefix", o.S3KeyPrefix, 0, 1024)
		v.enum("outputS3Configuration.s3SseAlgorithm", o.S3SseAlgorithm, []string{"AES256", "KMS"})
		v.strLen("outputS3Configuration.s3SseKmsKeyId", o.S3SseKmsKeyId, 1, 2048)
		v.accountID("outputS3Configuration.s3BucketOwner", o.S3BucketOwner)
	}
	v.notNull("tableName", in.TableName == nil)
	v.strLen("tableName", in.TableName, 1, 1024)
	if t := in.ClientToken; t != nil && !clientTokenPattern.MatchString(*t) {
		v.add(quote(*t), "clientToken", "Member must satisfy regular expression pattern: "+clientTokenPattern.String())
	}
	if n := in.MaxWriteRequestUnits; n != nil {
		v.int64Range("maxWriteRequestUnits", *n, 1024, math.MaxInt64)
	}
	v.enum("performanceTier", in.PerformanceTier, []string{"STANDARD", "ACCELERATED"})
	return v.err()
})

var (
	clientTokenPattern = regexp.MustCompile(`^[^\$]+$`)
	s3BucketPattern    = regexp.MustCompile(`^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`)
	accountIDPattern   = regexp.MustCompile(`^[0-9]{12}$`)
)

// s3Bucket checks a bucket name member: at most 255 characters, of the
// API reference's pattern.
func (v *validator) s3Bucket(member string, p *string) {
	if p == nil {
		return
	}
	v.maxLen(member, quote(*p), len(*p), 255)
	if !s3BucketPattern.MatchString(*p) {
		v.add(quote(*p), member, "Member must satisfy regular expression pattern: "+s3BucketPattern.String())
	}
}

// accountID checks an S3BucketOwner member: twelve digits.
func (v *validator) accountID(member string, p *string) {
	if p != nil && !accountIDPattern.MatchString(*p) {
		v.add(quote(*p), member, "Member must satisfy regular expression pattern: "+accountIDPattern.String())
	}
}
