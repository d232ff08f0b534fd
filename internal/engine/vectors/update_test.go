package vectors

import (
	"testing"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// TestApplyUpdates: UpdateTable's vector index Create and Delete through
// ApplyUpdates, with the record's IDs kept through the Change's functions.
func TestApplyUpdates(t *testing.T) {
	d := &wire.TableDescription{TableArn: wire.Ptr("arn:aws:dynamodb:us-east-1:000000000000:table/v"),
		AttributeDefinitions: []wire.AttributeDefinition{{AttributeName: wire.Ptr("pk"), AttributeType: "S"}}}
	ids := map[string]uint32{}
	var dropped []uint32
	c := Change{Name: "v", Desc: d, Keys: []KeyAttr{{Name: "pk", Type: attr.S}},
		HasIndex:    func(n string) bool { _, ok := ids[n]; return ok },
		IndexID:     func(n string) (uint32, bool) { id, ok := ids[n]; return id, ok },
		AddIndexID:  func(n string) { ids[n] = uint32(len(ids) + 1) },
		DropIndexID: func(n string) { delete(ids, n) },
		Drop:        func(id uint32) { dropped = append(dropped, id) },
	}
	create := &wire.UpdateTableInput{VectorIndexUpdates: []wire.VectorIndexUpdate{{Create: &wire.CreateVectorIndexAction{IndexName: wire.Ptr("vix"),
		VectorAttribute: &wire.VectorAttributeDefinition{AttributeName: wire.Ptr("emb")}, Dimensions: wire.Ptr(int64(4)),
		DistanceFunction: "COSINE", Projection: &wire.Projection{ProjectionType: "KEYS_ONLY"}}}}}
	if _, err := ApplyUpdates(c, create, false); err == nil || err.Message != "One or more parameter values were invalid: "+MsgPayPerRequest {
		t.Fatalf("provisioned: %v", err)
	}
	created, err := ApplyUpdates(c, create, true)
	if err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	if len(d.VectorIndexes) != 1 || d.VectorIndexes[0].IndexStatus != statusCreating || d.VectorIndexes[0].Backfilling == nil || *d.VectorIndexes[0].Backfilling || ids["vix"] != 1 {
		t.Fatalf("after create: %+v, ids %v", d.VectorIndexes, ids)
	}
	del := func(n string) *wire.UpdateTableInput {
		return &wire.UpdateTableInput{VectorIndexUpdates: []wire.VectorIndexUpdate{{Delete: &wire.DeleteVectorIndexAction{IndexName: wire.Ptr(n)}}}}
	}
	d.VectorIndexes[0].IndexStatus, d.VectorIndexes[0].Backfilling = statusActive, nil
	if _, err := ApplyUpdates(c, del("nope"), true); err == nil || err.Message != "Requested resource not found: Index nope for table v" {
		t.Fatalf("delete of a missing index: %v", err)
	}
	if created, err := ApplyUpdates(c, del("vix"), true); err != nil || created {
		t.Fatalf("delete: %v %v", created, err)
	}
	if d.VectorIndexes != nil || len(ids) != 0 || len(dropped) != 1 || dropped[0] != 1 {
		t.Fatalf("after delete: %+v, ids %v, dropped %v", d.VectorIndexes, ids, dropped)
	}
}
