// Package arns owns which answer a resource ARN gets (issue 33, item 18):
// its syntax checked in DynamoDB's words (Scope.Parse: a table's ARN or
// its stream's), then authorization (Scope.Authorize: an ARN of another
// account is refused as IAM refuses it, Scope.AccessDenied), then the
// resource lookup (NotFound), in DynamoDB's order; and the table name
// rule an ARN's name must meet (ValidTableName).
//
// The core gives it the region and account it answers for (a Scope) and
// keeps one-line entry points for the operations that check ARNs (the
// tag APIs, resource policies, backups, exports, imports, bulk
// operations, streams); the package never imports internal/engine.
//
// State in memory: none, and nothing to rebuild at Open. Another node
// sharing the store answers for the same region and account, so it gives
// every ARN the same answer.
package arns
