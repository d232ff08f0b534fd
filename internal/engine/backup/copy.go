package backup

import (
	"bytes"
	"slices"

	"github.com/kura-db/kura/internal/engine/snapshot"
)

// Copy copies the items of table tableID as r holds them under the
// prefix dst (keyed by the item suffix the reader gives), handing commit
// Chunk items at a time to write in one storage transaction; it stops
// early (false) once closing is closed.
func Copy(r *snapshot.Reader, tableID uint64, dst []byte, commit func(keys, vals [][]byte) error, closing <-chan struct{}) (bool, error) {
	var keys, vals [][]byte
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		err := commit(keys, vals)
		keys, vals = keys[:0], vals[:0]
		return err
	}
	ok, err := r.Items(tableID, func(suffix, stored []byte) (bool, error) {
		keys = append(keys, append(slices.Clip(dst), suffix...))
		vals = append(vals, bytes.Clone(stored))
		if len(keys) < Chunk {
			return true, nil
		}
		if err := flush(); err != nil {
			return false, err
		}
		select {
		case <-closing:
			return false, nil
		default:
			return true, nil
		}
	})
	if !ok || err != nil {
		return false, err
	}
	return true, flush()
}
