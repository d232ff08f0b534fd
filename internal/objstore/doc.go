// Package objstore is where Kura reads and writes the Amazon S3 objects of
// DynamoDB's S3 features (ExportTableToPointInTime, ImportTable,
// StartBulkPutItems): a Store of buckets and keys, with two implementations
// that pass one conformance suite (objstoretest):
//
//   - Dir keeps objects in a local folder (--s3-dir), one subfolder per
//     bucket, so exports land, and imports are read, where a laptop or a CI
//     job can reach them.
//   - S3 reads and writes a real S3 or S3-compatible service
//     (--s3-endpoint) through the AWS SDK for Go v2, with the SDK's
//     credential chain, retries with backoff, and multipart uploads for
//     objects larger than one part.
//
// Neither keeps state in memory beyond an object being written: Dir's is a
// temporary file beside the object, S3's is the part being filled (and the
// multipart upload's ID and its parts' ETags). Nothing is rebuilt at
// start; a write a stop interrupted leaves a temporary file (Dir, never
// listed) or an incomplete multipart upload (S3, which the bucket's
// lifecycle rules clean up) and the job that wrote it writes it again.
//
// Errors: ErrNoSuchBucket, ErrAccessDenied and ErrInvalidKey wrap what
// either store answers, so that a job's FailureCode does not depend on
// where its objects are.
package objstore
