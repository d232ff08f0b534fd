package replication

import (
	"errors"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// The MRSC tests use three regions of DynamoDB's US region set and one of
// another set.
const use1, use2, usw2, euw1 = "us-east-1", "us-east-2", "us-west-2", "eu-west-1"

// plainTable creates table T (key pk, no stream) in region.
func (r *rig) plainTable(region string) {
	r.t.Helper()
	_, err := r.g.Region(region).CreateTable(bg, &wire.CreateTableInput{TableName: ptr("T"), BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: ptr("pk"), AttributeType: "S"}},
		KeySchema:            []wire.KeySchemaElement{{AttributeName: ptr("pk"), KeyType: "HASH"}}})
	if err != nil {
		r.t.Fatal(err)
	}
}

// makeStrong asks region to make T an MRSC table with replicas in
// replicas and witness ("" for none).
func (r *rig) makeStrong(region, witness string, replicas ...string) error {
	in := &wire.UpdateTableInput{TableName: ptr("T"), MultiRegionConsistency: consistencyStrong}
	for _, rep := range replicas {
		in.ReplicaUpdates = append(in.ReplicaUpdates, wire.ReplicationGroupUpdate{Create: &wire.CreateReplicationGroupMemberAction{RegionName: ptr(rep)}})
	}
	if witness != "" {
		in.GlobalTableWitnessUpdates = []wire.GlobalTableWitnessGroupUpdate{{Create: &wire.CreateGlobalTableWitnessGroupMemberAction{RegionName: ptr(witness)}}}
	}
	_, err := r.g.Region(region).UpdateTable(bg, in)
	return err
}

// strongTable makes T in us-east-1 an MRSC table with replicas in
// us-east-2 and us-west-2, and waits for them to be ACTIVE.
func (r *rig) strongTable() {
	r.t.Helper()
	r.plainTable(use1)
	if err := r.makeStrong(use1, "", use2, usw2); err != nil {
		r.t.Fatal(err)
	}
	r.waitFor("the replicas to be ACTIVE", func() bool { return r.describe(use1).TableStatus == "ACTIVE" })
}

func (r *rig) describe(region string) *wire.TableDescription {
	r.t.Helper()
	d, err := r.g.Region(region).DescribeTable(bg, &wire.DescribeTableInput{TableName: ptr("T")})
	if err != nil {
		r.t.Fatal(err)
	}
	return d.Table
}

// write puts pk with n through region's backend and returns its error.
func (r *rig) write(region, pk string, n string) error {
	_, err := r.g.Region(region).PutItem(bg, &wire.PutItemInput{TableName: ptr("T"),
		Item: attr.Item{"pk": {T: attr.S, Str: pk}, "n": {T: attr.N, Str: n}}})
	return err
}

// strongGet is pk's n read through region's backend with a strongly
// consistent GetItem.
func (r *rig) strongGet(region, pk string) string {
	r.t.Helper()
	out, err := r.g.Region(region).GetItem(bg, &wire.GetItemInput{TableName: ptr("T"), Key: attr.Item{"pk": {T: attr.S, Str: pk}}, ConsistentRead: ptr(true)})
	if err != nil {
		r.t.Fatal(err)
	}
	return out.Item["n"].Str
}

func wantError(t *testing.T, err error, typ, msg string) {
	t.Helper()
	var e *ddberr.Error
	if !errors.As(err, &e) || e.Type != typ || e.Message != msg {
		t.Fatalf("got %v, want %s: %s", err, typ, msg)
	}
}

// MRSC is created only as DynamoDB allows it: three regions of one region
// set, on an empty table; the description then shows STRONG and the
// witness, CREATING until the replica is ACTIVE.
func TestStrongCreation(t *testing.T) {
	r := newRigIn(t, use1, use2, usw2, euw1)
	r.plainTable(use1)
	wantError(t, r.makeStrong(use1, "", use2), "ValidationException", msgStrongCount)
	wantError(t, r.makeStrong(use1, use2, use2), "ValidationException", msgDuplicateRegion)
	wantError(t, r.makeStrong(use1, "", use2, euw1), "ValidationException", msgRegionSet(euw1))
	wantError(t, r.makeStrong(use1, usw2, use1), "ValidationException", msgLocalRegion)
	r.put(use1, "a", 1)
	wantError(t, r.makeStrong(use1, usw2, use2), "ValidationException", msgStrongNotEmpty)
	if _, err := r.engines[use1].DeleteItem(bg, &wire.DeleteItemInput{TableName: ptr("T"), Key: attr.Item{"pk": {T: attr.S, Str: "a"}}}); err != nil {
		t.Fatal(err)
	}

	if err := r.makeStrong(use1, usw2, use2); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the replica to be ACTIVE", func() bool { return r.describe(use1).TableStatus == "ACTIVE" })
	d := r.describe(use2)
	if d.MultiRegionConsistency != "STRONG" || len(d.GlobalTableWitnesses) != 1 || *d.GlobalTableWitnesses[0].RegionName != usw2 ||
		d.GlobalTableWitnesses[0].WitnessStatus != "ACTIVE" || len(d.Replicas) != 1 || *d.Replicas[0].RegionName != use1 {
		t.Fatalf("us-east-2's description: %+v", d)
	}
	wantError(t, r.makeStrong(use1, "", usw2), "ValidationException", msgConsistencyFixed)

	_, err := r.g.Region(use1).TransactWriteItems(bg, &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{
		{Put: &wire.Put{TableName: ptr("T"), Item: attr.Item{"pk": {T: attr.S, Str: "t"}}}}}})
	wantError(t, err, "ValidationException", msgStrongTransact)
	_, err = r.g.Region(use2).UpdateTimeToLive(bg, &wire.UpdateTimeToLiveInput{TableName: ptr("T"),
		TimeToLiveSpecification: &wire.TimeToLiveSpecification{AttributeName: ptr("exp"), Enabled: ptr(true)}})
	wantError(t, err, "ValidationException", msgStrongTTL)
}

// A write is acknowledged only once a second region has it: with a delay
// from us-east-1 to both other regions it waits, and returns once the
// delay to one of them has passed; a strongly consistent read in the
// region still behind returns it all the same.
//
// Seen failing with strongWrite not waiting for a majority (the write
// returned at once) and with strongRead not catching up (us-west-2's
// strongly consistent read returned nothing).
func TestStrongWriteWaitsForMajority(t *testing.T) {
	r := newRigIn(t, use1, use2, usw2)
	r.strongTable()
	r.g.SetDelay(use1, use2, time.Hour)
	r.g.SetDelay(use1, usw2, 2*time.Hour)
	done := make(chan error, 1)
	go func() { done <- r.write(use1, "a", "1") }()
	select {
	case err := <-done:
		t.Fatalf("acknowledged before a second region had it: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	r.clocks[use1].Advance(time.Hour)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := r.get(use2, "a"); got != "1" {
		t.Fatalf("us-east-2 acknowledged the write but holds %q", got)
	}
	if got := r.get(usw2, "a"); got != "" {
		t.Fatalf("us-west-2 has the write before its delay: %q", got)
	}
	if got := r.strongGet(usw2, "a"); got != "1" {
		t.Fatalf("a strongly consistent read in us-west-2: %q, want the acknowledged 1", got)
	}
}

// A write of an item that a write through another region is still making
// is refused with ReplicatedWriteConflictException; once that write is
// acknowledged the item can be written anywhere, and every region ends
// with the last write.
//
// Seen failing with itemLocks.hold refusing nothing (the second write
// succeeded).
func TestStrongConflict(t *testing.T) {
	r := newRigIn(t, use1, use2, usw2)
	r.strongTable()
	r.g.SetDelay(use1, use2, time.Hour)
	r.g.SetDelay(use1, usw2, time.Hour)
	done := make(chan error, 1)
	go func() { done <- r.write(use1, "a", "1") }()
	r.waitFor("us-east-1's write queued", func() bool { return r.backlog(use2) == 1 })
	wantError(t, r.write(use2, "a", "2"), "ReplicatedWriteConflictException",
		"The request was rejected because one or more items in the request are being modified by a request in another Region.")
	r.clocks[use1].Advance(time.Hour)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := r.write(use2, "a", "4"); err != nil {
		t.Fatal(err)
	}
	r.g.SetDelay(use1, use2, 0)
	r.g.SetDelay(use1, usw2, 0)
	for _, region := range []string{use1, use2, usw2} {
		if got := r.strongGet(region, "a"); got != "4" {
			t.Fatalf("%s: %q, want the last write 4", region, got)
		}
	}
}

// With one region cut off the other two still write (a majority); with
// two cut off the last one refuses writes and strongly consistent reads
// as unavailable, and serves eventually consistent reads. On recovery the
// regions converge.
//
// Seen failing with checkMajority accepting any count (the lone region's
// strongly consistent read was served).
func TestStrongMajority(t *testing.T) {
	r := newRigIn(t, use1, use2, usw2)
	r.strongTable()
	r.g.SetUnavailable(usw2, true)
	if err := r.write(use1, "a", "1"); err != nil {
		t.Fatalf("with a majority: %v", err)
	}
	r.g.SetUnavailable(use2, true)
	wantError(t, r.write(use1, "a", "2"), "ServiceUnavailable", "DynamoDB is currently unavailable. (This should be a temporary state.)")
	_, err := r.g.Region(use1).GetItem(bg, &wire.GetItemInput{TableName: ptr("T"), Key: attr.Item{"pk": {T: attr.S, Str: "a"}}, ConsistentRead: ptr(true)})
	wantError(t, err, "ServiceUnavailable", "DynamoDB is currently unavailable. (This should be a temporary state.)")
	out, err := r.g.Region(use1).GetItem(bg, &wire.GetItemInput{TableName: ptr("T"), Key: attr.Item{"pk": {T: attr.S, Str: "a"}}})
	if err != nil || out.Item["n"].Str != "1" {
		t.Fatalf("an eventually consistent read: %v %v", out, err)
	}
	r.g.SetUnavailable(use2, false)
	r.g.SetUnavailable(usw2, false)
	if err := r.write(use2, "b", "3"); err != nil {
		t.Fatal(err)
	}
	r.waitFor("us-west-2 to catch up", func() bool { return r.get(usw2, "a") == "1" && r.get(usw2, "b") == "3" })
}

// A PartiQL write is replicated synchronously too (it waits for the
// delays as an item write does), a strongly consistent SELECT in the
// region still behind returns it, and ExecuteTransaction is refused.
//
// Seen failing with ExecuteStatement left to the engine (the UPDATE
// returned at once).
func TestStrongPartiQL(t *testing.T) {
	r := newRigIn(t, use1, use2, usw2)
	r.strongTable()
	r.g.SetDelay(use1, use2, time.Hour)
	r.g.SetDelay(use1, usw2, 2*time.Hour)
	done := make(chan error, 1)
	go func() {
		_, err := r.g.Region(use1).ExecuteStatement(bg, &wire.ExecuteStatementInput{Statement: ptr(`INSERT INTO "T" VALUE {'pk': 'q', 'n': 7}`)})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("acknowledged before a second region had it: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	r.clocks[use1].Advance(time.Hour)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out, err := r.g.Region(usw2).ExecuteStatement(bg, &wire.ExecuteStatementInput{Statement: ptr(`SELECT * FROM "T" WHERE pk = 'q'`), ConsistentRead: ptr(true)})
	if err != nil || len(out.Items) != 1 || out.Items[0]["n"].Str != "7" {
		t.Fatalf("a strongly consistent SELECT in us-west-2: %v %v", out, err)
	}
	_, err = r.g.Region(use2).ExecuteTransaction(bg, &wire.ExecuteTransactionInput{TransactStatements: []wire.ParameterizedStatement{
		{Statement: ptr(`UPDATE "T" SET n = 8 WHERE pk = 'q'`)}}})
	wantError(t, err, "ValidationException", msgStrongTransact)
}

// A write whose item is not known holds its whole table: it conflicts
// with any item another region is writing, and any item write of another
// region conflicts with it; writes of one region never conflict.
//
// Seen failing with hold treating allKeys as one more item key (another
// region's item write held first did not stop it).
func TestStrongHoldsWholeTable(t *testing.T) {
	var l itemLocks
	conflicts := func(region string, keys ...string) bool {
		release, err := l.hold("T", region, keys)
		if err == nil {
			release()
		}
		return err != nil
	}
	release, err := l.hold("T", use1, []string{allKeys})
	if err != nil {
		t.Fatal(err)
	}
	if !conflicts(use2, `{"pk":{"S":"a"}}`) || conflicts(use1, `{"pk":{"S":"a"}}`) {
		t.Fatal("a whole-table hold: another region's item write went through, or its own region's did not")
	}
	release()
	release, err = l.hold("T", use2, []string{`{"pk":{"S":"a"}}`})
	if err != nil {
		t.Fatal(err)
	}
	if !conflicts(use1, allKeys) || conflicts(use2, allKeys) || conflicts(use1, `{"pk":{"S":"b"}}`) {
		t.Fatal("an item held: another region's whole-table write went through, or an unrelated write was refused")
	}
	release()
	if conflicts(use1, allKeys) {
		t.Fatal("released holds still refuse")
	}
}
