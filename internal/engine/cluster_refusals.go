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
//   - vector indexes (each process holds its own graph);
// Open refuses a store whose tables already have a vector index (written
// by a single server before). Streams and Kinesis streaming destinations
// are coherent across nodes (shared.go in internal/engine/streams and
// internal/engine/kinesisdest).

// notInCluster is the ValidationException for what cluster mode refuses.
func notInCluster(what string) error {
	return ddberr.Validation(what + " is not supported by Kura nodes in cluster mode (--cluster) yet")
}

// refuseCreateInCluster refuses a CreateTable that asks for vector
// indexes in cluster mode.
func (e *Engine) refuseCreateInCluster(in *wire.CreateTableInput) error {
	if !e.cfg.Cluster {
		return nil
	}
	if len(in.VectorIndexes) > 0 {
		return notInCluster("Vector indexes")
	}
	return nil
}

// refuseUpdateInCluster refuses an UpdateTable that changes vector
// indexes in cluster mode.
func (e *Engine) refuseUpdateInCluster(in *wire.UpdateTableInput) error {
	if !e.cfg.Cluster {
		return nil
	}
	if len(in.VectorIndexUpdates) > 0 {
		return notInCluster("Vector indexes")
	}
	return nil
}

// checkClusterOpen is Open's refusal, in cluster mode, of a configuration
// or a catalog the nodes could not serve coherently.
func (e *Engine) checkClusterOpen() error {
	if !e.cfg.Cluster {
		return nil
	}
	for _, t := range e.snapshotTables() {
		if len(t.Vectors) > 0 {
			return fmt.Errorf("engine: table %s has vector indexes, which are not supported in cluster mode yet: delete them with a server outside cluster mode first", t.Name)
		}
	}
	return nil
}
