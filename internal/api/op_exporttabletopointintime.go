package api

import "github.com/kura-db/kura/internal/wire"

// ExportTableToPointInTime's member constraints (the model's lengths and
// sets; the S3 bucket's name is checked by the object store).
var exportTableToPointInTime = op(Backend.ExportTableToPointInTime, func(in *wire.ExportTableToPointInTimeInput) error {
	var v validator
	v.notNull("tableArn", in.TableArn == nil)
	v.strLen("tableArn", in.TableArn, 1, 1024)
	v.notNull("s3Bucket", in.S3Bucket == nil)
	v.strLen("s3Bucket", in.S3Bucket, 0, 255)
	v.strLen("s3Prefix", in.S3Prefix, 0, 1024)
	v.strLen("s3SseKmsKeyId", in.S3SseKmsKeyId, 1, 2048)
	v.enum("s3SseAlgorithm", in.S3SseAlgorithm, []string{"AES256", "KMS"})
	v.enum("exportFormat", in.ExportFormat, []string{"DYNAMODB_JSON", "ION"})
	v.enum("exportType", in.ExportType, []string{"FULL_EXPORT", "INCREMENTAL_EXPORT"})
	return v.err()
})
