package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// errNoCheckpoint answers a checkpoint request to a server whose storage
// has no files of its own.
var errNoCheckpoint = errors.New("checkpoints need the embedded store: this server keeps its data in memory, in TiKV or in PostgreSQL")

// Checkpoint writes a consistent, durable copy of every database into a
// new folder under Config.CheckpointDir, named kura-<UTC time>, and returns
// its path. Kura starts on the copy with --data-dir <path> (its
// --shared-db setting unchanged): every write acknowledged before the call
// is there, as after a crash at that moment. With a database per
// credential each one's copy is in a subfolder of its name, as in the
// data directory, databases not opened since the start included.
func (s *Server) Checkpoint() (string, error) {
	if s.cfg.CheckpointDir == "" {
		return "", errors.New("no checkpoint directory configured (--checkpoint-dir)")
	}
	if s.cfg.InMemory || s.tikv != nil || s.pg != nil {
		return "", errNoCheckpoint
	}
	s.ckptMu.Lock() // one at a time: each names a new folder
	defer s.ckptMu.Unlock()
	if err := os.MkdirAll(s.cfg.CheckpointDir, 0o755); err != nil {
		return "", err
	}
	dir, err := s.newCheckpointDir()
	if err != nil {
		return "", err
	}
	if !s.cfg.PerCredential {
		db, err := s.acquire(sharedKey, s.cfg.Region)
		if err != nil {
			return "", err
		}
		defer s.release(db)
		// The global tables' replication state is copied first: a write
		// made after its copy and in a region's copy is read again from
		// the region's stream and sent on again, which changes nothing.
		repl := dir + ".replication"
		if err := s.checkpointReplication(repl); err != nil {
			return "", err
		}
		if err := checkpoint(db, dir); err != nil {
			return "", err
		}
		if err := s.checkpointRegions(dir); err != nil {
			return "", err
		}
		if s.replStore != nil {
			if err := os.Rename(repl, filepath.Join(dir, "regions", "_replication")); err != nil {
				return "", err
			}
		}
		return dir, nil
	}
	keys, err := s.databaseKeys()
	if err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	// The keys' global tables' replication state first, as above.
	if err := s.checkpointKeyGroups(dir); err != nil {
		return "", err
	}
	for _, key := range keys {
		if err := s.checkpointDatabase(key, filepath.Join(dir, key)); err != nil {
			return "", fmt.Errorf("database %s: %w", key, err)
		}
	}
	return dir, nil
}

// checkpointDatabase copies the per-credential database name into dir,
// opening it for the copy if it is closed, and closing it again after.
func (s *Server) checkpointDatabase(name, dir string) error {
	region := s.cfg.Region
	if _, r, ok := parseFolderName(name); ok {
		region = r
	}
	// One that is closed is opened beside the bound's, and closed after.
	transient := !s.isOpen(name)
	done := s.release
	if transient {
		done = s.releaseAndClose
	}
	db, err := s.acquireOpening(name, region, !transient)
	if err != nil {
		return err
	}
	defer done(db)
	return checkpoint(db, dir)
}

// checkpointRegions copies the databases of a shared server's regions
// other than the home one (--regions) into their folders under dir, as in
// the data directory.
func (s *Server) checkpointRegions(dir string) error {
	for _, r := range s.cfg.Regions {
		if r == s.cfg.Region {
			continue
		}
		db, err := s.acquire(s.regionKey(r), r)
		if err != nil {
			return err
		}
		into := regionDir(dir, r)
		err = os.MkdirAll(filepath.Dir(into), 0o755)
		if err == nil {
			err = checkpoint(db, into)
		}
		s.release(db)
		if err != nil {
			return fmt.Errorf("region %s: %w", r, err)
		}
	}
	return nil
}

// checkpointReplication copies the replication state of global tables
// (two or more regions) into dir.
func (s *Server) checkpointReplication(dir string) error {
	if s.replStore == nil {
		return nil
	}
	c, ok := s.replStore.(storage.Checkpointer)
	if !ok {
		return errNoCheckpoint
	}
	return c.Checkpoint(dir)
}

// newCheckpointDir names the next checkpoint: its UTC time, to the
// millisecond, and a counter if that name is taken.
func (s *Server) newCheckpointDir() (string, error) {
	base := filepath.Join(s.cfg.CheckpointDir, "kura-"+time.Now().UTC().Format("20060102T150405.000Z"))
	for i := 0; i < 100; i++ {
		dir := base
		if i > 0 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("checkpoint names under %s are all taken", base)
}

// databaseKeys lists the databases of per-credential mode: the ones open
// and the folders in the data directory.
func (s *Server) databaseKeys() ([]string, error) {
	seen := map[string]bool{}
	for _, db := range s.holdOpenDatabases() {
		seen[db.name] = true
		s.release(db)
	}
	entries, err := os.ReadDir(s.cfg.DataDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() && isDatabaseFolder(e.Name()) && isStore(filepath.Join(s.cfg.DataDir, e.Name())) {
			seen[e.Name()] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for key := range seen {
		keys = append(keys, key)
	}
	return keys, nil
}

// isStore reports whether dir holds a Pebble store (a MANIFEST file, which
// a checkpoint has too): other folders under the data directory, a
// checkpoint directory put there for one, are not databases.
func isStore(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
	return len(m) > 0
}

func checkpoint(db *database, dir string) error {
	c, ok := db.store.(storage.Checkpointer)
	if !ok {
		return errNoCheckpoint
	}
	return c.Checkpoint(dir)
}
