package imports

import (
	"cmp"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Table is the table an import creates, as the core made it.
type Table struct {
	ID                uint64
	Name              string
	TableArn, TableId *string
	Target            Target
}

// Catalog is what a request needs from the core's catalog.
type Catalog interface {
	// Lock and Unlock hold the core's DDL lock.
	Lock()
	Unlock()
	// Create creates the import's table from cin, CREATING: CreateTable's
	// checks of the name and the definition, ResourceInUseException when
	// the name is taken. Callers hold the lock.
	Create(cin *wire.CreateTableInput) (Table, error)
}

// Import is ImportTable: a new table, CREATING while the objects under
// S3BucketSource's prefix are read into it, ACTIVE when they are.
// Formats: DYNAMODB_JSON ({"Item":{...}} per line, as exports write
// them) and CSV (a header line or HeaderList; key attributes typed as
// the table defines them, every other column a string). ION is refused
// with a ValidationException that says so. Compression: NONE, GZIP, ZSTD.
func (m *Imports) Import(in *wire.ImportTableInput) (*wire.ImportTableDescription, error) {
	if m.opts.Objects == nil {
		return nil, ddberr.Validation("Imports from S3 need an object store: start Kura with --s3-dir or --s3-endpoint")
	}
	if in.InputFormat == "ION" {
		return nil, ddberr.Validation("InputFormat ION is not supported by Kura; use DYNAMODB_JSON or CSV")
	}
	if in.InputFormatOptions != nil && in.InputFormat != "CSV" {
		return nil, ddberr.Validation("InputFormatOptions apply to the CSV InputFormat only")
	}
	if prev, err := m.ByToken(in); prev != nil || err != nil {
		return prev, err
	}
	p := in.TableCreationParameters
	cin := &wire.CreateTableInput{
		TableName: p.TableName, AttributeDefinitions: p.AttributeDefinitions, KeySchema: p.KeySchema,
		BillingMode: p.BillingMode, ProvisionedThroughput: p.ProvisionedThroughput, OnDemandThroughput: p.OnDemandThroughput,
		SSESpecification: p.SSESpecification, GlobalSecondaryIndexes: p.GlobalSecondaryIndexes, VectorIndexes: p.VectorIndexes,
	}
	cat := m.opts.Catalog
	cat.Lock()
	defer cat.Unlock()
	t, err := cat.Create(cin)
	if err != nil {
		return nil, err
	}
	now := m.opts.Now()
	rec := &Record{TableID: t.ID, Desc: wire.ImportTableDescription{
		ImportArn:               wire.Ptr(ARN(m.opts.Region, m.opts.Account, t.Name, now)),
		TableArn:                t.TableArn,
		TableId:                 t.TableId,
		ClientToken:             in.ClientToken,
		S3BucketSource:          in.S3BucketSource,
		InputFormat:             in.InputFormat,
		InputFormatOptions:      in.InputFormatOptions,
		InputCompressionType:    cmp.Or(in.InputCompressionType, "NONE"),
		TableCreationParameters: p,
		StartTime:               wire.NewTime(now),
		ErrorCount:              wire.Ptr[int64](0),
		ProcessedItemCount:      wire.Ptr[int64](0),
		ImportedItemCount:       wire.Ptr[int64](0),
	}}
	return m.Start(rec, t.Target)
}
