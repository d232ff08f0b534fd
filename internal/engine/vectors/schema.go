package vectors

import (
	"fmt"
	"slices"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/engine/change"
	"github.com/kura-db/kura/internal/vector"
	"github.com/kura-db/kura/internal/wire"
)

// KeyAttr is one key or SearchSchema attribute.
type KeyAttr = change.KeyAttr

// Statuses, projection types and the billing mode the definitions name
// (the core's constants, as DynamoDB spells them).
const (
	statusCreating = "CREATING"
	statusActive   = "ACTIVE"
	projectAll     = "ALL"
	projectInclude = "INCLUDE"
)

// Vector index limits (DynamoDB's).
const (
	MaxIndexes          = 5
	maxVectorDimensions = 4096
	// maxVectorProjected bounds a vector index's INCLUDE projection: its
	// NonKeyAttributes and its vector attribute (which DynamoDB counts as
	// projected) together; the table's key attributes do not count.
	maxVectorProjected = 20
	// maxVectorInlineFilters is the documented quota of INLINE_FILTER
	// elements in a vector index's SearchSchema (as ScyllaDB's Alternator
	// tests quote it; the refusal's text is Kura's, worded as DynamoDB's
	// HASH count refusal).
	maxVectorInlineFilters = 18
	// DefaultVectorMaxTopK is DynamoDB's TopK cap; Config.VectorMaxTopK may
	// raise it (a Kura extension, off by default).
	DefaultMaxTopK = 100
	// MaxMaxTopK is the largest TopK cap Kura accepts.
	MaxMaxTopK = 10000
)

// Search schema element types.
const (
	searchHash   = "HASH"
	searchInline = "INLINE_FILTER"
)

// Texts DynamoDB answers for vector index definitions (measured against the
// service, see the report of the vector index work).
const (
	MsgPayPerRequest     = "Vector indexes are only supported for PAY_PER_REQUEST tables"
	msgVectorCountCreate = "VectorIndex count exceeds the per-table limit of 5"
	MsgCountUpdate       = "Subscriber limit exceeded: Number of vector secondary indexes exceeds per-table limit of 5"
	msgSearchSchemaUndef = "One element in SearchSchema is not defined in attribute definitions"
	MsgIndexExists       = "Attempting to create an index which already exists"
)

// Index is one vector index of a table, parsed from its description.
// Its storage lives under Options.Prefix(tableID, ID) (store.go).
type Index struct {
	Name       string
	ID         uint32
	Attr       string // the vector attribute
	Dims       int
	Distance   vector.Distance
	Projection string   // ALL, KEYS_ONLY or INCLUDE
	NonKey     []string // INCLUDE attributes
	Hash       *KeyAttr // SearchSchema HASH element, if any
	Inline     []KeyAttr
	Status     string
	// Backfilling is the description's Backfilling member (nil: absent).
	Backfilling *bool
}

// Ready reports whether SearchVectors may use the index.
func (vx *Index) Ready() bool { return vx.Status == statusActive }

// IsHashAttr reports whether name is the HASH attribute of one of vxs.
func IsHashAttr(vxs []*Index, name string) bool {
	for _, vx := range vxs {
		if vx.Hash != nil && vx.Hash.Name == name {
			return true
		}
	}
	return false
}

// schemaAttr reports whether name is a SearchSchema attribute of vx.
func (vx *Index) schemaAttr(name string) (KeyAttr, bool, bool) {
	if vx.Hash != nil && vx.Hash.Name == name {
		return *vx.Hash, true, true
	}
	for _, k := range vx.Inline {
		if k.Name == name {
			return k, false, true
		}
	}
	return KeyAttr{}, false, false
}

// isKey reports whether name is a key attribute of table t.
func isKey(t *change.Table, name string) bool {
	return name == t.Hash.Name || (t.Range != nil && name == t.Range.Name)
}

// projects reports whether attribute name of table t is projected into vx
// (the vector attribute only under ALL or INCLUDE naming it).
func (vx *Index) projects(t *change.Table, name string) bool {
	if vx.Projection == projectAll || isKey(t, name) {
		return true
	}
	if _, _, ok := vx.schemaAttr(name); ok {
		return true
	}
	return slices.Contains(vx.NonKey, name)
}

// project is the index's copy of an item of t: every projected attribute.
func (vx *Index) project(t *change.Table, it attr.Item) attr.Item {
	if vx.Projection == projectAll {
		return it
	}
	out := make(attr.Item, 4+len(vx.NonKey)+len(vx.Inline))
	for n, v := range it {
		if vx.projects(t, n) {
			out[n] = v
		}
	}
	return out
}

// Build parses the vector index descriptions of table; idOf gives an
// index's ID by name, types the defined attributes' types.
func Build(table string, descs []wire.VectorIndexDescription, idOf func(string) (uint32, bool), types map[string]attr.Type) ([]*Index, error) {
	var out []*Index
	for _, d := range descs {
		name := wire.Deref(d.IndexName)
		id, ok := idOf(name)
		if !ok {
			return nil, fmt.Errorf("engine: table %s: vector index %s has no ID", table, name)
		}
		dist, err := vector.ParseDistance(d.DistanceFunction)
		if err != nil {
			return nil, err
		}
		vx := &Index{Name: name, ID: id, Dims: int(wire.Deref(d.Dimensions)), Distance: dist,
			Status: d.IndexStatus, Backfilling: d.Backfilling}
		if d.VectorAttribute != nil {
			vx.Attr = wire.Deref(d.VectorAttribute.AttributeName)
		}
		if p := d.Projection; p != nil {
			vx.Projection = p.ProjectionType
			if p.ProjectionType == projectInclude {
				vx.NonKey = slices.Clone(p.NonKeyAttributes)
			}
		}
		for _, s := range d.SearchSchema {
			ka := KeyAttr{Name: wire.Deref(s.AttributeName), Type: types[wire.Deref(s.AttributeName)]}
			if s.SearchSchemaElementType == searchHash {
				vx.Hash = &ka
			} else {
				vx.Inline = append(vx.Inline, ka)
			}
		}
		out = append(out, vx)
	}
	return out, nil
}

// ByName returns the index of vxs with the given name.
func ByName(vxs []*Index, name string) (*Index, bool) {
	for _, vx := range vxs {
		if vx.Name == name {
			return vx, true
		}
	}
	return nil, false
}

// byID returns the index of vxs with the given ID, or nil.
func byID(vxs []*Index, id uint32) *Index {
	for _, vx := range vxs {
		if vx.ID == id {
			return vx
		}
	}
	return nil
}

// Def is the common shape of CreateTable's VectorIndex and UpdateTable's
// CreateVectorIndexAction.
type Def struct {
	Name     string
	Attr     string
	Dims     int64
	Distance string
	Proj     *wire.Projection
	Schema   []wire.SearchSchemaElement
}

// DefsOfCreate are CreateTable's vector index definitions.
func DefsOfCreate(in []wire.VectorIndex) []Def {
	out := make([]Def, len(in))
	for i, v := range in {
		out[i] = Def{Name: wire.Deref(v.IndexName), Dims: wire.Deref(v.Dimensions), Distance: v.DistanceFunction, Proj: v.Projection, Schema: v.SearchSchema}
		if v.VectorAttribute != nil {
			out[i].Attr = wire.Deref(v.VectorAttribute.AttributeName)
		}
	}
	return out
}

// DefOfUpdate is UpdateTable's CreateVectorIndexAction as a Def.
func DefOfUpdate(c *wire.CreateVectorIndexAction) Def {
	v := Def{Name: wire.Deref(c.IndexName), Dims: wire.Deref(c.Dimensions), Distance: c.DistanceFunction, Proj: c.Projection, Schema: c.SearchSchema}
	if c.VectorAttribute != nil {
		v.Attr = wire.Deref(c.VectorAttribute.AttributeName)
	}
	return v
}

// SearchSchemaKeys lists the SearchSchema attributes as key schema elements
// (CreateTable counts them as used attribute definitions).
func SearchSchemaKeys(in []wire.VectorIndex, defined map[string]bool) []wire.KeySchemaElement {
	var out []wire.KeySchemaElement
	for _, v := range in {
		for _, s := range v.SearchSchema {
			if !defined[wire.Deref(s.AttributeName)] {
				continue // reported by ValidateCreate
			}
			out = append(out, wire.KeySchemaElement{AttributeName: s.AttributeName, KeyType: "HASH"})
		}
	}
	return out
}

// ValidateDef checks one vector index definition against the table's
// key attributes, the attribute definitions the vector attribute may not
// appear in (defs) and those that must define its SearchSchema (reqDefs:
// the request's own, in UpdateTable too, even for an attribute the table
// already defines; measured against DynamoDB, 2026-08-13, by another
// emulator's authors). checkProj is the core's check of an index
// Projection, shared with secondary indexes.
func ValidateDef(v Def, defs, reqDefs []wire.AttributeDefinition, keys []KeyAttr, checkProj func(*wire.Projection) *ddberr.Error) *ddberr.Error {
	if v.Dims < 1 || v.Dims > maxVectorDimensions {
		// eu-west-2, 2026-08-11, in a public conformance suite.
		return ddberr.InvalidParam("Number of dimensions must be between 1 and %d inclusive.", maxVectorDimensions)
	}
	if err := checkProj(v.Proj); err != nil {
		return err
	}
	if err := checkVectorProjected(v, keys); err != nil {
		return err
	}
	for _, d := range defs {
		if wire.Deref(d.AttributeName) == v.Attr {
			return AttrDefined(v.Attr)
		}
	}
	for _, k := range keys {
		if k.Name == v.Attr {
			// UpdateTable, where the request does not define the table's key
			// (measured against DynamoDB, 2026-08-13, by another emulator's
			// authors).
			return ddberr.InvalidParam("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. "+
				"Existing schema: Schema:[SchemaElement: key{%s:%s:%s}] New schema: VectorIndexSchema:[VectorAttribute: key{%s:L:%d}]",
				k.Name, k.Type, keyRole(k, keys), v.Attr, v.Dims)
		}
	}
	hashes, filters := 0, 0
	seen := map[string]bool{}
	for _, s := range v.Schema {
		n := wire.Deref(s.AttributeName)
		if seen[n] {
			// Whatever the two elements' types (eu-west-2 and us-east-1,
			// 2026-08-12, captured by another emulator's authors;
			// ScyllaDB's Alternator tests agree).
			return ddberr.InvalidParam("SearchSchema contains a duplicate AttributeName")
		}
		seen[n] = true
		if !slices.ContainsFunc(reqDefs, func(d wire.AttributeDefinition) bool { return wire.Deref(d.AttributeName) == n }) {
			return ddberr.InvalidParam(msgSearchSchemaUndef)
		}
		if s.SearchSchemaElementType == searchHash {
			hashes++
		} else {
			filters++
		}
	}
	if hashes > 1 {
		// eu-west-2 and us-east-1, 2026-08-12, captured by another
		// emulator's authors.
		return ddberr.InvalidParam("Value '%d' at 'SearchSchema' failed to satisfy constraint: Member must have HASH count less than or equal to 1", hashes)
	}
	if filters > maxVectorInlineFilters {
		return ddberr.InvalidParam("Value '%d' at 'SearchSchema' failed to satisfy constraint: Member must have INLINE_FILTER count less than or equal to %d", filters, maxVectorInlineFilters)
	}
	return nil
}

// checkVectorProjected refuses an INCLUDE projection of more than
// maxVectorProjected attributes, counting the vector attribute (ScyllaDB's
// Alternator tests, run against DynamoDB: 19 NonKeyAttributes are taken,
// 20 refused with a text about projected attributes, with a one- or a
// two-attribute table key alike). The exact text is not recorded; Kura's
// follows the wording of the all-indexes limit.
func checkVectorProjected(v Def, keys []KeyAttr) *ddberr.Error {
	if v.Proj == nil || v.Proj.ProjectionType != projectInclude {
		return nil
	}
	projected := map[string]bool{v.Attr: true}
	for _, n := range v.Proj.NonKeyAttributes {
		if !slices.ContainsFunc(keys, func(k KeyAttr) bool { return k.Name == n }) {
			projected[n] = true
		}
	}
	if len(projected) > maxVectorProjected {
		return ddberr.InvalidParam("Number of projected attributes in vector index %s exceeds limit of %d", v.Name, maxVectorProjected)
	}
	return nil
}

// keyRole names a table key attribute's role (HASH or RANGE).
func keyRole(k KeyAttr, keys []KeyAttr) string {
	if len(keys) > 0 && keys[0].Name == k.Name {
		return "HASH"
	}
	return "RANGE"
}

// AttrDefined refuses a vector attribute that AttributeDefinitions
// (a key's or an index key's) also defines (DynamoDB's CreateTable text,
// eu-west-2 and us-east-1, 2026-08-12; in UpdateTable the request's
// definitions and the table's index key attributes are checked so).
func AttrDefined(name string) *ddberr.Error {
	return ddberr.InvalidParam("Conflicting attribute definition for '%s'. An attribute cannot be defined in AttributeDefinitions when used as a VectorAttribute.", name)
}

// CheckDims rejects two indexes over one attribute with different
// Dimensions (existing lists indexes already on the table). For two
// indexes of one CreateTable the text is DynamoDB's (eu-west-2, 2026-08-11,
// in a public conformance suite). For an index UpdateTable adds, DynamoDB's
// text is not recorded; Kura answers in the schema-redefinition form
// DynamoDB's UpdateTable uses for the recorded vector conflicts (a vector
// index on a key attribute, a GSI on a vector attribute), which names the
// VectorAttribute as ScyllaDB's test_vector_new.py expects (its older
// test_vector.py expects the dimensions named instead).
func CheckDims(defs []Def, existing []*Index) *ddberr.Error {
	dims := map[string]int64{}
	for _, vx := range existing {
		dims[vx.Attr] = int64(vx.Dims)
	}
	for _, v := range defs {
		d, ok := dims[v.Attr]
		switch {
		case ok && d != v.Dims && existing == nil:
			return ddberr.InvalidParam("Conflicting attribute definition for '%s'. All VectorIndexes on the same vector attribute must use the same dimensions.", v.Attr)
		case ok && d != v.Dims:
			return ddberr.InvalidParam("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. "+
				"Existing schema: VectorIndexSchema:[VectorAttribute: key{%s:L:%d}] New schema: VectorIndexSchema:[VectorAttribute: key{%s:L:%d}]",
				v.Attr, d, v.Attr, v.Dims)
		}
		dims[v.Attr] = v.Dims
	}
	return nil
}

// ValidateCreate is CreateTable's vector index validation, run after the
// rest of the request has been validated: payPerRequest is the billing
// mode's, keys the table's key attributes.
func ValidateCreate(in *wire.CreateTableInput, payPerRequest bool, keys []KeyAttr, checkProj func(*wire.Projection) *ddberr.Error) *ddberr.Error {
	if in.VectorIndexes == nil {
		return nil
	}
	if !payPerRequest {
		return ddberr.InvalidParam(MsgPayPerRequest)
	}
	if len(in.VectorIndexes) > MaxIndexes {
		return ddberr.InvalidParam(msgVectorCountCreate)
	}
	names := map[string]bool{}
	for _, l := range in.LocalSecondaryIndexes {
		names[wire.Deref(l.IndexName)] = true
	}
	for _, g := range in.GlobalSecondaryIndexes {
		names[wire.Deref(g.IndexName)] = true
	}
	defs := DefsOfCreate(in.VectorIndexes)
	for _, v := range defs {
		if names[v.Name] {
			return ddberr.InvalidParam("Duplicate index name: %s", v.Name)
		}
		names[v.Name] = true
		if err := ValidateDef(v, in.AttributeDefinitions, in.AttributeDefinitions, keys, checkProj); err != nil {
			return err
		}
	}
	return CheckDims(defs, nil)
}

// NewDescription is the stored description of a new vector index; its
// Projection is v's as given (the core stores its own canonical copy).
func NewDescription(tableARN string, v Def, status string) wire.VectorIndexDescription {
	d := wire.VectorIndexDescription{
		IndexName:        wire.Ptr(v.Name),
		IndexArn:         wire.Ptr(tableARN + "/index/" + v.Name),
		Dimensions:       wire.Ptr(v.Dims),
		DistanceFunction: v.Distance,
		IndexStatus:      status,
		IndexSizeBytes:   wire.Ptr[int64](0),
		ItemCount:        wire.Ptr[int64](0),
		Projection:       v.Proj,
		VectorAttribute:  &wire.VectorAttributeDefinition{AttributeName: wire.Ptr(v.Attr)},
	}
	if len(v.Schema) > 0 {
		d.SearchSchema = slices.Clone(v.Schema)
	}
	return d
}

// Settle turns CreateTable's CREATING vector indexes ACTIVE once the
// table is (indexes added by UpdateTable carry Backfilling and settle when
// their backfill ends).
func Settle(d *wire.TableDescription) {
	for i := range d.VectorIndexes {
		v := &d.VectorIndexes[i]
		if v.IndexStatus == statusCreating && v.Backfilling == nil {
			v.IndexStatus = statusActive
		}
	}
}

// Building reports whether a vector index is being created.
func Building(d *wire.TableDescription) bool {
	for _, v := range d.VectorIndexes {
		if v.IndexStatus == statusCreating && v.Backfilling != nil {
			return true
		}
	}
	return false
}

// CancelsBuild reports whether del deletes the vector index being built
// while its backfill runs: DynamoDB takes that as a cancel, though no
// other index change while one is built (eu-west-2, 2026-08-23, in a
// public conformance suite).
func CancelsBuild(d *wire.TableDescription, del *wire.DeleteVectorIndexAction) bool {
	if del == nil {
		return false
	}
	v := Desc(d, wire.Deref(del.IndexName))
	return v != nil && v.IndexStatus == statusCreating && wire.Deref(v.Backfilling)
}

// Allocating is the description of the vector index del deletes when it
// is still in resource allocation, before its backfill (DynamoDB refuses
// that deletion; same suite), or nil.
func Allocating(d *wire.TableDescription, del *wire.DeleteVectorIndexAction) *wire.VectorIndexDescription {
	if del == nil {
		return nil
	}
	if v := Desc(d, wire.Deref(del.IndexName)); v != nil && v.IndexStatus == statusCreating && !wire.Deref(v.Backfilling) {
		return v
	}
	return nil
}

// Desc is the description of d's vector index name, or nil.
func Desc(d *wire.TableDescription, name string) *wire.VectorIndexDescription {
	for i := range d.VectorIndexes {
		if wire.Deref(d.VectorIndexes[i].IndexName) == name {
			return &d.VectorIndexes[i]
		}
	}
	return nil
}

// OfAttr is the first vector index of d over attribute name, or nil.
func OfAttr(d *wire.TableDescription, name string) *wire.VectorIndexDescription {
	for i := range d.VectorIndexes {
		if va := d.VectorIndexes[i].VectorAttribute; va != nil && wire.Deref(va.AttributeName) == name {
			return &d.VectorIndexes[i]
		}
	}
	return nil
}

// SearchSchemaDefinitions are the attribute definitions of d that its
// vector indexes' SearchSchemas name (pruning the table's definitions
// keeps them).
func SearchSchemaDefinitions(d *wire.TableDescription) map[string]wire.AttributeDefinition {
	keep := map[string]wire.AttributeDefinition{}
	for _, v := range d.VectorIndexes {
		for _, s := range v.SearchSchema {
			n := wire.Deref(s.AttributeName)
			for _, a := range d.AttributeDefinitions {
				if wire.Deref(a.AttributeName) == n {
					keep[n] = a
				}
			}
		}
	}
	return keep
}

// CheckRead refuses Query/Scan/PartiQL reads naming a vector index of vxs.
func CheckRead(vxs []*Index, index string, query bool) error {
	vx, ok := ByName(vxs, index)
	if !ok {
		return nil
	}
	if query {
		return ddberr.Validation("Query operation not supported on this index type.")
	}
	if !vx.Ready() {
		return ddberr.Validation("Cannot read from backfilling global secondary index: " + index)
	}
	return ddberr.Validation("Scan operation not supported on this index type")
}
