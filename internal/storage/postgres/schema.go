package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations[i] brings Kura's schema from version i to i+1; the schema's
// version is len(migrations). Append to it, never edit an entry: a newer
// Kura migrates an older schema by running the entries it lacks.
var migrations = []string{
	// 1: the key/value table (v NULL: a tombstone, see doc.go), the
	// tombstones' index for the sweep (gc.go), and the namespace leases
	// (lease.go).
	`CREATE TABLE kura_kv (
		k bytea PRIMARY KEY,
		v bytea,
		deleted_at timestamptz
	);
	CREATE INDEX kura_kv_tombstones ON kura_kv (deleted_at) WHERE v IS NULL;
	CREATE TABLE kura_leases (
		namespace text PRIMARY KEY,
		owner text NOT NULL,
		host text NOT NULL,
		pid integer NOT NULL,
		expires timestamptz NOT NULL
	)`,
}

// schemaLock is the advisory lock (a transaction's) that serialises Kura
// servers creating or migrating the schema at once.
const schemaLock = 0x6b757261 // "kura"

// ErrSchemaTooNew is returned by Connect when the database holds a schema
// written by a newer Kura.
var ErrSchemaTooNew = errors.New("postgres: the database's Kura schema is newer than this Kura")

// migrate creates the schema, or brings an older one up to date, in one
// transaction. It refuses a schema newer than this Kura knows: an older
// Kura could misread the data a newer one wrote.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS kura_meta (name text PRIMARY KEY, value text NOT NULL)`); err != nil {
			return err
		}
		have := 0
		var v string
		err := tx.QueryRow(ctx, `SELECT value FROM kura_meta WHERE name = 'schema_version'`).Scan(&v)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		default:
			if have, err = strconv.Atoi(v); err != nil {
				return fmt.Errorf("postgres: unreadable schema version %q in kura_meta", v)
			}
		}
		if have > len(migrations) {
			return fmt.Errorf("%w: the database is at version %d, this Kura knows versions up to %d; run a Kura at least as new as the one that last wrote it", ErrSchemaTooNew, have, len(migrations))
		}
		for i := have; i < len(migrations); i++ {
			if _, err := tx.Exec(ctx, migrations[i]); err != nil {
				return fmt.Errorf("postgres: migrating the schema to version %d: %w", i+1, err)
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO kura_meta (name, value) VALUES ('schema_version', $1)
			ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, strconv.Itoa(len(migrations)))
		return err
	})
}
