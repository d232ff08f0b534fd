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
// statement is replicated synchronously like an item write and holds its
// item as an item write does, so a conflicting write of it through another
// region meanwhile is refused with ReplicatedWriteConflictException: the
// item is the key an INSERT's VALUE names, or the key equalities of an
// UPDATE's or DELETE's WHERE (literals or parameters). A statement whose
// key is not found so (the engine refuses most of those) holds its whole
// table (allKeys). A strongly consistent SELECT catches up first;
// ExecuteTransaction is refused as the transaction operations are.

// statementTable is the table of a PartiQL statement and whether the
// statement writes ("" when it does not parse).
func statementTable(s *string) (table string, writes bool) {
	st := parseStatement(s)
	if st == nil {
		return "", false
	}
	return st.Table, isWrite(st)
}

func parseStatement(s *string) *partiql.Statement {
	if s == nil {
		return nil
	}
	st, err := partiql.Parse(*s)
	if err != nil {
		return nil
	}
	return st
}

func isWrite(st *partiql.Statement) bool {
	return st.Kind == partiql.Insert || st.Kind == partiql.Update || st.Kind == partiql.Delete
}

// statementWrites names, per table, the items write statements write, as
// strongWrite takes them (the key attributes are picked from them there);
// nil for a statement whose item is not known, which holds its table.
func statementWrites(statements ...wire.BatchStatementRequest) map[string][]attr.Item {
	writes := map[string][]attr.Item{}
	for _, s := range statements {
		if st := parseStatement(s.Statement); st != nil && isWrite(st) {
			writes[st.Table] = append(writes[st.Table], statementItem(st, s.Parameters))
		}
	}
	return writes
}

// statementItem is the item a write statement writes, as far as its text
// and parameters name it: an INSERT's VALUE, or the equalities of the
// WHERE of an UPDATE or DELETE; nil when neither names one.
func statementItem(st *partiql.Statement, params []attr.Value) attr.Item {
	item := attr.Item{}
	switch v := st.Value.(type) {
	case *partiql.Struct:
		for i, name := range v.Keys {
			if val, ok := constantOf(v.Vals[i], params); ok {
				item[name] = val
			}
		}
	case *partiql.Param:
		if val, ok := constantOf(v, params); ok && val.T == attr.M {
			return val.Map
		}
	}
	equalities(st.Where, params, item)
	if len(item) == 0 {
		return nil
	}
	return item
}

// equalities adds the attribute = constant terms of the conjunction where
// to item.
func equalities(where partiql.Expr, params []attr.Value, item attr.Item) {
	b, ok := where.(*partiql.Binary)
	if !ok {
		return
	}
	switch b.Op {
	case "AND":
		equalities(b.L, params, item)
		equalities(b.R, params, item)
	case "=":
		l, r := b.L, b.R
		if _, ok := l.(*partiql.PathRef); !ok {
			l, r = r, l
		}
		if p, ok := l.(*partiql.PathRef); ok && len(p.Path) == 1 && p.Path[0].Index < 0 {
			if val, ok := constantOf(r, params); ok {
				item[p.Path[0].Name] = val
			}
		}
	}
}

// constantOf is the value of a string or number literal or a parameter.
func constantOf(e partiql.Expr, params []attr.Value) (attr.Value, bool) {
	switch x := e.(type) {
	case *partiql.Str:
		return attr.Value{T: attr.S, Str: x.S}, true
	case *partiql.Num:
		return attr.Value{T: attr.N, Str: x.Text}, true
	case *partiql.Param:
		if x.Index < len(params) {
			return params[x.Index], true
		}
	}
	return attr.Value{}, false
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
	err = r.g.strongWrite(ctx, r.name, statementWrites(wire.BatchStatementRequest{Statement: in.Statement, Parameters: in.Parameters}), func() (err error) {
		out, err = r.Engine.ExecuteStatement(ctx, in)
		return err
	})
	return out, err
}

func (r *Region) BatchExecuteStatement(ctx context.Context, in *wire.BatchExecuteStatementInput) (out *wire.BatchExecuteStatementOutput, err error) {
	if !r.g.anyStrong() {
		return r.Engine.BatchExecuteStatement(ctx, in)
	}
	for _, s := range in.Statements {
		if table, writes := statementTable(s.Statement); !writes && isTrue(s.ConsistentRead) {
			if err := r.g.strongRead(ctx, r.name, table); err != nil {
				return nil, err
			}
		}
	}
	err = r.g.strongWrite(ctx, r.name, statementWrites(in.Statements...), func() (err error) {
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
