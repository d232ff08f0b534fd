package replication

import (
	"context"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Region's item operations: on an MRSC table they go through
// strongWrite and strongRead (strong_io.go), and transactions and Time to
// Live are refused; on any other table they are the engine's.

func (r *Region) PutItem(ctx context.Context, in *wire.PutItemInput) (out *wire.PutItemOutput, err error) {
	err = r.g.strongWrite(ctx, r.name, oneItem(in.TableName, in.Item), func() (err error) {
		out, err = r.Engine.PutItem(ctx, in)
		return err
	})
	return out, err
}

func (r *Region) UpdateItem(ctx context.Context, in *wire.UpdateItemInput) (out *wire.UpdateItemOutput, err error) {
	err = r.g.strongWrite(ctx, r.name, oneItem(in.TableName, in.Key), func() (err error) {
		out, err = r.Engine.UpdateItem(ctx, in)
		return err
	})
	return out, err
}

func (r *Region) DeleteItem(ctx context.Context, in *wire.DeleteItemInput) (out *wire.DeleteItemOutput, err error) {
	err = r.g.strongWrite(ctx, r.name, oneItem(in.TableName, in.Key), func() (err error) {
		out, err = r.Engine.DeleteItem(ctx, in)
		return err
	})
	return out, err
}

func (r *Region) BatchWriteItem(ctx context.Context, in *wire.BatchWriteItemInput) (out *wire.BatchWriteItemOutput, err error) {
	writes := map[string][]attr.Item{}
	for table, reqs := range in.RequestItems {
		name := tableName(&table)
		for _, w := range reqs {
			switch {
			case w.PutRequest != nil:
				writes[name] = append(writes[name], w.PutRequest.Item)
			case w.DeleteRequest != nil:
				writes[name] = append(writes[name], w.DeleteRequest.Key)
			}
		}
	}
	err = r.g.strongWrite(ctx, r.name, writes, func() (err error) {
		out, err = r.Engine.BatchWriteItem(ctx, in)
		return err
	})
	return out, err
}

func oneItem(table *string, item attr.Item) map[string][]attr.Item {
	return map[string][]attr.Item{tableName(table): {item}}
}

func (r *Region) GetItem(ctx context.Context, in *wire.GetItemInput) (*wire.GetItemOutput, error) {
	if isTrue(in.ConsistentRead) {
		if err := r.g.strongRead(ctx, r.name, tableName(in.TableName)); err != nil {
			return nil, err
		}
	}
	return r.Engine.GetItem(ctx, in)
}

func (r *Region) Query(ctx context.Context, in *wire.QueryInput) (*wire.QueryOutput, error) {
	if isTrue(in.ConsistentRead) {
		if err := r.g.strongRead(ctx, r.name, tableName(in.TableName)); err != nil {
			return nil, err
		}
	}
	return r.Engine.Query(ctx, in)
}

func (r *Region) Scan(ctx context.Context, in *wire.ScanInput) (*wire.ScanOutput, error) {
	if isTrue(in.ConsistentRead) {
		if err := r.g.strongRead(ctx, r.name, tableName(in.TableName)); err != nil {
			return nil, err
		}
	}
	return r.Engine.Scan(ctx, in)
}

func (r *Region) BatchGetItem(ctx context.Context, in *wire.BatchGetItemInput) (*wire.BatchGetItemOutput, error) {
	var tables []string
	for table, ka := range in.RequestItems {
		if isTrue(ka.ConsistentRead) {
			tables = append(tables, tableName(&table))
		}
	}
	if err := r.g.strongRead(ctx, r.name, tables...); err != nil {
		return nil, err
	}
	return r.Engine.BatchGetItem(ctx, in)
}

func (r *Region) TransactWriteItems(ctx context.Context, in *wire.TransactWriteItemsInput) (*wire.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		for _, t := range []*string{tableOf(it.ConditionCheck), tableOf(it.Put), tableOf(it.Update), tableOf(it.Delete)} {
			if r.g.isStrong(tableName(t)) {
				return nil, ddberr.Validation(msgStrongTransact)
			}
		}
	}
	return r.Engine.TransactWriteItems(ctx, in)
}

func (r *Region) TransactGetItems(ctx context.Context, in *wire.TransactGetItemsInput) (*wire.TransactGetItemsOutput, error) {
	for _, it := range in.TransactItems {
		if r.g.isStrong(tableName(tableOf(it.Get))) {
			return nil, ddberr.Validation(msgStrongTransact)
		}
	}
	return r.Engine.TransactGetItems(ctx, in)
}

func (r *Region) UpdateTimeToLive(ctx context.Context, in *wire.UpdateTimeToLiveInput) (*wire.UpdateTimeToLiveOutput, error) {
	if r.g.isStrong(tableName(in.TableName)) {
		return nil, ddberr.Validation(msgStrongTTL)
	}
	return r.Engine.UpdateTimeToLive(ctx, in)
}

// tableOf is the TableName of a transaction's action (nil for none).
func tableOf[T interface {
	*wire.ConditionCheck | *wire.Put | *wire.Update | *wire.Delete | *wire.Get
}](a T) *string {
	if a == nil {
		return nil
	}
	switch x := any(a).(type) {
	case *wire.ConditionCheck:
		return x.TableName
	case *wire.Put:
		return x.TableName
	case *wire.Update:
		return x.TableName
	case *wire.Delete:
		return x.TableName
	case *wire.Get:
		return x.TableName
	}
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }
