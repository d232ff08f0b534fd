package bulk

import (
	"cmp"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Sources of the requests' rules: the SDK's doc comments
// (aws-sdk-go-v2/service/dynamodb v1.74.0: statuses, counters,
// ClientToken's 8 hours, MaxWriteRequestUnits of at least 1,024,
// PerformanceTier's default, ListBulkOperations' 90 days, most recent
// first, 10 a page) and the developer guide's "Bulk put items" pages
// (BulkPutItems.Format, .Output, .Requesting, .Considerations:
// DYNAMODB_JSON is JSON Lines, per-item condition expressions, the two
// report types, the table must be ACTIVE).

// Table is the table a StartBulkPutItems names, as the core's catalog
// has it.
type Table struct {
	ID      uint64
	Name    string
	TableId *string
	// IndexBuilding: a secondary index of the table is being created.
	IndexBuilding bool
	Target        Target
}

// Catalog is what a request needs from the core's catalog.
type Catalog interface {
	// Lock and Unlock hold the core's DDL lock.
	Lock()
	Unlock()
	// NameOf is the table name a TableName member gives (a name or an ARN).
	NameOf(string) string
	// Active is the ACTIVE table a request's TableName names (the core's
	// answer for a missing or inactive table otherwise).
	Active(name *string) (Table, error)
}

// StartPut is StartBulkPutItems: the objects under an S3 prefix are read,
// record by record, and each record's item is put into an existing table
// through PutItem (so indexes, streams, TTL and capacity see it as any
// other write), under the record's own condition expression when it has
// one. Items that cannot be written are reported to the output bucket
// (report.go).
func (o *Operations) StartPut(in *wire.StartBulkPutItemsInput) (*wire.BulkOperationDescription, error) {
	if o.opts.Objects == nil {
		return nil, ddberr.Validation("Bulk operations read from S3 and need an object store: start Kura with --s3-dir or --s3-endpoint")
	}
	src, out := in.InputS3Configuration, in.OutputS3Configuration
	if src.InputFormat == "ION" {
		return nil, ddberr.Validation("InputFormat ION is not supported by Kura; use DYNAMODB_JSON")
	}
	if out.S3Bucket == nil {
		// The API reference: "The S3Bucket and OutputType fields are required."
		return nil, ddberr.Validation("OutputS3Configuration.S3Bucket is required")
	}
	if out.S3SseKmsKeyId != nil && out.S3SseAlgorithm != "KMS" {
		return nil, ddberr.Validation("S3SseKmsKeyId can only be specified when S3SseAlgorithm is KMS")
	}
	cat := o.opts.Catalog
	if prev, err := o.ByToken(in, cat.NameOf(wire.Deref(in.TableName))); prev != nil || err != nil {
		return prev, err
	}
	cat.Lock()
	defer cat.Unlock()
	t, err := cat.Active(in.TableName)
	if err != nil {
		return nil, err
	}
	if t.IndexBuilding {
		// BulkPutItems.Considerations: not while the table is creating a
		// secondary index.
		return nil, ddberr.Validation("Cannot start a bulk operation on table " + t.Name + " while it is creating a secondary index")
	}
	now := o.opts.Now()
	src.InputCompressionType = cmp.Or(src.InputCompressionType, "NONE")
	rec := &Record{TableID: t.ID, Desc: wire.BulkOperationDescription{
		BulkOperationArn:      wire.Ptr(ARN(o.opts.Region, o.opts.Account, t.Name, now)),
		ClientToken:           in.ClientToken,
		InputS3Configuration:  src,
		OutputS3Configuration: out,
		MaxWriteRequestUnits:  in.MaxWriteRequestUnits,
		PerformanceTier:       cmp.Or(in.PerformanceTier, "STANDARD"),
		StartTime:             wire.NewTime(now),
		ProcessedItemCount:    wire.Ptr[int64](0),
		FailedItemCount:       wire.Ptr[int64](0),
		ProcessedInputBytes:   wire.Ptr[int64](0),
		TableDetails:          []wire.BulkOperationTableDetail{{TableId: t.TableId, TableName: wire.Ptr(t.Name)}},
	}}
	return o.Start(rec, t.Target)
}
