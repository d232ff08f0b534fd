package api

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

var createTable = op(Backend.CreateTable, func(in *wire.CreateTableInput) error {
	// An empty TableName is not reported alone here, as the item
	// operations do: CreateTable names it 'tableName' in the per-value
	// form (a public conformance suite run against DynamoDB, 2026-10).
	if in.TableName == nil {
		// CreateTable's own text (a suite run against DynamoDB, 2026);
		// the item operations answer "Value null at 'tableName'".
		return ddberr.Validation("The parameter 'TableName' is required but was not present in the request")
	}
	var v validator
	v.attributeDefinitions(in.AttributeDefinitions, true)
	v.tableName(in.TableName, true)
	v.keySchema("keySchema", in.KeySchema)
	// GSIs are reported before LSIs, whatever the request's order.
	for i, x := range in.GlobalSecondaryIndexes {
		p := "globalSecondaryIndexes." + strconv.Itoa(i+1) + ".member."
		v.indexDef(p, x.IndexName, x.KeySchema, x.Projection, maxGSIKeySchema)
		v.throughput(p+"provisionedThroughput", x.ProvisionedThroughput)
	}
	for i, x := range in.LocalSecondaryIndexes {
		p := "localSecondaryIndexes." + strconv.Itoa(i+1) + ".member."
		v.indexDef(p, x.IndexName, x.KeySchema, x.Projection, 2)
	}
	v.enum("billingMode", in.BillingMode, enumBillingMode)
	v.throughput("provisionedThroughput", in.ProvisionedThroughput)
	v.streamSpec(in.StreamSpecification)
	if s := in.SSESpecification; s != nil {
		v.enum("sSESpecification.sSEType", s.SSEType, enumSSEType)
		if k := s.KMSMasterKeyId; k != nil {
			v.minLen("sSESpecification.kMSMasterKeyId", quote(*k), len(*k), 1)
		}
	}
	for i, x := range in.VectorIndexes {
		p := "vectorIndexes." + strconv.Itoa(i+1) + ".member."
		v.vectorIndexDef(p, x.IndexName, x.VectorAttribute, x.Dimensions, x.DistanceFunction, x.Projection, x.SearchSchema)
	}
	if err := v.err(); err != nil {
		return err
	}
	return tableClassFault(in.TableClass)
})

// tableClassFault refuses a TableClass outside its set in DynamoDB's own
// words, after the member constraints (ScyllaDB's Alternator tests, which
// are run against DynamoDB, quote it for CreateTable and UpdateTable).
func tableClassFault(class string) error {
	if class == "" || slices.Contains(enumTableClass, class) {
		return nil
	}
	return ddberr.Validation("Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS].")
}

// attributeDefinitions checks AttributeDefinitions members.
func (v *validator) attributeDefinitions(defs []wire.AttributeDefinition, required bool) {
	if required {
		v.notNull("attributeDefinitions", defs == nil)
	}
	for i, d := range defs {
		p := "attributeDefinitions." + strconv.Itoa(i+1) + ".member."
		v.notNull(p+"attributeName", d.AttributeName == nil)
		if d.AttributeName != nil {
			v.minLen(p+"attributeName", quote(*d.AttributeName), len(*d.AttributeName), 1)
			v.maxLen(p+"attributeName", quote(*d.AttributeName), len(*d.AttributeName), 255)
		}
		v.notNull(p+"attributeType", d.AttributeType == "")
		v.enum(p+"attributeType", d.AttributeType, enumScalarAttributeType)
	}
}

// maxGSIKeySchema is the most elements a GSI KeySchema may have:
// multi-attribute keys allow four HASH and four RANGE attributes.
const maxGSIKeySchema = 8

// keySchema checks a required KeySchema: 1..2 elements, names, key types.
func (v *validator) keySchema(member string, ks []wire.KeySchemaElement) {
	v.keySchemaMax(member, ks, 2)
}

// keySchemaMax checks a required KeySchema of 1..maxLen elements.
func (v *validator) keySchemaMax(member string, ks []wire.KeySchemaElement, maxLen int) {
	v.notNull(member, ks == nil)
	if ks == nil {
		return
	}
	echo := quote(echoKeySchema(ks))
	v.minLen(member, echo, len(ks), 1)
	v.maxLen(member, echo, len(ks), maxLen)
	for i, k := range ks {
		p := member + "." + strconv.Itoa(i+1) + ".member."
		v.notNull(p+"attributeName", k.AttributeName == nil)
		if k.AttributeName != nil {
			v.minLen(p+"attributeName", quote(*k.AttributeName), len(*k.AttributeName), 1)
			v.maxLen(p+"attributeName", quote(*k.AttributeName), len(*k.AttributeName), 255)
		}
		v.notNull(p+"keyType", k.KeyType == "")
		v.enum(p+"keyType", k.KeyType, enumKeyType)
	}
}

// indexDef checks the members common to LSI, GSI and GSI-create actions.
func (v *validator) indexDef(p string, name *string, ks []wire.KeySchemaElement, proj *wire.Projection, maxKeys int) {
	v.notNull(p+"indexName", name == nil)
	v.indexName(p+"indexName", name)
	v.keySchemaMax(p+"keySchema", ks, maxKeys)
	v.projection(p, proj)
}

// projection checks a required Projection's members (p ends with "member.").
func (v *validator) projection(p string, proj *wire.Projection) {
	v.notNull(p+"projection", proj == nil)
	if proj == nil {
		return
	}
	v.enum(p+"projection.projectionType", proj.ProjectionType, enumProjectionType)
	if proj.NonKeyAttributes != nil {
		v.minLen(p+"projection.nonKeyAttributes", "'[]'", len(proj.NonKeyAttributes), 1)
		v.maxLen(p+"projection.nonKeyAttributes", "'[...]'", len(proj.NonKeyAttributes), 20)
		v.nonKeyAttributeNames(p+"projection.nonKeyAttributes", proj.NonKeyAttributes)
	}
}

// nonKeyAttributeNames checks the names a projection lists: 1 to 255
// bytes each (the API's NonKeyAttributeName; ScyllaDB's Alternator tests,
// which are run against DynamoDB, see a 256-byte name refused), worded as
// a list member constraint.
func (v *validator) nonKeyAttributeNames(member string, names []string) {
	for _, n := range names {
		if n == "" || len(n) > 255 {
			v.add("'["+strings.Join(names, ", ")+"]'", member,
				"Member must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 1]")
			return
		}
	}
}

// throughput checks a ProvisionedThroughput: both units required, >= 1.
func (v *validator) throughput(member string, pt *wire.ProvisionedThroughput) {
	if pt == nil {
		return
	}
	v.notNull(member+".writeCapacityUnits", pt.WriteCapacityUnits == nil)
	if pt.WriteCapacityUnits != nil {
		v.int64Range(member+".writeCapacityUnits", *pt.WriteCapacityUnits, 1, 1<<63-1)
	}
	v.notNull(member+".readCapacityUnits", pt.ReadCapacityUnits == nil)
	if pt.ReadCapacityUnits != nil {
		v.int64Range(member+".readCapacityUnits", *pt.ReadCapacityUnits, 1, 1<<63-1)
	}
}

func (v *validator) streamSpec(s *wire.StreamSpecification) {
	if s == nil {
		return
	}
	v.notNull("streamSpecification.streamEnabled", s.StreamEnabled == nil)
	v.enum("streamSpecification.streamViewType", s.StreamViewType, enumStreamViewType)
}
