package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// privateSchema gives the test a PostgreSQL schema of its own (dropped at
// the end) and returns a URL whose connections use it, so that the test
// can write kura_meta without disturbing others.
func privateSchema(t *testing.T) string {
	t.Helper()
	url := testURL(t)
	name := "kura_test_" + strconv.FormatInt(nsN.Add(1), 10) + "_" + strings.ReplaceAll(freshNamespace(t), "-", "_")
	admin, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	if _, err := admin.Exec(context.Background(), "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP SCHEMA "+name+" CASCADE") })
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "search_path=" + name
}

func schemaVersion(t *testing.T, c *Cluster) string {
	t.Helper()
	var v string
	if err := c.pool.QueryRow(context.Background(), `SELECT value FROM kura_meta WHERE name = 'schema_version'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchemaNewerRefused checks that a Kura refuses a database whose schema
// a newer Kura wrote, with a message that says what to do, and leaves it
// alone.
func TestSchemaNewerRefused(t *testing.T) {
	url := privateSchema(t)
	c, err := Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaVersion(t, c); got != strconv.Itoa(len(migrations)) {
		t.Fatalf("fresh schema at version %s, want %d", got, len(migrations))
	}
	newer := strconv.Itoa(len(migrations) + 1)
	if _, err := c.pool.Exec(context.Background(), `UPDATE kura_meta SET value = $1 WHERE name = 'schema_version'`, newer); err != nil {
		t.Fatal(err)
	}
	_, err = Connect(url)
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "version "+newer) || !strings.Contains(err.Error(), "at least as new") {
		t.Errorf("Connect to a newer schema = %v, want ErrSchemaTooNew naming version %s", err, newer)
	}
	if got := schemaVersion(t, c); got != newer {
		t.Errorf("schema version = %s after the refusal, want %s untouched", got, newer)
	}
	_ = c.Close()
}

// TestSchemaMigrates checks that a Kura with one more migration than the
// database's schema applies it, once, and records the new version, keeping
// the data.
func TestSchemaMigrates(t *testing.T) {
	url := privateSchema(t)
	c, err := Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Store("m")
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "kept", "yes")
	_ = s.Close()
	_ = c.Close()

	old := migrations
	t.Cleanup(func() { migrations = old })
	migrations = append(append([]string(nil), old...), `CREATE TABLE kura_migration_probe (n integer)`)
	for range 2 { // the second start finds nothing to do
		c, err = Connect(url)
		if err != nil {
			t.Fatalf("Connect with a new migration: %v", err)
		}
		if got := schemaVersion(t, c); got != strconv.Itoa(len(migrations)) {
			t.Errorf("schema version = %s, want %d", got, len(migrations))
		}
		if _, err := c.pool.Exec(context.Background(), `SELECT n FROM kura_migration_probe`); err != nil {
			t.Errorf("the new migration did not run: %v", err)
		}
		s, err = c.Store("m")
		if err != nil {
			t.Fatal(err)
		}
		if v, err := s.Get([]byte("kept")); err != nil || string(v) != "yes" {
			t.Errorf("kept = %q, %v after the migration", v, err)
		}
		_ = s.Close()
		_ = c.Close()
	}
}
