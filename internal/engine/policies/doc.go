// Package policies owns the resource-based policies of tables and
// streams (PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy,
// CreateTable's ResourcePolicy): the stored Record of one policy (its
// document and RevisionId), the Set of a table's policies (the table's
// under "", its stream's under the stream's ARN), what a document must be
// (Check: the size, then internal/iam's grammar), what an
// ExpectedRevisionId demands (CheckRevision), the next RevisionId
// (NextRevision), and the lookup api's authorizer makes on every request
// (Set.Document: no error built when there is none), in DynamoDB's words.
//
// The core resolves the resource a request names (the ARN, its account,
// the table, its current stream), holds the DDL lock while it changes a
// Set, and keeps each table's Set in its table record (catalog.go:
// tableRecord.Policies, stored as the record's "policies"); the package
// never imports internal/engine. Evaluating a policy is internal/iam's.
//
// State in memory: none of its own. The Sets are part of the catalog,
// read at Open with the table records and replaced with them; another
// node reads them from the store the same way.
package policies
