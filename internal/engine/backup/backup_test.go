package backup_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/engine/backup"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
)

// source stands for the core's table record.
type source struct {
	Name string `json:"name"`
	ID   uint64 `json:"id"`
}

type record = backup.Record[source]

const arnOf = "arn:aws:dynamodb:us-east-1:000000000000:table/T/backup/"

// TestRecordStored: the stored form keeps its members (the core's
// records written before the package existed read back the same).
func TestRecordStored(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := record{ID: 7, ARN: arnOf + "x", Name: "n", Status: backup.Available, Created: at, SizeBytes: 10, ItemCount: 2,
		Source: source{Name: "T", ID: 3}, System: true, Expires: at}
	v, err := json.Marshal(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":7,"arn":"` + arnOf + `x","name":"n","status":"AVAILABLE","created":"2026-01-02T03:04:05Z","size":10,"items":2,` +
		`"source":{"name":"T","id":3},"system":true,"expires":"2026-01-02T03:04:05Z"}`
	if string(v) != want {
		t.Fatalf("stored\n%s\nwant\n%s", v, want)
	}
	user := record{ID: 1}
	if v, _ := json.Marshal(&user); strings.Contains(string(v), "system") || strings.Contains(string(v), "expires") {
		t.Fatalf("a user backup stores %s", v)
	}
	if k := backup.Key(7); string(k) != "b\x00\x00\x00\x00\x00\x00\x00\x07" {
		t.Fatalf("key %q", k)
	}
	if k := backup.ItemPrefix(7); string(k) != "B\x00\x00\x00\x00\x00\x00\x00\x07" {
		t.Fatalf("item prefix %q", k)
	}
}

// TestARNsAndOrder: DynamoDB's ARN shapes, the region ignored when a
// backup is looked up, ListBackups' order by creation time then ARN.
func TestARNsAndOrder(t *testing.T) {
	at := time.UnixMilli(1700000000123)
	a := backup.NewARN("us-east-1", "000000000000", "T", at)
	if !strings.HasPrefix(a, arnOf+"01700000000123-") || len(a) != len(arnOf)+14+1+8 {
		t.Fatalf("ARN %s", a)
	}
	if s := backup.SystemARN("us-east-1", "000000000000", "T", at); s != arnOf+"01700000000123-00000000" {
		t.Fatalf("system ARN %s", s)
	}
	if r := backup.Resource(a); r != strings.TrimPrefix(a, "arn:aws:dynamodb:us-east-1:000000000000:") {
		t.Fatalf("resource %s", r)
	}
	b := &record{ARN: a, Created: at}
	if b.Position().Compare(backup.PositionOf(a)) != 0 {
		t.Fatal("a backup is not where its ARN places it")
	}
	later := backup.PositionOf(arnOf + "01700000000124-00000000")
	if b.Position().Compare(later) >= 0 || later.Compare(b.Position()) <= 0 {
		t.Fatal("order by creation time")
	}
	for filter, user := range map[string]bool{"": true, "USER": true, "ALL": true, "SYSTEM": false, "AWS_BACKUP": false} {
		if got := b.TypeMatches(filter); got != user {
			t.Errorf("user backup, filter %q: %v", filter, got)
		}
	}
	sys := &record{System: true, Expires: at}
	if !sys.TypeMatches("SYSTEM") || !sys.TypeMatches("ALL") || sys.TypeMatches("") || sys.TypeMatches("USER") {
		t.Error("system backup filters")
	}
	if d := sys.Details(); d.BackupType != "SYSTEM" || d.BackupExpiryDateTime == nil {
		t.Errorf("system details %+v", d)
	}
	if d := b.Details(); d.BackupType != "USER" || *d.BackupArn != a || d.BackupExpiryDateTime != nil {
		t.Errorf("user details %+v", d)
	}
}

// TestRegistry: lookups by any region's ARN, replacement and removal,
// the sorted listing, expiry, the restores in progress.
func TestRegistry(t *testing.T) {
	var r backup.Registry[source]
	now := time.UnixMilli(1700000000000)
	mk := func(ms int64, table string, system bool) *record {
		return &record{ARN: fmt.Sprintf(arnOf+"%014d-0000000%d", ms, ms%10), Created: time.UnixMilli(ms), Source: source{Name: table},
			System: system, Expires: now}
	}
	b1, b2, b3 := mk(1700000000002, "T", false), mk(1700000000001, "U", false), mk(1700000000003, "T", true)
	for _, b := range []*record{b1, b2, b3} {
		r.Set(b.ARN, b)
	}
	if got, ok := r.Get(strings.Replace(b1.ARN, "us-east-1", "eu-west-1", 1)); !ok || got != b1 {
		t.Fatal("lookup by another region's ARN")
	}
	all := r.Sorted(func(*record) bool { return true })
	if !reflect.DeepEqual(all, []*record{b2, b1, b3}) {
		t.Fatalf("sorted %v", all)
	}
	if ts := r.Sorted(func(b *record) bool { return b.Source.Name == "T" }); len(ts) != 2 || ts[0] != b1 {
		t.Fatalf("T's %v", ts)
	}
	if ex := r.Expired(now.Add(-time.Millisecond)); len(ex) != 0 {
		t.Fatal("expired early")
	}
	if ex := r.Expired(now); len(ex) != 1 || ex[0] != b3 {
		t.Fatalf("expired %v", ex)
	}
	r.Set(b1.ARN, nil)
	if _, ok := r.Get(b1.ARN); ok {
		t.Fatal("removed backup found")
	}
}

// TestCopy: a table's items as the snapshot holds them, under the
// backup's prefix, Chunk at a time, stopped by closing.
func TestCopy(t *testing.T) {
	store := memory.New()
	txn, err := store.Begin()
	if err != nil {
		t.Fatal(err)
	}
	n := backup.Chunk*2 + 5
	for i := range n {
		if err := txn.Set(fmt.Appendf([]byte{'i', 1}, "%04d", i), []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Set([]byte("i\x02other"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(storage.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	layout := &snapshot.Layout{
		Items:     func(id uint64) ([]byte, []byte) { return []byte{'i', byte(id)}, []byte{'i', byte(id + 1)} },
		PrefixLen: 2,
	}
	r, err := snapshot.Open(store, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := map[string]byte{}
	var sizes []int
	ok, err := backup.Copy(r, 1, backup.ItemPrefix(9), func(keys, vals [][]byte) error {
		sizes = append(sizes, len(keys))
		for i := range keys {
			got[string(keys[i])] = vals[i][0]
		}
		return nil
	}, make(chan struct{}))
	if !ok || err != nil || len(got) != n || !reflect.DeepEqual(sizes, []int{backup.Chunk, backup.Chunk, 5}) {
		t.Fatalf("copy: %v %v, %d items in %v", ok, err, len(got), sizes)
	}
	if v, ok := got[string(backup.ItemPrefix(9))+"0007"]; !ok || v != 7 {
		t.Fatalf("item 7: %v %v", v, ok)
	}
	closed := make(chan struct{})
	close(closed)
	sizes = nil
	ok, err = backup.Copy(r, 1, backup.ItemPrefix(9), func(keys, vals [][]byte) error { sizes = append(sizes, len(keys)); return nil }, closed)
	if ok || err != nil || len(sizes) != 1 {
		t.Fatalf("closed copy: %v %v %v", ok, err, sizes)
	}
}
