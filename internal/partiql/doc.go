// Package partiql is Kura's hand-written lexer and recursive-descent
// parser for the subset of PartiQL that Amazon DynamoDB accepts:
// SELECT, INSERT, UPDATE (SET/REMOVE), DELETE and EXISTS (in
// transactions), with ? parameters, nested paths, struct/list/bag
// literals and the usual condition operators and functions.
//
// The package only builds an AST; internal/engine lowers statements onto
// its JSON-API operations, so item semantics live in one place. Syntax
// errors are ValidationExceptions with DynamoDB's "Statement wasn't well
// formed, can't be processed: ..." text.
package partiql
