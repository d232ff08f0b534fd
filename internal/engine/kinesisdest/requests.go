package kinesisdest

import (
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// The four operations' requests once the core has found their table
// (the core's kinesis_dest.go): their members unpacked and checked here.

// EnableRequest is EnableKinesisStreamingDestination: refused when Kura
// has no Kinesis (Refused), else Enable with the request's precision.
func (f *Feed) EnableRequest(t TableRef, in *wire.EnableKinesisStreamingDestinationInput) (*wire.EnableKinesisStreamingDestinationOutput, error) {
	if err := f.Refused(); err != nil {
		return nil, err
	}
	precision := ""
	if c := in.EnableKinesisStreamingConfiguration; c != nil {
		precision = c.ApproximateCreationDateTimePrecision
	}
	return retryShared(f, func() (*wire.EnableKinesisStreamingDestinationOutput, error) {
		return f.Enable(t, wire.Deref(in.StreamArn), precision)
	})
}

// DisableRequest is DisableKinesisStreamingDestination.
func (f *Feed) DisableRequest(t TableRef, in *wire.DisableKinesisStreamingDestinationInput) (*wire.DisableKinesisStreamingDestinationOutput, error) {
	// DynamoDB refuses a Disable that carries a precision (measured against
	// it with MICROSECOND on an ACTIVE destination: ack-api-quirks finding
	// DDB-TABLE-301). A configuration without one counts as none, as for
	// UpdateKinesisStreamingDestination, whose refusal names "null or only
	// null values" alike; where it ranks against a missing table or a
	// destination in another state was not recorded: after the table, before
	// the state.
	if c := in.EnableKinesisStreamingConfiguration; c != nil && c.ApproximateCreationDateTimePrecision != "" {
		return nil, ddberr.Validation("Stream cannot be disabled using EnableKinesisStreamingConfiguration parameters")
	}
	return retryShared(f, func() (*wire.DisableKinesisStreamingDestinationOutput, error) {
		return f.Disable(t, wire.Deref(in.StreamArn))
	})
}

// UpdateRequest is UpdateKinesisStreamingDestination.
func (f *Feed) UpdateRequest(t TableRef, in *wire.UpdateKinesisStreamingDestinationInput) (*wire.UpdateKinesisStreamingDestinationOutput, error) {
	precision := ""
	if c := in.UpdateKinesisStreamingConfiguration; c != nil {
		precision = c.ApproximateCreationDateTimePrecision
	}
	return retryShared(f, func() (*wire.UpdateKinesisStreamingDestinationOutput, error) {
		return f.Update(t, wire.Deref(in.StreamArn), precision)
	})
}
