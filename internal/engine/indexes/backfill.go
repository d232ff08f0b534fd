package indexes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"log/slog"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
)

// Online index changes: the storage side.
//
// A GSI added by UpdateTable is maintained by every write from the moment
// it is created (it is in the Live set) and filled, meanwhile, with the
// items already in the table by a backfill: chunks of ChunkSize items, each
// listed from a snapshot (the one exported reader, package snapshot) and
// indexed in its own short transaction (Backfill.Chunk). Chunks skip
// entries that exist, so the work is idempotent and a restart starts it
// over. A deleted GSI's range is purged in the background; its purge
// marker survives a restart:
//
//	"m" "ipurge/" tableID(8) indexID(4)   → an index whose entries are being removed
//
// The engine runs both jobs (when to start, the catalog's status, the
// barrier that makes every write see the new Live set).

// ErrStopped: the index stopped backfilling (deleted) before a chunk could
// commit.
var ErrStopped = errors.New("engine: backfill stopped")

// ChunkSize is how many items one backfill transaction indexes.
const ChunkSize = 256

// Ref names one index of one table.
type Ref struct {
	Table uint64
	Index uint32
}

// purgePrefix begins every purge marker.
const purgePrefix = "mipurge/"

// PurgeKey is the storage key of the purge marker of an index.
func PurgeKey(r Ref) []byte {
	b := binary.BigEndian.AppendUint64([]byte(purgePrefix), r.Table)
	return binary.BigEndian.AppendUint32(b, r.Index)
}

// Purges lists the indexes whose purge a restart must resume.
func Purges(r *snapshot.Reader) ([]Ref, error) {
	var out []Ref
	_, err := r.Range([]byte(purgePrefix), attr.PrefixEnd([]byte(purgePrefix)), func(k, _ []byte) (bool, error) {
		if len(k) == len(purgePrefix)+12 {
			out = append(out, Ref{binary.BigEndian.Uint64(k[8:]), binary.BigEndian.Uint32(k[16:])})
		}
		return true, nil
	})
	return out, err
}

// Backfill is one backfill job and what it needs of the core.
type Backfill struct {
	// Store begins the chunk's transaction.
	Store storage.Store
	// Snapshot takes a snapshot of the store now.
	Snapshot func() (*snapshot.Reader, error)
	// ReadItem reads and decodes the item at key (nil when there is none).
	ReadItem func(r storage.Reader, key []byte) (attr.Item, error)
	// LockStripes takes the item stripe locks of keys.
	LockStripes func(keys [][]byte) func()
	// Current returns the table's version now and the index as it holds
	// it; ok is false when the index is no longer the table's (deleted, or
	// the table deleted). It is asked before each chunk and, under the
	// chunk's stripe locks, before its commit.
	Current func() (t Table, ix *Index, ok bool)
	// Closing reports whether the engine is closing (the job stops; a
	// restart resumes it).
	Closing func() bool
	// BeforeChunk, when set (tests), runs before each chunk.
	BeforeChunk func()
	// Log is the job's logger; TableItems the table's ItemCount, for the
	// progress lines.
	Log        *slog.Logger
	TableItems func() int64
}

// Progress is what a backfill did so far.
type Progress struct {
	Scanned, Indexed, Skipped int64
}

// logEvery is how often a running backfill logs its progress.
const logEvery = 5 * time.Second

// Walk indexes every item of the item range [lower, upper), chunk by
// chunk, each chunk retried on a storage conflict. It reports whether it
// reached the end; when it did not (the engine closing, the index deleted,
// a storage failure) it has logged why.
func (b *Backfill) Walk(lower, upper []byte) (Progress, bool) {
	var p Progress
	lastLog := time.Now()
	for cursor := lower; cursor != nil; {
		if b.Closing() {
			b.Log.Info("index backfill interrupted; it resumes on restart", "scanned", p.Scanned)
			return p, false
		}
		t, ix, ok := b.Current()
		if !ok || !ix.Backfilling {
			return p, false
		}
		if b.BeforeChunk != nil {
			b.BeforeChunk()
		}
		res, err := b.Chunk(t, ix, cursor, upper)
		if errors.Is(err, storage.ErrConflict) {
			continue
		}
		if errors.Is(err, ErrStopped) {
			b.Log.Info("index backfill stopped: the index is being deleted", "scanned", p.Scanned)
			return p, false
		}
		if err != nil {
			b.Log.Error("index backfill failed", "err", err)
			return p, false
		}
		p.Scanned += int64(res.Seen)
		p.Indexed += int64(res.Added)
		p.Skipped += int64(res.Skipped)
		if now := time.Now(); now.Sub(lastLog) >= logEvery {
			lastLog = now
			total := max(b.TableItems(), p.Scanned)
			b.Log.Info("index backfill progress", "scanned", p.Scanned, "of", total, "indexed", p.Indexed, "skipped", p.Skipped)
		}
		cursor = res.Next
	}
	return p, true
}

// backfilling reports whether ix is still the table's and backfilling.
func (b *Backfill) backfilling() bool {
	_, cur, ok := b.Current()
	return ok && cur.Backfilling
}

// ChunkResult is what one chunk did: Next is the cursor of the next chunk
// (nil at the end), Seen the items read, Added the entries written and
// Skipped the items left out for a mistyped, empty or oversized key
// attribute.
type ChunkResult struct {
	Next                 []byte
	Seen, Added, Skipped int
}

// Chunk indexes in ix, an index of t, up to ChunkSize items of the item
// range [cursor, end), in one transaction. The keys come from a snapshot;
// the items are read again in the transaction, so that a write to one of
// them since makes the chunk conflict (storage.ErrConflict; the caller
// retries it) rather than index a stale version; entries a write already
// made are left alone. A chunk whose index stopped backfilling commits
// nothing and answers ErrStopped.
func (b *Backfill) Chunk(t Table, ix *Index, cursor, end []byte) (ChunkResult, error) {
	keys, err := b.listKeys(cursor, end)
	if err != nil {
		return ChunkResult{}, err
	}
	txn, err := b.Store.Begin()
	if err != nil {
		return ChunkResult{}, err
	}
	defer txn.Rollback()
	def := t.Def()
	var res ChunkResult
	var added []attr.Item
	for _, k := range keys {
		item, err := b.ReadItem(txn, k)
		if err != nil {
			return ChunkResult{}, err
		}
		if item == nil {
			continue
		}
		if !ix.Backfillable(item) {
			if ix.hasAnyKeyAttr(item) {
				res.Skipped++
			}
			continue
		}
		ek := EntryKey(def, ix, item)
		if _, err := txn.Get(ek); err == nil {
			continue
		} else if !errors.Is(err, storage.ErrNotFound) {
			return ChunkResult{}, err
		}
		entry := Project(def, ix, item)
		if err := txn.Set(ek, attr.AppendItem(nil, entry)); err != nil {
			return ChunkResult{}, err
		}
		added = append(added, entry)
	}
	// The commit holds the stripe locks of the chunk's items, so no writer
	// of one of them is between its Begin and its Commit meanwhile: a write
	// that committed after the chunk began makes the chunk conflict (and
	// retry), and a writer never conflicts with a chunk (it would retry at
	// once, and could exhaust its retries while the chunk is applied).
	unlock := b.LockStripes(keys)
	if !b.backfilling() {
		unlock()
		return ChunkResult{}, ErrStopped
	}
	err = txn.Commit(storage.CommitOptions{})
	unlock()
	if err != nil {
		return ChunkResult{}, err
	}
	if s := t.IndexStats(); s != nil {
		f := s.Of(ix.ID)
		for _, en := range added {
			f.Items.Add(1)
			f.Bytes.Add(EntrySize(en))
		}
	}
	if len(keys) == ChunkSize {
		res.Next = append(bytes.Clone(keys[len(keys)-1]), 0)
	}
	res.Seen, res.Added = len(keys), len(added)
	return res, nil
}

// listKeys lists up to ChunkSize item keys of [cursor, end) from a
// snapshot taken now.
func (b *Backfill) listKeys(cursor, end []byte) ([][]byte, error) {
	r, err := b.Snapshot()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var keys [][]byte
	_, err = r.Range(cursor, end, func(key, _ []byte) (bool, error) {
		keys = append(keys, bytes.Clone(key))
		return len(keys) < ChunkSize, nil
	})
	return keys, err
}

// Count counts the entries of index ref and their size as r holds them
// (size: the DynamoDB size of one stored entry). stop, when set, is asked
// every 4096 entries whether to give up (done false).
func Count(r *snapshot.Reader, ref Ref, size func(stored []byte) int64, stop func() bool) (items, bytes int64, done bool, err error) {
	done, err = r.Range(Prefix(ref.Table, ref.Index), Prefix(ref.Table, ref.Index+1), func(_, value []byte) (bool, error) {
		items++
		bytes += size(value) + Overhead
		if stop != nil && items%4096 == 0 && stop() {
			return false, nil
		}
		return true, nil
	})
	return items, bytes, done, err
}
