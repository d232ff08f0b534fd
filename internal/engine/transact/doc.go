// Package transact owns what DynamoDB's transactions (TransactWriteItems,
// TransactGetItems, and ExecuteTransaction through them) answer when they
// are cancelled: TransactionCanceledException with its cancellation
// reasons in request order (cancel.go).
//
// State in memory: none so far.
package transact
