package api

import (
	"context"

	"github.com/kura-db/kura/internal/wire"
	"github.com/kura-db/kura/internal/wire/streamswire"
)

// Backend executes DynamoDB operations once the api layer has decoded a
// request and checked its member constraints. *engine.Engine implements it.
// Errors should be *ddberr.Error; any other error is reported to the client
// as InternalServerError.
type Backend interface {
	CreateTable(ctx context.Context, in *wire.CreateTableInput) (*wire.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *wire.DescribeTableInput) (*wire.DescribeTableOutput, error)
	ListTables(ctx context.Context, in *wire.ListTablesInput) (*wire.ListTablesOutput, error)
	DeleteTable(ctx context.Context, in *wire.DeleteTableInput) (*wire.DeleteTableOutput, error)
	UpdateTable(ctx context.Context, in *wire.UpdateTableInput) (*wire.UpdateTableOutput, error)
	TagResource(ctx context.Context, in *wire.TagResourceInput) (*wire.TagResourceOutput, error)
	UntagResource(ctx context.Context, in *wire.UntagResourceInput) (*wire.UntagResourceOutput, error)
	ListTagsOfResource(ctx context.Context, in *wire.ListTagsOfResourceInput) (*wire.ListTagsOfResourceOutput, error)
	PutResourcePolicy(ctx context.Context, in *wire.PutResourcePolicyInput) (*wire.PutResourcePolicyOutput, error)
	GetResourcePolicy(ctx context.Context, in *wire.GetResourcePolicyInput) (*wire.GetResourcePolicyOutput, error)
	DeleteResourcePolicy(ctx context.Context, in *wire.DeleteResourcePolicyInput) (*wire.DeleteResourcePolicyOutput, error)
	ExportTableToPointInTime(ctx context.Context, in *wire.ExportTableToPointInTimeInput) (*wire.ExportTableToPointInTimeOutput, error)
	DescribeExport(ctx context.Context, in *wire.DescribeExportInput) (*wire.DescribeExportOutput, error)
	ListExports(ctx context.Context, in *wire.ListExportsInput) (*wire.ListExportsOutput, error)
	ImportTable(ctx context.Context, in *wire.ImportTableInput) (*wire.ImportTableOutput, error)
	DescribeImport(ctx context.Context, in *wire.DescribeImportInput) (*wire.DescribeImportOutput, error)
	ListImports(ctx context.Context, in *wire.ListImportsInput) (*wire.ListImportsOutput, error)
	StartBulkPutItems(ctx context.Context, in *wire.StartBulkPutItemsInput) (*wire.StartBulkPutItemsOutput, error)
	DescribeBulkOperation(ctx context.Context, in *wire.DescribeBulkOperationInput) (*wire.DescribeBulkOperationOutput, error)
	ListBulkOperations(ctx context.Context, in *wire.ListBulkOperationsInput) (*wire.ListBulkOperationsOutput, error)
	CancelBulkOperation(ctx context.Context, in *wire.CancelBulkOperationInput) (*wire.CancelBulkOperationOutput, error)
	DescribeLimits(ctx context.Context, in *wire.DescribeLimitsInput) (*wire.DescribeLimitsOutput, error)
	DescribeEndpoints(ctx context.Context, in *wire.DescribeEndpointsInput) (*wire.DescribeEndpointsOutput, error)
	DescribeContinuousBackups(ctx context.Context, in *wire.DescribeContinuousBackupsInput) (*wire.DescribeContinuousBackupsOutput, error)
	UpdateContinuousBackups(ctx context.Context, in *wire.UpdateContinuousBackupsInput) (*wire.UpdateContinuousBackupsOutput, error)
	CreateBackup(ctx context.Context, in *wire.CreateBackupInput) (*wire.CreateBackupOutput, error)
	DescribeBackup(ctx context.Context, in *wire.DescribeBackupInput) (*wire.DescribeBackupOutput, error)
	DeleteBackup(ctx context.Context, in *wire.DeleteBackupInput) (*wire.DeleteBackupOutput, error)
	ListBackups(ctx context.Context, in *wire.ListBackupsInput) (*wire.ListBackupsOutput, error)
	RestoreTableFromBackup(ctx context.Context, in *wire.RestoreTableFromBackupInput) (*wire.RestoreTableFromBackupOutput, error)
	RestoreTableToPointInTime(ctx context.Context, in *wire.RestoreTableToPointInTimeInput) (*wire.RestoreTableToPointInTimeOutput, error)
	DescribeContributorInsights(ctx context.Context, in *wire.DescribeContributorInsightsInput) (*wire.DescribeContributorInsightsOutput, error)
	UpdateContributorInsights(ctx context.Context, in *wire.UpdateContributorInsightsInput) (*wire.UpdateContributorInsightsOutput, error)
	ListContributorInsights(ctx context.Context, in *wire.ListContributorInsightsInput) (*wire.ListContributorInsightsOutput, error)
	DescribeTimeToLive(ctx context.Context, in *wire.DescribeTimeToLiveInput) (*wire.DescribeTimeToLiveOutput, error)
	EnableKinesisStreamingDestination(ctx context.Context, in *wire.EnableKinesisStreamingDestinationInput) (*wire.EnableKinesisStreamingDestinationOutput, error)
	DisableKinesisStreamingDestination(ctx context.Context, in *wire.DisableKinesisStreamingDestinationInput) (*wire.DisableKinesisStreamingDestinationOutput, error)
	UpdateKinesisStreamingDestination(ctx context.Context, in *wire.UpdateKinesisStreamingDestinationInput) (*wire.UpdateKinesisStreamingDestinationOutput, error)
	DescribeKinesisStreamingDestination(ctx context.Context, in *wire.DescribeKinesisStreamingDestinationInput) (*wire.DescribeKinesisStreamingDestinationOutput, error)
	PutItem(ctx context.Context, in *wire.PutItemInput) (*wire.PutItemOutput, error)
	GetItem(ctx context.Context, in *wire.GetItemInput) (*wire.GetItemOutput, error)
	UpdateItem(ctx context.Context, in *wire.UpdateItemInput) (*wire.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *wire.DeleteItemInput) (*wire.DeleteItemOutput, error)
	Query(ctx context.Context, in *wire.QueryInput) (*wire.QueryOutput, error)
	Scan(ctx context.Context, in *wire.ScanInput) (*wire.ScanOutput, error)
	BatchGetItem(ctx context.Context, in *wire.BatchGetItemInput) (*wire.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, in *wire.BatchWriteItemInput) (*wire.BatchWriteItemOutput, error)
	SearchVectors(ctx context.Context, in *wire.SearchVectorsInput) (*wire.SearchVectorsOutput, error)
	UpdateTimeToLive(ctx context.Context, in *wire.UpdateTimeToLiveInput) (*wire.UpdateTimeToLiveOutput, error)
	// DynamoDB Streams (target prefix DynamoDBStreams_20120810.).
	ListStreams(ctx context.Context, in *streamswire.ListStreamsInput) (*streamswire.ListStreamsOutput, error)
	DescribeStream(ctx context.Context, in *streamswire.DescribeStreamInput) (*streamswire.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *streamswire.GetShardIteratorInput) (*streamswire.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *streamswire.GetRecordsInput) (*streamswire.GetRecordsOutput, error)
	TransactWriteItems(ctx context.Context, in *wire.TransactWriteItemsInput) (*wire.TransactWriteItemsOutput, error)
	TransactGetItems(ctx context.Context, in *wire.TransactGetItemsInput) (*wire.TransactGetItemsOutput, error)
	ExecuteStatement(ctx context.Context, in *wire.ExecuteStatementInput) (*wire.ExecuteStatementOutput, error)
	BatchExecuteStatement(ctx context.Context, in *wire.BatchExecuteStatementInput) (*wire.BatchExecuteStatementOutput, error)
	ExecuteTransaction(ctx context.Context, in *wire.ExecuteTransactionInput) (*wire.ExecuteTransactionOutput, error)
}

// PolicyLookup is what a Backend may offer authorization, which looks up
// the resource-based policy of the resource of every check: the document
// GetResourcePolicy would answer for arn, if any, without building the
// error of none. *engine.Engine offers it; for a Backend that does not,
// authorization asks GetResourcePolicy.
type PolicyLookup interface {
	ResourcePolicyDocument(ctx context.Context, arn string) (string, bool)
}
