// Package policies owns the resource-based policies of tables and
// streams: the APIs PutResourcePolicy, GetResourcePolicy and
// DeleteResourcePolicy (the ARN checked by package arns, then its
// account, then the table and its current stream), the stored Record of
// one policy (its document and RevisionId), the Set of a table's policies
// (the table's under "", its stream's under the stream's ARN), what a
// document must be (Check: the size, then internal/iam's grammar; also
// for CreateTable's ResourcePolicy), what an ExpectedRevisionId demands
// (CheckRevision), the next RevisionId (NextRevision), and the lookup
// api's authorizer makes on every request (Lookup: no error built when
// there is none), in DynamoDB's words.
//
// The core gives it a Core: the region and account, the control-plane
// lock, the clock, a table's status, stream ARN and Set, and the storing
// of a table's new Set in its record (catalog.go: tableRecord.Policies,
// stored as the record's "policies"; the core implements it in
// engine/table_meta.go). The package never imports internal/engine.
// Evaluating a policy is internal/iam's.
//
// State in memory: none of its own. The Sets are part of the catalog,
// read at Open with the table records and replaced with them; another
// node sharing the store reads them from the store the same way, and sees
// a change made on another node when it rechecks the table
// (catalog_nodes.go).
package policies
