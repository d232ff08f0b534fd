package api

import "github.com/kura-db/kura/internal/wire"

// ImportTable's member constraints (the model's required members, sets and
// lengths); the table's parameters are then checked as CreateTable's.
var importTable = op(Backend.ImportTable, func(in *wire.ImportTableInput) error {
	var v validator
	v.notNull("s3BucketSource", in.S3BucketSource == nil)
	if s := in.S3BucketSource; s != nil {
		v.notNull("s3BucketSource.s3Bucket", s.S3Bucket == nil)
		v.strLen("s3BucketSource.s3Bucket", s.S3Bucket, 0, 255)
		v.strLen("s3BucketSource.s3KeyPrefix", s.S3KeyPrefix, 0, 1024)
	}
	v.notNull("inputFormat", in.InputFormat == "")
	v.enum("inputFormat", in.InputFormat, []string{"DYNAMODB_JSON", "ION", "CSV"})
	v.enum("inputCompressionType", in.InputCompressionType, []string{"GZIP", "ZSTD", "NONE"})
	if o := in.InputFormatOptions; o != nil && o.Csv != nil {
		v.strLen("inputFormatOptions.csv.delimiter", o.Csv.Delimiter, 1, 1)
	}
	v.notNull("tableCreationParameters", in.TableCreationParameters == nil)
	if p := in.TableCreationParameters; p != nil {
		v.notNull("tableCreationParameters.tableName", p.TableName == nil)
	}
	return v.err()
})
