package storage

// Update runs f in one transaction of store and commits it with opts; the
// transaction is rolled back when f or the commit fails.
func Update(store Store, opts CommitOptions, f func(Txn) error) error {
	txn, err := store.Begin()
	if err != nil {
		return err
	}
	defer txn.Rollback()
	if err := f(txn); err != nil {
		return err
	}
	return txn.Commit(opts)
}
