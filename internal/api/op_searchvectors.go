package api

import (
	"strconv"

	"github.com/kura-db/kura/internal/wire"
)

// Enum value sets of vector indexes, in the order DynamoDB prints them.
var (
	enumDistanceFunction   = []string{"DOT_PRODUCT", "COSINE", "EUCLIDEAN"}
	enumSearchSchemaElType = []string{"HASH", "INLINE_FILTER"}
)

var searchVectors = op(Backend.SearchVectors, func(in *wire.SearchVectorsInput) error {
	if err := emptyTableName(in.TableName); err != nil {
		return err
	}
	var v validator
	v.tableName(in.TableName, true)
	v.notNull("indexName", in.IndexName == nil)
	if in.IndexName != nil {
		n := len(*in.IndexName)
		v.minLen("IndexName", "", n, 3)
		v.maxLen("IndexName", "", n, 255)
	}
	v.notNull("searchVector", in.SearchVector == nil)
	if in.SearchVector != nil {
		v.minLen("SearchVector", "", len(in.SearchVector), 1)
	}
	v.notNull("topK", in.TopK == nil)
	if in.TopK != nil && *in.TopK < 1 {
		// DynamoDB names this member TopK and echoes no value.
		v.add("", "TopK", "Member must have value greater than or equal to 1")
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	return v.err()
})

// vectorIndexDef checks the members of a VectorIndex / CreateVectorIndexAction.
func (v *validator) vectorIndexDef(p string, name *string, va *wire.VectorAttributeDefinition, dims *int64, dist string, proj *wire.Projection, schema []wire.SearchSchemaElement) {
	v.notNull(p+"indexName", name == nil)
	v.indexName(p+"indexName", name)
	v.notNull(p+"vectorAttribute", va == nil)
	if va != nil {
		v.notNull(p+"vectorAttribute.attributeName", va.AttributeName == nil)
		if va.AttributeName != nil {
			v.minLen(p+"vectorAttribute.attributeName", quote(*va.AttributeName), len(*va.AttributeName), 1)
			v.maxLen(p+"vectorAttribute.attributeName", quote(*va.AttributeName), len(*va.AttributeName), 255)
		}
	}
	v.notNull(p+"dimensions", dims == nil)
	if dims != nil && *dims < 1 {
		v.add(quote(strconv.FormatInt(*dims, 10)), p+"dimensions", "Member must have value greater than or equal to 1")
	}
	v.notNull(p+"distanceFunction", dist == "")
	v.enum(p+"distanceFunction", dist, enumDistanceFunction)
	v.notNull(p+"projection", proj == nil)
	if proj != nil {
		v.enum(p+"projection.projectionType", proj.ProjectionType, enumProjectionType)
	}
	if schema != nil {
		v.minLen(p+"searchSchema", "'[]'", len(schema), 1)
	}
	for i, s := range schema {
		q := p + "searchSchema." + strconv.Itoa(i+1) + ".member."
		v.notNull(q+"attributeName", s.AttributeName == nil)
		v.notNull(q+"searchSchemaElementType", s.SearchSchemaElementType == "")
		v.enum(q+"searchSchemaElementType", s.SearchSchemaElementType, enumSearchSchemaElType)
	}
}
