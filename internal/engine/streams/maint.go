package streams

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"math"
	"time"

	"github.com/kura-db/kura/internal/storage"
)

// trimChunk bounds the records one trimming transaction deletes.
const trimChunk = 512

func (reg *Registry) shardPeriod() time.Duration {
	if reg.cfg.ShardPeriod > 0 {
		return reg.cfg.ShardPeriod
	}
	return defaultShardPeriod
}

// maintainIfHeld runs a round of upkeep if this node holds the streams'
// lease (Config.Hold): one node at a time rolls over and trims.
func (reg *Registry) maintainIfHeld() {
	if reg.cfg.Hold == nil || reg.cfg.Hold() {
		reg.maintainStreams()
	}
}

// maintainStreams runs one round of stream upkeep: rollover of shards
// older than the period, trimming of records older than the retention,
// and removal of shards and disabled streams past it.
func (reg *Registry) maintainStreams() {
	now := reg.cfg.Clock.Now()
	cutoff := now.Add(-reg.retention())
	if reg.cfg.Cluster {
		// Other nodes create and disable streams: start from the store's.
		if err := reg.refreshAll(); err != nil {
			slog.Warn("streams: reading the streams", "err", err)
			return
		}
	}
	for _, s := range reg.list() {
		select {
		case <-reg.cfg.Closing:
			return
		default:
		}
		s.mu.Lock()
		sh := s.activeShard()
		roll := sh != nil && !now.Before(sh.Created.Add(reg.shardPeriod()))
		gone := !s.meta.Disabled.IsZero() && s.meta.Disabled.Before(cutoff)
		s.mu.Unlock()
		if gone {
			if err := reg.dropStream(s); err != nil {
				slog.Warn("streams: removing an expired stream", "stream", s.arn, "err", err)
			}
			continue
		}
		if reg.cfg.Cluster && !gone && reg.orphaned(s) {
			// Its table no longer names it: the node that changed the
			// table stopped before disabling it.
			if err := reg.disableStream(s); err != nil {
				slog.Warn("streams: disabling a stream its table no longer has", "stream", s.arn, "err", err)
			}
			continue
		}
		if roll {
			if err := reg.rollover(s); err != nil {
				slog.Warn("streams: shard rollover", "stream", s.arn, "err", err)
			}
		}
		if err := reg.trimStream(s, cutoff); err != nil {
			slog.Warn("streams: trimming", "stream", s.arn, "err", err)
		}
	}
}

// trimStream deletes the records created before cutoff, shard by shard,
// recording the trim point in the metadata first (so a reader behind it
// gets TrimmedDataAccessException, never a silent gap), and forgets
// closed shards that are empty and older than the retention.
func (reg *Registry) trimStream(s *streamState, cutoff time.Time) error {
	s.mu.Lock()
	shards := cloneMeta(s.meta).Shards
	s.mu.Unlock()
	for _, sh := range shards {
		prefix := shardPrefix(s.id.table, s.id.no, sh.No)
		for {
			keys, last, err := reg.expiredRecords(prefix, cutoff)
			if err != nil || len(keys) == 0 {
				if err != nil {
					return err
				}
				break
			}
			if err := reg.setTrimmed(s, sh.No, last); err != nil {
				return err
			}
			if err := reg.cfg.Commit(false, func(txn storage.Txn) error {
				// The floor keeps numbers increasing after a restart even
				// when every record has been trimmed (in cluster mode the
				// stored positions do).
				if err := reg.saveFloor(txn); err != nil {
					return err
				}
				for _, k := range keys {
					if err := txn.Delete(k); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
			if len(keys) < trimChunk {
				break
			}
		}
	}
	return reg.forgetShards(s, cutoff)
}

// expiredRecords lists up to trimChunk keys of a shard's records created
// before cutoff, from the oldest, and the highest number among them.
func (reg *Registry) expiredRecords(prefix []byte, cutoff time.Time) ([][]byte, uint64, error) {
	snap, err := reg.cfg.Store.NewSnapshot()
	if err != nil {
		return nil, 0, err
	}
	defer snap.Close()
	upper := binary.BigEndian.AppendUint64(append([]byte(nil), prefix...), math.MaxUint64)
	it, err := snap.NewIterator(storage.IterOptions{Lower: prefix, Upper: upper})
	if err != nil {
		return nil, 0, err
	}
	defer it.Close()
	var keys [][]byte
	var last uint64
	for len(keys) < trimChunk && it.Next() {
		created, ok := createdOf(it.Value())
		if ok && !created.Before(cutoff) {
			break
		}
		k := bytes.Clone(it.Key())
		keys = append(keys, k)
		last = binary.BigEndian.Uint64(k[len(k)-8:])
	}
	return keys, last, it.Err()
}

// setTrimmed persists a shard's new trim point.
func (reg *Registry) setTrimmed(s *streamState, shard uint32, upto uint64) error {
	return reg.update(s, false, func(m *streamMeta, _ *position) bool {
		changed := false
		for i := range m.Shards {
			if m.Shards[i].No == shard && m.Shards[i].Trimmed < upto {
				m.Shards[i].Trimmed, changed = upto, true
			}
		}
		return changed || !reg.cfg.Cluster // one node stores it as before
	})
}

// forgetShards drops closed shards closed before cutoff whose records are
// all trimmed (DynamoDB stops listing them after the retention).
func (reg *Registry) forgetShards(s *streamState, cutoff time.Time) error {
	return reg.update(s, false, func(m *streamMeta, _ *position) bool {
		kept := make([]shardMeta, 0, len(m.Shards))
		for _, sh := range m.Shards {
			if !sh.open() && sh.Closed.Before(cutoff) && sh.Trimmed >= sh.End {
				continue
			}
			kept = append(kept, sh)
		}
		if len(kept) == len(m.Shards) || len(kept) == 0 {
			return false
		}
		m.Shards = kept
		return true
	})
}

// saveFloor persists the engine-wide counter as the sequence floor (one
// node; in cluster mode the stored positions keep the numbers).
func (reg *Registry) saveFloor(txn storage.Txn) error {
	if reg.cfg.Cluster {
		return nil
	}
	return txn.Set(metaStreamSeqKey, binary.BigEndian.AppendUint64(nil, reg.seq.Load()))
}

// dropStream removes a disabled stream past the retention: its records in
// chunks, then its metadata.
func (reg *Registry) dropStream(s *streamState) error {
	lower := streamPrefix(s.id.table, s.id.no)
	upper := streamPrefix(s.id.table, s.id.no+1)
	if s.id.no == math.MaxUint32 {
		upper = binary.BigEndian.AppendUint64([]byte{prefixStream}, s.id.table+1)
	}
	if err := reg.cfg.Commit(false, reg.saveFloor); err != nil {
		return err
	}
	for {
		n, err := reg.cfg.Purge(lower, upper)
		if err != nil {
			return err
		}
		if n < reg.cfg.PurgeChunk {
			break
		}
	}
	if err := reg.cfg.Commit(reg.cfg.Sync, func(txn storage.Txn) error {
		if err := txn.Delete(counterKey(s.id)); err != nil {
			return err
		}
		return txn.Delete(streamMetaKey(s.id.table, s.id.no))
	}); err != nil {
		return err
	}
	reg.mu.Lock()
	reg.remove(s)
	reg.mu.Unlock()
	return nil
}

// orphaned reports whether an enabled stream's table no longer names it
// as its enabled stream (cluster mode, from the store's catalog). A failed
// look-up reports false.
func (reg *Registry) orphaned(s *streamState) bool {
	s.mu.Lock()
	m := s.meta
	s.mu.Unlock()
	if !m.Disabled.IsZero() || reg.cfg.Table == nil {
		return false
	}
	t, deleting, found, err := reg.cfg.Table(m.TableName)
	switch {
	case err != nil:
		return false
	case !found || deleting || t.ID != m.TableID:
		return true
	case t.Stream.ARN == s.arn:
		return !t.Stream.Enabled
	default:
		return t.Stream.Label > s.label // the table has a newer stream
	}
}
