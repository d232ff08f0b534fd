package test

import (
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Global tables with --shared-db=false: two access keys, each with its own
// global table of one name across us-east-1 and eu-west-1, replicate both
// ways, each within its own databases, while a third key's requests make
// --max-open-databases (2, fewer than the four pinned) close idle
// databases; after a restart, and on a checkpoint, replication resumes for
// both keys.
func TestGlobalTablesPerKey(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--shared-db=false", "--regions", "us-east-1,eu-west-1", "--max-open-databases", "2"}
	if !onStore {
		// Checkpoints copy the embedded store's files.
		base = append(base, "--checkpoint-dir", filepath.Join(dir, "backups"))
	}
	args := append([]string{"--data-dir", filepath.Join(dir, "data")}, base...)
	k := startKura(t, args...)
	keys := []string{"KEYA", "KEYB"}
	clients := func() map[string][2]*dynamodb.Client {
		m := map[string][2]*dynamodb.Client{}
		for _, id := range keys {
			m[id] = [2]*dynamodb.Client{keyClient(k, id, "us-east-1"), keyClient(k, id, "eu-west-1")}
		}
		return m
	}
	c := clients()
	for _, id := range keys {
		streamTable(t, c[id][0], "Glob")
		if _, err := addReplica(c[id][0], "Glob", "eu-west-1"); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		waitReplicaActive(t, c[id][0], "Glob", "eu-west-1")
	}
	// Each key's writes, both ways; the same key in each holds another
	// value, which must not cross between the keys.
	replicate := func(pk string) {
		t.Helper()
		for i, id := range keys {
			if err := putN(c[id][0], "Glob", pk+"-east", string(rune('1'+i))); err != nil {
				t.Fatal(err)
			}
			if err := putN(c[id][1], "Glob", pk+"-west", string(rune('5'+i))); err != nil {
				t.Fatal(err)
			}
		}
		for _, region := range []string{"us-east-1", "eu-west-1", "ap-south-1"} {
			// Another key's requests, which push idle databases out.
			keyClient(k, "KEYC", region).ListTables(bg, &dynamodb.ListTablesInput{})
		}
		for i, id := range keys {
			eventually(t, id+"'s write in eu-west-1", func() bool { return getN(t, c[id][1], "Glob", pk+"-east") == string(rune('1'+i)) })
			eventually(t, id+"'s write in us-east-1", func() bool { return getN(t, c[id][0], "Glob", pk+"-west") == string(rune('5'+i)) })
		}
	}
	replicate("before")
	k.kill()

	restarted := func(what string, args []string) {
		t.Helper()
		k = startKura(t, args...)
		c = clients()
		for _, id := range keys {
			if r := replicaStatus(t, c[id][1], "Glob", "us-east-1"); r != "ACTIVE" {
				t.Fatalf("%s's replica in us-east-1 after %s: %q", id, what, r)
			}
		}
		replicate(what)
	}
	restarted("a restart", args)
	if onStore {
		return // checkpoints copy the embedded store's files
	}
	// A checkpoint holds the keys' replication state: Kura started on it
	// replicates both ways.
	code, path, body := postCheckpoint(t, k, "", "")
	if code != 200 || path == "" {
		t.Fatalf("checkpoint: %d %s", code, body)
	}
	k.kill()
	restarted("a start on a checkpoint", append([]string{"--data-dir", path}, base...))
}
