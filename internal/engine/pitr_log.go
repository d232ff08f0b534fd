package engine

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
)

// Point-in-time recovery keeps, for a table with PITR enabled, the image
// every item change replaced:
//
//	"p" tableID(8) time(8, Unix ns) → flag(1) len(suffix) suffix [old item]
//
// suffix is the item's storage key without the table's prefix; flag is 1
// when the item existed before the change (its stored form follows) and 0
// when the change created it. The entry commits with the change
// (the write path's subsystems), so the table as it was at any time T of the recovery
// window is the table now with each item changed since T replaced by the
// image its first change after T replaced (pitrState).
const prefixPITR = 'p'

// pitrTrimEvery is how often entries older than a table's recovery window
// are deleted.
const pitrTrimEvery = time.Hour

func pitrPrefix(tableID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixPITR}, tableID)
}

func pitrKey(tableID uint64, at int64) []byte {
	return binary.BigEndian.AppendUint64(pitrPrefix(tableID), uint64(at))
}

// pitrClock hands out strictly increasing change times (Unix ns) from the
// engine's clock, so no two entries of a table share a key and the changes
// of one item (serialised by its stripe lock) keep their order.
type pitrClock struct{ last atomic.Int64 }

func (c *pitrClock) next(now time.Time) int64 {
	for {
		last := c.last.Load()
		t := max(now.UnixNano(), last+1)
		if c.last.CompareAndSwap(last, t) {
			return t
		}
	}
}

// pitrWrites records the image old (nil: none) that a change of the item
// stored at key replaces, inside the change's transaction, when the table
// has point-in-time recovery on.
func (e *Engine) pitrWrites(txn storage.Txn, t *Table, key []byte, old attr.Item) error {
	if t.stats == nil || !t.stats.pitr.Load() {
		return nil // the flag every version of the table shares (a write may hold an older one)
	}
	suffix := itemSuffix(key)
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
	return txn.Set(pitrKey(t.ID, e.pitrTime.next(e.clock.Now())), v)
}

// decodePITR splits an entry's value: the item's key suffix and its
// stored image (nil when the change created the item).
func decodePITR(v []byte) (suffix, stored []byte, err error) {
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

// trimPITR deletes a table's entries older than before.
func (e *Engine) trimPITR(tableID uint64, before time.Time) {
	e.purgeUntilClose(pitrPrefix(tableID), pitrKey(tableID, before.UnixNano()))
}

// startPITRTrim runs the hourly background pass that keeps each table's
// entries within its recovery window and drops expired system backups.
func (e *Engine) startPITRTrim() {
	e.goBackground(func() {
		for e.sleep(pitrTrimEvery) {
			e.trimPITRWindows()
			e.expireSystemBackups()
		}
	})
}

func (e *Engine) trimPITRWindows() {
	now := e.clock.Now()
	for _, t := range e.snapshotTables() {
		if p := t.rec.PITR; p.Enabled {
			days := p.RecoveryPeriodInDays
			if days == 0 {
				days = defaultRecoveryPeriodDays
			}
			e.trimPITR(t.ID, now.AddDate(0, 0, -int(days)))
		}
	}
}
