// Package tables owns the table control plane's rules below the core:
// what a CreateTable or UpdateTable request may ask (request validation in
// DynamoDB's order, with DynamoDB's exact errors), the table definition it
// builds or changes (the stored wire.TableDescription: key schema,
// attribute definitions, billing mode, provisioned, on-demand and warm
// throughput, streams, SSE, table class, deletion protection, GSI
// descriptions), the throughput rules (the account's per-table maxima, the
// day's budget of decreases, the table class budget), what is admitted
// while a table is UPDATING, and how CreateTable, UpdateTable and
// DeleteTable responses differ from DescribeTable's rendering of the same
// definition; and the answers that need no table: the table name rules
// (ValidName, CreateName of a name or table ARN), ListTables' page over
// the names the core lists (ListPage), DescribeLimits' quotas and
// DescribeEndpoints' endpoint.
//
// Everything here is a pure function of wire shapes, a definition and the
// time it is given (the core passes its injected clock's now). The core
// owns the catalog: it looks tables up, holds the DDL lock, stores the new
// definition, swaps the table's in-memory version and times the status
// transitions (CREATING/UPDATING → ACTIVE, DELETING → gone). What belongs
// to secondary and vector indexes (their key schema and projection rules,
// whether an online index change is running) is asked of the core through
// the Indexes interface, which the core implements over those packages;
// the package never imports internal/engine.
//
// State in memory: none. A definition is part of the table record the
// core stores under the "c" prefix and reads at Open; another node sharing
// the store (issue #28) would read the same records and apply the same
// rules to them, and would need only the catalog's own coherence (a
// definition swapped on one node seen by the others) — nothing of this
// package.
package tables
