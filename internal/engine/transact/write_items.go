package transact

import (
	"context"

	"github.com/kura-db/kura/internal/wire"
)

// Prepared is a prepared write transaction (Prepare) as the core runs and
// bills it.
type Prepared interface {
	// Run runs it once: admission, State.Run with tok (the request's
	// token to record in the commit, or nil), the capacity paid.
	Run(ctx context.Context, tok *Token) error
	// Capacity is the consumed capacity of the run, as mode
	// (ReturnConsumedCapacity) asks.
	Capacity(mode string) []wire.ConsumedCapacity
	// Collections is the ItemCollectionMetrics, as mode
	// (ReturnItemCollectionMetrics) asks, of the item collections the
	// transaction's writes touched, their sizes as they are now.
	Collections(mode string) map[string][]wire.ItemCollectionMetrics
	// ReplayCapacity is the capacity of a repeat DynamoDB recognises by
	// its token: it applies nothing and reads the items again.
	ReplayCapacity(mode string) ([]wire.ConsumedCapacity, error)
}

// WriteItems runs TransactWriteItems in once per ClientRequestToken
// (Idempotent): a repeat answers the first run's ItemCollectionMetrics
// (as they are now when the first ran through another node) and the
// capacity of reading the items again.
func (s *State) WriteItems(ctx context.Context, p Prepared, in *wire.TransactWriteItemsInput) (*wire.TransactWriteItemsOutput, error) {
	out, err := s.Idempotent(in.ClientRequestToken, in, func(tok *Token) (any, error) {
		if err := p.Run(ctx, tok); err != nil {
			return nil, err
		}
		return &wire.TransactWriteItemsOutput{
			ConsumedCapacity:      p.Capacity(in.ReturnConsumedCapacity),
			ItemCollectionMetrics: p.Collections(in.ReturnItemCollectionMetrics),
		}, nil
	}, func(first any) (any, error) {
		var out wire.TransactWriteItemsOutput
		if first != nil {
			out = *first.(*wire.TransactWriteItemsOutput)
		} else {
			out.ItemCollectionMetrics = p.Collections(in.ReturnItemCollectionMetrics)
		}
		cc, err := p.ReplayCapacity(in.ReturnConsumedCapacity)
		out.ConsumedCapacity = cc
		return &out, err
	})
	if err != nil {
		return nil, err
	}
	return out.(*wire.TransactWriteItemsOutput), nil
}

// WriteStatements runs a write transaction of PartiQL statements (in, an
// ExecuteTransaction request, is what its token binds) once per token,
// answering its consumed capacity as mode asks (a repeat's: reading the
// items again).
func (s *State) WriteStatements(ctx context.Context, p Prepared, token *string, in any, mode string) ([]wire.ConsumedCapacity, error) {
	out, err := s.Idempotent(token, in, func(tok *Token) (any, error) {
		if err := p.Run(ctx, tok); err != nil {
			return nil, err
		}
		return p.Capacity(mode), nil
	}, func(any) (any, error) {
		return p.ReplayCapacity(mode)
	})
	if err != nil {
		return nil, err
	}
	return out.([]wire.ConsumedCapacity), nil
}
