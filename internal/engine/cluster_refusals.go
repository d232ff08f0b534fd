package engine

import (
	"fmt"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// What a node in cluster mode (Config.Cluster) refuses because its state
// lives in one process's memory and is not shared between nodes yet
// (docs/running.md "Several nodes" lists them): a refusal rather than an
// answer that would be wrong on the other nodes.
//   - streams (sequence numbers and shards are handed out per process) and
//     Kinesis streaming destinations (their outbox numbering likewise);
//   - on-demand backups and restores, point-in-time restores, exports,
//     imports and bulk operations (their records are read into memory at
//     Open and their work runs on the node that started it);
//   - throughput enforcement (the token buckets are per process): Open
//     refuses Throttle.On.
// Open refuses a store whose tables already have a stream (written by a
// single server before).

// notInCluster is the ValidationException for what cluster mode refuses.
func notInCluster(what string) error {
	return ddberr.Validation(what + " is not supported by Kura nodes in cluster mode (--cluster) yet")
}

// refuseInCluster refuses an operation of the list above in cluster mode.
func (e *Engine) refuseInCluster(operation string) error {
	if !e.cfg.Cluster {
		return nil
	}
	return notInCluster(operation)
}

// refuseCreateInCluster refuses a CreateTable that asks for a stream in
// cluster mode.
func (e *Engine) refuseCreateInCluster(in *wire.CreateTableInput) error {
	if !e.cfg.Cluster {
		return nil
	}
	if s := in.StreamSpecification; s != nil && cpDeref(s.StreamEnabled) {
		return notInCluster("DynamoDB Streams")
	}
	return nil
}

// refuseUpdateInCluster refuses an UpdateTable that enables a stream in
// cluster mode.
func (e *Engine) refuseUpdateInCluster(in *wire.UpdateTableInput) error {
	if !e.cfg.Cluster {
		return nil
	}
	if s := in.StreamSpecification; s != nil && cpDeref(s.StreamEnabled) {
		return notInCluster("DynamoDB Streams")
	}
	return nil
}

// checkClusterOpen is Open's refusal, in cluster mode, of a configuration
// or a catalog the nodes could not serve coherently.
func (e *Engine) checkClusterOpen() error {
	if !e.cfg.Cluster {
		return nil
	}
	if e.cfg.Throttle.On {
		return fmt.Errorf("engine: throughput enforcement is per process and cannot run in cluster mode yet")
	}
	for _, t := range e.snapshotTables() {
		if t.Stream.Enabled {
			return fmt.Errorf("engine: table %s has a stream; streams are not supported in cluster mode yet: disable it with a server outside cluster mode first", t.Name)
		}
	}
	return nil
}
