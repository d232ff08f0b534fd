package pebble

import (
	"errors"

	cpebble "github.com/cockroachdb/pebble/v2"

	"github.com/kura-db/kura/internal/storage"
)

var _ storage.Checkpointer = (*Store)(nil)

// Checkpoint writes a copy of the store into dir (storage.Checkpointer)
// with Pebble's checkpoint: the write-ahead log is synced first, so every
// commit acknowledged before the call is in the copy; tables are
// hard-linked where the filesystem allows (the copy then costs little
// space until compactions rewrite them) and copied otherwise; the logs,
// manifest and options are copied and synced.
func (s *Store) Checkpoint(dir string) error {
	if s.inMemory {
		return errors.New("storage: an in-memory store has no files to checkpoint")
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return storage.ErrClosed
	}
	return s.db.Checkpoint(dir, cpebble.WithFlushedWAL())
}
