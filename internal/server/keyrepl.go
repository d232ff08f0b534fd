package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/replication"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Global tables with --shared-db=false and two or more regions: each
// access key has a database per region, so each key that has a global
// table has a replication.Group of its own over its databases, with a
// replication store of its own (<data-dir>/_replication/<key>, or the
// store "replication_<key>" in TiKV or PostgreSQL). A key's Group is
// opened at its first ReplicaUpdates (or GlobalTableWitnessUpdates), and
// at start for every key whose replication folder is on disk, or, in TiKV
// or PostgreSQL, that the store "replication_keys" lists (a key "k/" +
// access key ID written when the key's Group first opens), before any
// request is served. Its databases are then pinned open until Shutdown:
// acquired once and never released, so --max-open-databases never closes
// them (they count towards it, so fewer other databases stay open).

// keyGroup is one access key's global tables.
type keyGroup struct {
	g     *replication.Group
	store storage.Store
	dbs   []*database // pinned: one acquire each, never released
}

// keyGroups are the open keyGroups, by access key ID.
type keyGroups struct {
	mu     sync.Mutex
	groups map[string]*keyGroup
	// registry lists the keys with a Group in TiKV or PostgreSQL, which
	// have no folders to list at start (keyRegistry); nil until needed.
	registry storage.Store
}

// registryPrefix begins each key of the registry: "k/" + access key ID.
const registryPrefix = "k/"

// perKeyGlobalTables reports whether keys get global tables of their own.
func (s *Server) perKeyGlobalTables() bool {
	return s.cfg.PerCredential && len(s.cfg.Regions) > 1
}

// keyReplicationDir is the folder of akid's replication store.
func keyReplicationDir(dataDir, akid string) string {
	return filepath.Join(dataDir, "_replication", encodeName(akid))
}

// keyGroup returns akid's Group, opening it (and pinning its databases)
// when open is set and it is not open yet; nil when it is not open.
func (s *Server) keyGroup(akid string, open bool) (*replication.Group, error) {
	k := &s.keyRepl
	k.mu.Lock()
	defer k.mu.Unlock()
	if kg := k.groups[akid]; kg != nil || !open {
		if kg == nil {
			return nil, nil
		}
		return kg.g, nil
	}
	kg := &keyGroup{}
	engines := map[string]*engine.Engine{}
	for _, r := range s.cfg.Regions {
		db, err := s.acquire(folderName(akid, r), r)
		if err != nil {
			s.unpin(kg)
			return nil, fmt.Errorf("region %s: %w", r, err)
		}
		kg.dbs = append(kg.dbs, db)
		engines[r] = db.eng
	}
	cfg := s.cfg
	cfg.DataDir = keyReplicationDir(cfg.DataDir, akid)
	store, err := s.openStore(cfg, "replication_"+encodeName(akid))
	if err != nil {
		s.unpin(kg)
		return nil, fmt.Errorf("opening the replication store of a key: %w", err)
	}
	rc := replication.Config{Store: store, Regions: engines, Logger: s.log, UpdateDelay: cfg.CreateDelay}
	if cfg.Admin {
		rc.Now = func(region string) time.Time { return s.adminClock(folderName(akid, region)).Now() }
	}
	g, err := replication.Open(rc)
	if err != nil {
		store.Close()
		s.unpin(kg)
		return nil, fmt.Errorf("opening the global tables of a key: %w", err)
	}
	if err := s.registerKey(akid); err != nil {
		g.Close()
		store.Close()
		s.unpin(kg)
		return nil, fmt.Errorf("listing a key with global tables: %w", err)
	}
	kg.g, kg.store = g, store
	if k.groups == nil {
		k.groups = map[string]*keyGroup{}
	}
	k.groups[akid] = kg
	s.log.Info("opened the global tables of an access key", "key", akid)
	return g, nil
}

// unpin releases the databases of a keyGroup that did not open.
func (s *Server) unpin(kg *keyGroup) {
	for _, db := range kg.dbs {
		s.release(db)
	}
}

// sharedBackend reports whether databases live in TiKV or PostgreSQL.
func (s *Server) sharedBackend() bool { return s.tikv != nil || s.pg != nil }

// keyRegistry is the store listing the keys with a Group (TiKV and
// PostgreSQL only), opened at first use; the caller holds keyRepl.mu.
func (s *Server) keyRegistry() (storage.Store, error) {
	k := &s.keyRepl
	if k.registry == nil {
		st, err := s.openStore(s.cfg, "replication_keys")
		if err != nil {
			return nil, err
		}
		k.registry = st
	}
	return k.registry, nil
}

// registerKey lists akid in the registry (TiKV and PostgreSQL: elsewhere
// its replication folder lists it); the caller holds keyRepl.mu.
func (s *Server) registerKey(akid string) error {
	if !s.sharedBackend() {
		return nil
	}
	reg, err := s.keyRegistry()
	if err != nil {
		return err
	}
	txn, err := reg.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := txn.Set([]byte(registryPrefix+akid), []byte{1}); err != nil {
		return err
	}
	return txn.Commit(storage.CommitOptions{Sync: true})
}

// registeredKeys are the keys the registry lists.
func (s *Server) registeredKeys() ([]string, error) {
	s.keyRepl.mu.Lock()
	reg, err := s.keyRegistry()
	s.keyRepl.mu.Unlock()
	if err != nil {
		return nil, err
	}
	snap, err := reg.NewSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	it, err := snap.NewIterator(storage.IterOptions{Lower: []byte(registryPrefix), Upper: []byte("k0")}) // '0' follows '/'
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var keys []string
	for it.Next() {
		keys = append(keys, string(it.Key()[len(registryPrefix):]))
	}
	return keys, it.Err()
}

// resumeKeyGroups opens the Group of every key with a replication folder
// on disk, or listed in the registry in TiKV or PostgreSQL.
func (s *Server) resumeKeyGroups() error {
	if !s.perKeyGlobalTables() || s.cfg.InMemory {
		return nil
	}
	if s.sharedBackend() {
		keys, err := s.registeredKeys()
		if err != nil {
			return fmt.Errorf("reading the keys with global tables: %w", err)
		}
		for _, akid := range keys {
			if _, err := s.keyGroup(akid, true); err != nil {
				return err
			}
		}
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(s.cfg.DataDir, "_replication"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		akid, ok := decodeName(e.Name())
		if !e.IsDir() || !ok || encodeName(akid) != e.Name() {
			continue
		}
		if _, err := s.keyGroup(akid, true); err != nil {
			return err
		}
	}
	return nil
}

// stopKeyGroups stops every key's replication and closes its store; the
// pinned databases are closed with the others.
func (s *Server) stopKeyGroups() error {
	k := &s.keyRepl
	k.mu.Lock()
	defer k.mu.Unlock()
	var errs []error
	for akid, kg := range k.groups {
		kg.g.Close()
		if err := kg.store.Close(); err != nil {
			errs = append(errs, err)
		}
		s.unpin(kg)
		delete(k.groups, akid)
	}
	if k.registry != nil {
		if err := k.registry.Close(); err != nil {
			errs = append(errs, err)
		}
		k.registry = nil
	}
	return errors.Join(errs...)
}

// keyBackend is the backend of a key's database in a region while the
// key has no global table: the engine, but for ReplicaUpdates, which open
// the key's Group and go to it.
type keyBackend struct {
	*engine.Engine
	s            *Server
	akid, region string
}

func (b keyBackend) UpdateTable(ctx context.Context, in *wire.UpdateTableInput) (*wire.UpdateTableOutput, error) {
	if len(in.ReplicaUpdates) == 0 && len(in.GlobalTableWitnessUpdates) == 0 {
		return b.Engine.UpdateTable(ctx, in)
	}
	g, err := b.s.keyGroup(b.akid, true)
	if err != nil {
		b.s.log.Error("cannot open the global tables of a key", "key", b.akid, "err", err)
		return nil, ddberr.Internal(openFailedMessage(err))
	}
	return g.Region(b.region).UpdateTable(ctx, in)
}

// checkpointKeyGroups copies the replication store of every key with
// global tables into its folder under dir, as in the data directory.
func (s *Server) checkpointKeyGroups(dir string) error {
	k := &s.keyRepl
	k.mu.Lock()
	defer k.mu.Unlock()
	for akid, kg := range k.groups {
		c, ok := kg.store.(storage.Checkpointer)
		if !ok {
			return errNoCheckpoint
		}
		into := keyReplicationDir(dir, akid)
		if err := os.MkdirAll(filepath.Dir(into), 0o755); err != nil {
			return err
		}
		if err := c.Checkpoint(into); err != nil {
			return fmt.Errorf("the global tables of key %s: %w", akid, err)
		}
	}
	return nil
}
