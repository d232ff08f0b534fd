// Package expr implements DynamoDB expressions in three separate phases.
//
//  1. Parse: a hand-written lexer and recursive-descent parser turn the text of
//     a condition (ConditionExpression, FilterExpression,
//     KeyConditionExpression), update or projection expression into an AST.
//     Parsing checks everything that depends on the text alone: syntax,
//     length, nesting depth, reserved words, function names and arities,
//     redundant parentheses, and clause repetition.
//  2. Resolve: a Params built from one request's ExpressionAttributeNames and
//     ExpressionAttributeValues substitutes #name and :value placeholders in
//     every AST of the request, records which were used, and runs the checks
//     that need the substituted values (operand types, BETWEEN bounds,
//     distinct operands, overlapping update paths). CheckUnused reports
//     placeholders that no expression used.
//  3. Evaluate: Condition.Eval tests an item, Update.Apply computes the new
//     item (copy-on-write, the input is never mutated), Projection.Apply
//     projects an item. AnalyzeKeyCondition turns a key condition into key
//     ranges for Query.
//
// The legacy request parameters (Expected, QueryFilter, ScanFilter,
// KeyConditions, AttributeUpdates, AttributesToGet) are converted into the
// same ASTs, so there is one evaluator.
//
// Errors found while checking the request carry DynamoDB's
// "1 validation error detected: " prefix (ddberr.RequestInvalid); errors that
// arise while evaluating against an item do not (ddberr.Validation).
package expr
