package api

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Enum value sets of vector indexes, in the order DynamoDB prints them.
var (
	enumDistanceFunction   = []string{"DOT_PRODUCT", "COSINE", "EUCLIDEAN"}
	enumSearchSchemaElType = []string{"HASH", "INLINE_FILTER"}
)

// searchVectors reads its body strictly first: DynamoDB's SearchVectors
// deserialises the request before it validates any member, so an explicit
// null for a required member is a SerializationException in the
// deserialiser's words and a missing one a ValidationException naming the
// field, ahead of every member constraint (us-east-1 and eu-west-2,
// 2026-10-09, in a public conformance suite).
var searchVectors = strictRequired(searchVectorsMembers, searchVectorNumbers(op(Backend.SearchVectors, validateSearchVectors)))

// topKFloatFault words a fractional TopK as SearchVectors' deserialiser
// does: "invalid type: floating point `3.5`, expected i32 at line 1 column
// N", N counting the characters read up to the end of the number
// (eu-west-2 and us-east-1, 2026-08-13, captured by another emulator's
// authors). nil when body's TopK is not a fractional number.
func topKFloatFault(body []byte) *ddberr.Error {
	var fault *ddberr.Error
	topLevelMembers(body, func(key string, raw json.RawMessage, end int) bool {
		if key != "TopK" {
			return true
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || !strings.ContainsAny(string(raw), ".eE") {
			return false
		}
		// Rust prints a float without an exponent, and serde keeps a
		// decimal point on an integral one.
		text := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(text, ".") {
			text += ".0"
		}
		fault = ddberr.Serialization("invalid type: floating point `" + text + "`, expected i32 at " + lineColumn(body, end))
		return false
	})
	return fault
}

// topLevelMembers calls visit with each member of the JSON object body, in
// document order: its key, its raw value and the offset just after the
// value; visit returns false to stop. It reports the offset after the
// closing brace and whether the whole object was read.
func topLevelMembers(body []byte, visit func(key string, raw json.RawMessage, end int) bool) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, false
	}
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		var raw json.RawMessage
		if err != nil || !ok || dec.Decode(&raw) != nil {
			return 0, false
		}
		if !visit(key, raw, int(dec.InputOffset())) {
			return 0, false
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return 0, false
	}
	return int(dec.InputOffset()), true
}

// searchVectorNumbers answers a fractional TopK in the deserialiser's
// words (topKFloatFault) and a SearchVector element whose number does not
// read ("dog", "Inf", "NaN", or one out of any range) as an invalid search
// vector rather than as an unreadable DynamoDB number: SearchVectors reads
// the elements as 32-bit floats (ScyllaDB's Alternator tests, run against
// DynamoDB, expect a text about the number; the invalid-vector text is
// DynamoDB's own). The body is read again only when next refused it.
func searchVectorNumbers(next handler) handler {
	return func(ctx context.Context, b Backend, body []byte) (any, error) {
		out, err := next(ctx, b, body)
		if de := ddberr.As(err); de != nil && de.Type == "SerializationException" && strings.HasSuffix(de.Message, " cannot be converted to Integer") {
			// TopK is SearchVectors' only integer member, and the decoder
			// reports the first fault in document order, as DynamoDB's does.
			if ferr := topKFloatFault(body); ferr != nil {
				return nil, ferr
			}
		}
		if err == nil || ddberr.As(err) == nil || ddberr.As(err).Type != "ValidationException" {
			return out, err
		}
		var probe struct{ SearchVector []struct{ N *string } }
		if json.Unmarshal(body, &probe) != nil {
			return nil, err
		}
		for _, v := range probe.SearchVector {
			if v.N == nil {
				continue
			}
			if _, perr := attr.ParseNumber(*v.N); perr != nil {
				return nil, ddberr.InvalidSearchVector()
			}
		}
		return nil, err
	}
}

// searchVectorsMembers are SearchVectors' required members, in the order a
// missing one is reported, with the type the deserialiser expects.
var searchVectorsMembers = []requiredMember{
	{"TableName", "a string"}, {"IndexName", "a string"}, {"SearchVector", "a sequence"}, {"TopK", "i32"},
}

type requiredMember struct{ name, expected string }

// strictRequired answers an explicit null or a missing required member the
// way a strict deserialiser does, with its line and column, ahead of next's
// member checks. A request next serves has every required member, so the
// body is read again only when next refused it. A mistyped member is read
// before the end of the object, so its serialization fault beats a missing
// member.
func strictRequired(members []requiredMember, next handler) handler {
	return func(ctx context.Context, b Backend, body []byte) (any, error) {
		out, err := next(ctx, b, body)
		if err == nil {
			return out, nil
		}
		ferr := requiredMembersFault(body, members)
		if ferr == nil || isSerialization(err) && ferr.Type != "SerializationException" {
			return nil, err
		}
		return nil, ferr
	}
}

func isSerialization(err error) bool {
	de, ok := err.(*ddberr.Error)
	return ok && de.Type == "SerializationException"
}

// requiredMembersFault reads the top level of body: the first required
// member given as null, else the first one missing.
func requiredMembersFault(body []byte, members []requiredMember) *ddberr.Error {
	var fault *ddberr.Error
	seen := make(map[string]bool, len(members))
	end, whole := topLevelMembers(body, func(key string, raw json.RawMessage, at int) bool {
		for _, m := range members {
			if m.name != key {
				continue
			}
			seen[key] = true
			if string(raw) == "null" {
				fault = ddberr.Serialization("invalid type: null, expected " + m.expected + " at " + lineColumn(body, at))
				return false
			}
		}
		return true
	})
	if fault != nil || !whole {
		return fault
	}
	for _, m := range members {
		if !seen[m.name] {
			return ddberr.Validation("missing field `" + m.name + "` at " + lineColumn(body, end))
		}
	}
	return nil
}

// lineColumn words a byte offset as the deserialiser does: lines from 1,
// the column as the bytes read on that line.
func lineColumn(body []byte, off int) string {
	line := 1 + bytes.Count(body[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(body[:off], '\n') + 1)
	return "line " + strconv.Itoa(line) + " column " + strconv.Itoa(col)
}

func validateSearchVectors(in *wire.SearchVectorsInput) error {
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
}

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
	v.projection(p, proj)
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
