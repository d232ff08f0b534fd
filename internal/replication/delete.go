package replication

import (
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// deleteReplica starts deleting target's replica of table (from region):
// it is DELETING until its table there is deleted and its replication
// state removed.
func (g *Group) deleteReplica(region, table, target string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tables[table]
	if t == nil || t.replica(region) == nil || t.replica(target) == nil {
		return ddberr.Validation(msgNotMember(target))
	}
	if err := g.busy(t); err != nil {
		return err
	}
	t.replica(target).Status = statusDeleting
	if err := g.saveTable(table, t); err != nil {
		return err
	}
	g.goDelete(table, target)
	return nil
}

// goDelete deletes target's replica of table in the background. g.mu is
// held.
func (g *Group) goDelete(table, target string) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		for g.ctx.Err() == nil {
			err := g.finishDelete(table, target, true)
			if err == nil {
				return
			}
			g.cfg.Logger.Warn("replication: deleting a replica", "table", table, "region", target, "err", err)
			time.Sleep(time.Second)
		}
	}()
}

// tableDeleted takes region's replica out of table's global table once
// DeleteTable has deleted its table there.
func (g *Group) tableDeleted(table, region string) {
	g.mu.Lock()
	t := g.tables[table]
	member := t != nil && t.replica(region) != nil
	g.mu.Unlock()
	if member {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			if err := g.finishDelete(table, region, false); err != nil {
				g.cfg.Logger.Warn("replication: removing a deleted table's replica", "table", table, "region", region, "err", err)
			}
		}()
	}
}

// finishDelete stops target's worker, deletes its table (deleteTable),
// removes its replication state and takes it out of the catalogue. A
// global table left with one replica is a table of that region alone
// again.
func (g *Group) finishDelete(table, target string, deleteTable bool) error {
	g.stopWorker(table, target)
	if deleteTable {
		_, err := g.cfg.Regions[target].DeleteTable(g.ctx, &wire.DeleteTableInput{TableName: &table})
		if err != nil && !isType(err, "ResourceNotFoundException") {
			return err
		}
	}
	if err := g.purge(table, target); err != nil {
		return err
	}
	g.mu.Lock()
	t := g.tables[table]
	var left []replicaState
	if t != nil {
		for _, r := range t.Replicas {
			if r.Region != target {
				left = append(left, r)
			}
		}
	}
	var last string
	var err error
	if len(left) > 1 {
		t.Replicas = left
		err = g.saveTable(table, t)
	} else {
		if len(left) == 1 {
			last = left[0].Region
		}
		delete(g.tables, table)
		err = g.saveTable(table, nil)
	}
	g.mu.Unlock()
	if err != nil || last == "" {
		return err
	}
	g.stopWorker(table, last)
	if err := g.purge(table, last); err != nil {
		return err
	}
	return g.dropKeptStream(table, last)
}

// purge removes the replication state of region's replica of table: its
// stream position, queue, stamps and markers.
func (g *Group) purge(table, region string) error {
	txn, err := g.cfg.Store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := txn.Delete(key('c', table, region)); err != nil {
		return err
	}
	for _, kind := range []byte{'q', 'm', 'e'} {
		p := append(key(kind, table, region), 0)
		it, err := txn.NewIterator(storage.IterOptions{Lower: p, Upper: prefixEnd(p)})
		if err != nil {
			return err
		}
		// The iterator reads the transaction's snapshot: deleting as it
		// goes does not disturb it.
		for err == nil && it.Next() {
			err = txn.Delete(append([]byte(nil), it.Key()...))
		}
		if err == nil {
			err = it.Err()
		}
		it.Close()
		if err != nil {
			return err
		}
	}
	return txn.Commit(storage.CommitOptions{Sync: true})
}

func (g *Group) setProgress(table, region string, pct int) {
	g.progressMu.Lock()
	defer g.progressMu.Unlock()
	g.progresses[workerKey{table, region}] = pct
}

func (g *Group) progress(table, region string) int {
	g.progressMu.Lock()
	defer g.progressMu.Unlock()
	return g.progresses[workerKey{table, region}]
}
