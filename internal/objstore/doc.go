// Package objstore is where Kura reads and writes the Amazon S3 objects of
// DynamoDB's S3 features (ExportTableToPointInTime, ImportTable,
// StartBulkPutItems): a Store of buckets and keys. Dir keeps them in a
// local folder (--s3-dir), one subfolder per bucket, so exports land, and
// imports and bulk loads are read, where a laptop or a CI job can reach
// them.
package objstore
