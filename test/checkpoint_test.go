package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// skipOnTiKV skips a test of checkpoints in the run on TiKV: they copy
// the embedded store's files (a TiKV cluster has its own backup tools).
func skipOnTiKV(t *testing.T) {
	if onStore {
		t.Skip("checkpoints copy the embedded store's files; not with --tikv-pd or --postgres (nor a cluster)")
	}
}

// postCheckpoint asks k for a checkpoint, signed with key and secret
// (none: unsigned), and returns the status and the answer's Path.
func postCheckpoint(t *testing.T, k *kura, key, secret string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", k.endpoint+"/admin/checkpoint", nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		signAs(t, req, key, secret, nil)
	}
	code, body := do(t, req)
	var out struct{ Path string }
	_ = json.Unmarshal([]byte(body), &out)
	return code, out.Path, body
}

// A checkpoint taken while clients write holds every write acknowledged
// before it; Kura starts on it as on any data directory, and the server
// that took it goes on. With authentication on the request must be signed.
func TestCheckpoint(t *testing.T) {
	skipOnTiKV(t)
	dir := t.TempDir()
	k := startKura(t, "--data-dir", filepath.Join(dir, "data"), "--checkpoint-dir", filepath.Join(dir, "backups"),
		"--credentials", "AKIDKURA:kura-secret")
	c := clientAs(k, "AKIDKURA", "kura-secret")
	table := createTable(t, c, "pk", "", "")
	put := func(c *dynamodb.Client, pk string) error {
		_, err := c.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": S(pk)}})
		return err
	}
	for i := 0; i < 50; i++ {
		if err := put(c, fmt.Sprintf("before-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// Writers keep going during the checkpoint.
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				if err := put(c, fmt.Sprintf("during-%d-%d", w, i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	if code, _, body := postCheckpoint(t, k, "", ""); code != 400 || !strings.Contains(body, "MissingAuthenticationTokenException") {
		t.Fatalf("unsigned: %d %s", code, body)
	}
	code, path, body := postCheckpoint(t, k, "AKIDKURA", "kura-secret")
	stop.Store(true)
	wg.Wait()
	if code != 200 || !strings.HasPrefix(path, filepath.Join(dir, "backups", "kura-")) {
		t.Fatalf("checkpoint: %d %s", code, body)
	}
	if err := put(c, "after"); err != nil {
		t.Fatalf("the server after its checkpoint: %v", err)
	}

	restored := startKura(t, "--data-dir", path, "--credentials", "AKIDKURA:kura-secret")
	rc := clientAs(restored, "AKIDKURA", "kura-secret")
	get := func(pk string) bool {
		out, err := rc.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": S(pk)}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	for i := 0; i < 50; i++ {
		if !get(fmt.Sprintf("before-%d", i)) {
			t.Fatalf("before-%d is not in the checkpoint", i)
		}
	}
	if get("after") {
		t.Fatal("a write after the checkpoint is in it")
	}
	// Each writer's items in the copy run without a gap from its first.
	for w := 0; w < 3; w++ {
		n := 0
		for get(fmt.Sprintf("during-%d-%d", w, n)) {
			n++
		}
		if get(fmt.Sprintf("during-%d-%d", w, n+1)) {
			t.Fatalf("writer %d: item %d missing before item %d", w, n, n+1)
		}
	}
}

// With a database per credential, a checkpoint copies each one, the ones
// not opened since the start too.
func TestCheckpointPerCredential(t *testing.T) {
	skipOnTiKV(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	k := startKura(t, "--data-dir", data, "--shared-db=false")
	tables := map[string]string{}
	for _, key := range []string{"ALICE", "BOB"} {
		tables[key] = createTable(t, clientAs(k, key, "x"), "pk", "", "")
	}
	k.stop()
	// Restarted, it has opened neither database when the checkpoint runs.
	k = startKura(t, "--data-dir", data, "--shared-db=false", "--checkpoint-dir", filepath.Join(dir, "backups"))
	code, path, body := postCheckpoint(t, k, "", "")
	if code != 200 {
		t.Fatalf("checkpoint: %d %s", code, body)
	}
	restored := startKura(t, "--data-dir", path, "--shared-db=false")
	for key, table := range tables {
		out, err := clientAs(restored, key, "x").ListTables(bg, &dynamodb.ListTablesInput{})
		if err != nil || len(out.TableNames) != 1 || out.TableNames[0] != table {
			t.Fatalf("%s's tables in the checkpoint: %v %v", key, out, err)
		}
	}
}

// With --regions a checkpoint copies every region and the global tables'
// replication state: Kura started on it has each region's tables and
// replicates on.
func TestCheckpointRegions(t *testing.T) {
	skipOnTiKV(t)
	dir := t.TempDir()
	k := startKura(t, "--data-dir", filepath.Join(dir, "data"), "--regions", "us-east-1,eu-west-1", "--checkpoint-dir", filepath.Join(dir, "backups"))
	east, west := keyClient(k, "AKID", "us-east-1"), keyClient(k, "AKID", "eu-west-1")
	streamTable(t, east, "Copied")
	if _, err := addReplica(east, "Copied", "eu-west-1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replica to be ACTIVE", func() bool { return replicaStatus(t, east, "Copied", "eu-west-1") == "ACTIVE" })
	createNotes(t, west, "west")
	code, path, body := postCheckpoint(t, k, "", "")
	if code != 200 {
		t.Fatalf("checkpoint: %d %s", code, body)
	}
	restored := startKura(t, "--data-dir", path, "--regions", "us-east-1,eu-west-1")
	east, west = keyClient(restored, "AKID", "us-east-1"), keyClient(restored, "AKID", "eu-west-1")
	if got := ownerOf(t, west); got != "west" {
		t.Fatalf("eu-west-1's item in the checkpoint: %q", got)
	}
	if _, err := east.PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Copied"), Item: map[string]types.AttributeValue{"pk": S("x"), "n": N("1")}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "replication on the copy", func() bool { return getN(t, west, "Copied", "x") == "1" })
}
