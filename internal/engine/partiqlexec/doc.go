// Package partiqlexec runs DynamoDB's PartiQL operations (ExecuteStatement,
// BatchExecuteStatement, ExecuteTransaction) by lowering each statement,
// parsed by internal/partiql, onto the JSON API operation DynamoDB itself
// maps it to: a SELECT becomes a Query (its WHERE clause pins the partition
// key) or a Scan, or, in a batch or a transaction, a read of one item by
// its full key; INSERT, UPDATE and DELETE become PutItem, UpdateItem and
// DeleteItem with conditions rendered as DynamoDB expressions over
// #name/:value placeholders; EXISTS becomes a ConditionCheck. A
// transaction's statements become one TransactWriteItems or one
// TransactGetItems.
//
// It owns the checks DynamoDB's PartiQL makes that its expression API has
// no counterpart for (checks.go), the shaping of SELECT rows, NextToken
// (a page's LastEvaluatedKey bound to the statement and its parameters)
// and the PartiQL wording of errors (pqError: DuplicateItemException for
// an INSERT of an existing key, bare expression-check texts).
//
// The core gives it a Core (core.go): its table lookup and item
// operations in wire shapes, and its transaction entry points, whose
// answers are the operations' own; the package never imports
// internal/engine.
//
// State in memory: none. Nothing is stored and nothing is rebuilt at Open;
// a NextToken is self-contained (base64 of the statement's 8-byte binding
// and the key), so it stays valid across a restart and on another node
// sharing the store.
package partiqlexec
