package vectors

import (
	"errors"
	"fmt"
	"slices"
)

// Verify checks that vector index name of t agrees with the table as a
// snapshot taken now holds it: every item the index should hold is found
// by its own vector at distance 0 under an ID that maps back to it, and
// the index holds nothing else. Writers must be quiet meanwhile. It is a
// consistency check (the tests of the package and of the core's layout
// migration use it), not part of any request.
func (r *Registry) Verify(t Table, name string) error {
	def := t.Def()
	vx, ok := ByName(t.VectorIndexes(), name)
	if !ok {
		return fmt.Errorf("table %s has no vector index %s", def.Name, name)
	}
	rt := r.runtime(def.ID, vx.ID)
	if rt == nil {
		return fmt.Errorf("vector index %s of %s is not loaded", name, def.Name)
	}
	snap, err := r.opt.Host.Snapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	ss, err := r.opt.Store.NewSnapshot() // the point reads (writers are quiet)
	if err != nil {
		return err
	}
	defer ss.Close()
	n := 0
	_, err = snap.Items(def.ID, func(suffix, _ []byte) (bool, error) {
		key := snap.ItemKey(def.ID, suffix)
		item, err := r.opt.Host.ReadItem(ss, key, nil)
		if err != nil {
			return false, err
		}
		v, _, ok := vx.entry(item)
		if !ok {
			return true, nil
		}
		n++
		res, err := rt.index().SearchExact(v, 1, nil)
		if err != nil || len(res) != 1 || res[0].Score != 0 {
			return false, fmt.Errorf("item %x not found by its vector: %v %v", suffix, res, err)
		}
		mapped, err := ss.Get(idKey(rt.prefix, KeyID, res[0].ID))
		if err != nil || !slices.Equal(mapped, key) {
			return false, errors.Join(fmt.Errorf("item %x: index hit %d maps to another item", suffix, res[0].ID), err)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if got := rt.index().Len(); got != n {
		return fmt.Errorf("index %s holds %d vectors, the table %d", name, got, n)
	}
	return nil
}
