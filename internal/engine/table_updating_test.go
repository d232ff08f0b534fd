package engine

import (
	"context"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/wire"
)

// TestCtlAdmissionWhileUpdating: with --create-delay an UpdateTable keeps
// the table UPDATING, and what DynamoDB admits meanwhile depends on the
// update in progress (live probes, October 2026).
func TestCtlAdmissionWhileUpdating(t *testing.T) {
	ctx := context.Background()
	clk := &ctlClock{}
	e := ctlOpen(t, Config{Clock: clk, CreateDelay: time.Second})
	if _, err := e.CreateTable(ctx, ctlProvisioned("tbl", 1, 1)); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Second)
	name := cpPtr("tbl")
	update := func(in *wire.UpdateTableInput) (*wire.UpdateTableOutput, error) {
		in.TableName = name
		return e.UpdateTable(ctx, in)
	}
	if _, err := update(&wire.UpdateTableInput{ProvisionedThroughput: ctlPT(2, 2)}); err != nil {
		t.Fatal(err)
	}
	_, err := update(&wire.UpdateTableInput{ProvisionedThroughput: ctlPT(3, 3)})
	ctlWantErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table IOPS are currently being updated. Table: tbl")
	_, err = update(&wire.UpdateTableInput{BillingMode: BillingPayPerRequest})
	ctlWantErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table IOPS are currently being updated. Table: tbl")
	_, err = update(&wire.UpdateTableInput{StreamSpecification: &wire.StreamSpecification{StreamEnabled: cpPtr(true), StreamViewType: "KEYS_ONLY"}})
	ctlWantErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Can't enable or disable stream while table IOPS are being updated. Table: tbl")
	_, err = e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: name})
	ctlWantErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table: tbl is in the process of being updated.")
	up, err := update(&wire.UpdateTableInput{DeletionProtectionEnabled: cpPtr(true)})
	if err != nil || up.TableDescription.TableStatus != StatusUpdating || !cpDeref(up.TableDescription.DeletionProtectionEnabled) {
		t.Fatalf("deletion protection while UPDATING: %v %+v", err, up)
	}

	clk.advance(time.Second)
	if _, err := update(&wire.UpdateTableInput{DeletionProtectionEnabled: cpPtr(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := update(&wire.UpdateTableInput{StreamSpecification: &wire.StreamSpecification{StreamEnabled: cpPtr(true), StreamViewType: "KEYS_ONLY"}}); err != nil {
		t.Fatal(err)
	}
	_, err = update(&wire.UpdateTableInput{TableClass: "STANDARD_INFREQUENT_ACCESS"})
	ctlWantErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Can't update table class when stream status is being updated. Table: tbl")
	_, err = e.DeleteTable(ctx, &wire.DeleteTableInput{TableName: name})
	ctlWantErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Cannot delete table while stream is being enabled/disabled.")

	clk.advance(time.Second)
	if _, err := update(&wire.UpdateTableInput{ProvisionedThroughput: ctlPT(3, 3)}); err != nil {
		t.Fatalf("after the update settled: %v", err)
	}
}
