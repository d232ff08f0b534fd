package replication

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/partiql"
	"github.com/kura-db/kura/internal/wire"
)

// PartiQL on MRSC tables: a statement's table is read from its text (one
// that does not parse is left to the engine, which refuses it). A write
// statement is replicated synchronously like an item write, but holds no
// item (Kura does not find its key before the engine runs it), so a
// conflict with a write of the item through another region is not
// detected for it; a strongly consistent SELECT catches up first;
// ExecuteTransaction is refused as the transaction operations are.

// statementTable is the table of a PartiQL statement and whether the
// statement writes ("" when it does not parse).
func statementTable(s *string) (table string, writes bool) {
	if s == nil {
		return "", false
	}
	st, err := partiql.Parse(*s)
	if err != nil {
		return "", false
	}
	return st.Table, st.Kind == partiql.Insert || st.Kind == partiql.Update || st.Kind == partiql.Delete
}

// statementWrites names the MRSC-relevant tables statements write, as
// strongWrite takes them: no items, only the tables.
func statementWrites(statements ...*string) map[string][]attr.Item {
	writes := map[string][]attr.Item{}
	for _, s := range statements {
		if table, w := statementTable(s); w {
			writes[table] = nil
		}
	}
	return writes
}

func (r *Region) ExecuteStatement(ctx context.Context, in *wire.ExecuteStatementInput) (out *wire.ExecuteStatementOutput, err error) {
	if !r.g.anyStrong() {
		return r.Engine.ExecuteStatement(ctx, in)
	}
	if table, writes := statementTable(in.Statement); !writes && isTrue(in.ConsistentRead) {
		if err := r.g.strongRead(ctx, r.name, table); err != nil {
			return nil, err
		}
	}
	err = r.g.strongWrite(ctx, r.name, statementWrites(in.Statement), func() (err error) {
		out, err = r.Engine.ExecuteStatement(ctx, in)
		return err
	})
	return out, err
}

func (r *Region) BatchExecuteStatement(ctx context.Context, in *wire.BatchExecuteStatementInput) (out *wire.BatchExecuteStatementOutput, err error) {
	if !r.g.anyStrong() {
		return r.Engine.BatchExecuteStatement(ctx, in)
	}
	var statements []*string
	for _, s := range in.Statements {
		statements = append(statements, s.Statement)
		if table, writes := statementTable(s.Statement); !writes && isTrue(s.ConsistentRead) {
			if err := r.g.strongRead(ctx, r.name, table); err != nil {
				return nil, err
			}
		}
	}
	err = r.g.strongWrite(ctx, r.name, statementWrites(statements...), func() (err error) {
		out, err = r.Engine.BatchExecuteStatement(ctx, in)
		return err
	})
	return out, err
}

func (r *Region) ExecuteTransaction(ctx context.Context, in *wire.ExecuteTransactionInput) (*wire.ExecuteTransactionOutput, error) {
	for _, s := range in.TransactStatements {
		if !r.g.anyStrong() {
			break
		}
		if table, _ := statementTable(s.Statement); r.g.isStrong(table) {
			return nil, ddberr.Validation(msgStrongTransact)
		}
	}
	return r.Engine.ExecuteTransaction(ctx, in)
}

// anyStrong reports whether any global table is an MRSC table (when none
// is, no statement needs parsing here).
func (g *Group) anyStrong() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.tables {
		if t.Strong != nil {
			return true
		}
	}
	return false
}
