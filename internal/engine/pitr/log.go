package pitr

import (
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/storage"
)

// prefix is the first byte of every entry's key.
const prefix = 'p'

// Prefix is the common prefix of a table's entries.
func Prefix(tableID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefix}, tableID)
}

// Key is the key of a table's entry at time at (Unix ns).
func Key(tableID uint64, at int64) []byte {
	return binary.BigEndian.AppendUint64(Prefix(tableID), uint64(at))
}

// Clock is the time source of change times.
type Clock interface{ Now() time.Time }

// Log is the point-in-time history subsystem.
type Log struct {
	clock Clock
	last  atomic.Int64 // the last change time handed out (Unix ns)

	mu sync.Mutex // serialises SetRecording
	// recording is the set of table IDs that record, copied on change so
	// that writers read it with one atomic load.
	recording atomic.Pointer[map[uint64]bool]
}

// New returns a Log taking change times from clock; no table records yet.
func New(clock Clock) *Log {
	l := &Log{clock: clock}
	l.recording.Store(&map[uint64]bool{})
	return l
}

// Next hands out a change time from now: strictly increasing, so that no
// two entries share a key and changes keep their order.
func (l *Log) Next(now time.Time) int64 {
	for {
		last := l.last.Load()
		t := max(now.UnixNano(), last+1)
		if l.last.CompareAndSwap(last, t) {
			return t
		}
	}
}

// SetRecording says whether changes of the table write entries. It is
// shared by every version of the table, so that a write holding an older
// version follows the latest setting.
func (l *Log) SetRecording(tableID uint64, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := *l.recording.Load()
	if cur[tableID] == on {
		return
	}
	next := make(map[uint64]bool, len(cur)+1)
	for id, v := range cur {
		next[id] = v
	}
	if on {
		next[tableID] = true
	} else {
		delete(next, tableID)
	}
	l.recording.Store(&next)
}

// Recording reports whether changes of the table write entries.
func (l *Log) Recording(tableID uint64) bool { return (*l.recording.Load())[tableID] }

// Stage records the image c replaced, in c's transaction, when its table
// records.
func (l *Log) Stage(txn storage.Txn, c change.Change) error {
	id := c.Table.Def().ID
	if !l.Recording(id) {
		return nil
	}
	return txn.Set(Key(id, l.Next(l.clock.Now())), encodeEntry(c.Suffix, c.Old))
}

// Committed has nothing to do: the entry is all the state there is.
func (*Log) Committed(change.Change) {}

// encodeEntry is the value of an entry for the item at suffix whose
// previous state was old (nil: none).
func encodeEntry(suffix []byte, old attr.Item) []byte {
	v := make([]byte, 0, 16+len(suffix))
	if old != nil {
		v = append(v, 1)
	} else {
		v = append(v, 0)
	}
	v = binary.AppendUvarint(v, uint64(len(suffix)))
	v = append(v, suffix...)
	if old != nil {
		v = attr.AppendItem(v, old)
	}
	return v
}

// DecodeEntry splits an entry's value: the item's key suffix and its
// stored image (nil when the change created the item).
func DecodeEntry(v []byte) (suffix, stored []byte, err error) {
	if len(v) < 2 {
		return nil, nil, errors.New("engine: short point-in-time entry")
	}
	existed := v[0] == 1
	n, w := binary.Uvarint(v[1:])
	if w <= 0 || uint64(len(v)-1-w) < n {
		return nil, nil, errors.New("engine: corrupt point-in-time entry")
	}
	suffix = v[1+w : 1+w+int(n)]
	if existed {
		stored = v[1+w+int(n):]
	}
	return suffix, stored, nil
}

// WithSuffix is entry value v naming the item at suffix instead (the key
// layout migration's rewrite of item keys, engine/layout.go).
func WithSuffix(v, suffix []byte) ([]byte, error) {
	_, stored, err := DecodeEntry(v)
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint([]byte{v[0]}, uint64(len(suffix)))
	out = append(out, suffix...)
	return append(out, stored...), nil
}

// Range is the key range of every table's entries.
func Range() (lower, upper []byte) { return []byte{prefix}, []byte{prefix + 1} }
