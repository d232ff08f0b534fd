package api

import (
	"context"
)

// routes maps an operation name (the part of X-Amz-Target after
// "DynamoDB_20120810.") to its handler.
var routes = map[string]handler{
	"CreateTable":                         createTable,
	"DescribeTable":                       describeTable,
	"ListTables":                          listTables,
	"DeleteTable":                         deleteTable,
	"UpdateTable":                         updateTable,
	"TagResource":                         tagResource,
	"UntagResource":                       untagResource,
	"ListTagsOfResource":                  listTagsOfResource,
	"PutResourcePolicy":                   putResourcePolicy,
	"GetResourcePolicy":                   getResourcePolicy,
	"DeleteResourcePolicy":                deleteResourcePolicy,
	"ExportTableToPointInTime":            exportTableToPointInTime,
	"DescribeExport":                      describeExport,
	"ListExports":                         listExports,
	"ImportTable":                         importTable,
	"DescribeImport":                      describeImport,
	"ListImports":                         listImports,
	"StartBulkPutItems":                   startBulkPutItems,
	"DescribeBulkOperation":               describeBulkOperation,
	"ListBulkOperations":                  listBulkOperations,
	"CancelBulkOperation":                 cancelBulkOperation,
	"DescribeLimits":                      describeLimits,
	"DescribeEndpoints":                   describeEndpoints,
	"DescribeContinuousBackups":           describeContinuousBackups,
	"UpdateContinuousBackups":             updateContinuousBackups,
	"CreateBackup":                        createBackup,
	"DescribeBackup":                      describeBackup,
	"DeleteBackup":                        deleteBackup,
	"ListBackups":                         listBackups,
	"RestoreTableFromBackup":              restoreTableFromBackup,
	"RestoreTableToPointInTime":           restoreTableToPointInTime,
	"DescribeContributorInsights":         describeContributorInsights,
	"UpdateContributorInsights":           updateContributorInsights,
	"ListContributorInsights":             listContributorInsights,
	"DescribeTimeToLive":                  describeTimeToLive,
	"UpdateTimeToLive":                    updateTimeToLive,
	"EnableKinesisStreamingDestination":   enableKinesisStreamingDestination,
	"DisableKinesisStreamingDestination":  disableKinesisStreamingDestination,
	"UpdateKinesisStreamingDestination":   updateKinesisStreamingDestination,
	"DescribeKinesisStreamingDestination": describeKinesisStreamingDestination,
	"PutItem":                             putItem,
	"GetItem":                             getItem,
	"UpdateItem":                          updateItem,
	"DeleteItem":                          deleteItem,
	"Query":                               query,
	"Scan":                                scan,
	"BatchGetItem":                        batchGetItem,
	"BatchWriteItem":                      batchWriteItem,
	"SearchVectors":                       searchVectors,
	"TransactWriteItems":                  transactWriteItems,
	"TransactGetItems":                    transactGetItems,
	"ExecuteStatement":                    executeStatement,
	"BatchExecuteStatement":               batchExecuteStatement,
	"ExecuteTransaction":                  executeTransaction,
	// Global tables version 2017.11.29 (Legacy): DynamoDB's fixed answers.
	"CreateGlobalTable":           createGlobalTable,
	"UpdateGlobalTable":           updateGlobalTable,
	"DescribeGlobalTable":         describeGlobalTable,
	"DescribeGlobalTableSettings": describeGlobalTableSettings,
	"UpdateGlobalTableSettings":   updateGlobalTableSettings,
	"ListGlobalTables":            listGlobalTables,
	// Global tables version 2019.11.21: the auto scaling of replicas.
	"DescribeTableReplicaAutoScaling": describeTableReplicaAutoScaling,
	"UpdateTableReplicaAutoScaling":   updateTableReplicaAutoScaling,
}

// Operations lists the operations this server routes.
func Operations() []string { return sortedKeys(routes) }

// op builds a handler from a Backend method expression and a member
// constraint check (nil when the operation has none): decode the body into
// a fresh I, validate, call, and hand back the output for encoding.
func op[I, O any](call func(Backend, context.Context, *I) (*O, error), validate func(*I) error) handler {
	return func(ctx context.Context, b Backend, body []byte) (any, error) {
		in := new(I)
		if ok, err := fastDecode(body, in); err != nil {
			return nil, err
		} else if !ok {
			if err := decode(body, in); err != nil {
				return nil, err
			}
		}
		marked := markEmptyEnums(body, in)
		if validate != nil {
			if err := validate(in); err != nil {
				return nil, err
			}
		}
		unmarkEmptyEnums(marked)
		if err := authorize(ctx, b, in); err != nil {
			return nil, err
		}
		out, err := call(b, ctx, in)
		if err != nil {
			return nil, asCaller(ctx, err)
		}
		if out == nil {
			return nil, nil
		}
		return out, nil
	}
}
