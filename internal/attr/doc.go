// Package attr is Kura's model of DynamoDB AttributeValues.
//
// It holds everything that is about a value on its own, independent of any
// table:
//
//   - Number: DynamoDB's exact decimal numbers (38 significant digits,
//     magnitudes 1E-130 to 9.99…E+125), parsing, canonical text, comparison
//     and addition/subtraction with DynamoDB's error texts (number.go).
//   - Compare and Equal: ordering of scalar values and the deep equality of
//     the expression "=" operator (compare.go).
//   - ItemSize and ValueSize: DynamoDB's item size formula, used for the
//     400 KB item limit and for capacity units (size.go).
//   - Validation of incoming values (sets, NULL, nesting depth, numbers) and
//     of key attribute values, with DynamoDB's exact messages (validate.go).
//   - The DynamoDB JSON codec: a hand-written decoder that canonicalises
//     numbers and validates while it parses, and an append-style encoder
//     (json.go, jsondec.go). Value and Item implement json.Marshaler and
//     json.Unmarshaler so that the internal/wire structs work with
//     encoding/json.
//   - An order-preserving key encoding (bytes.Compare on encodings agrees
//     with Compare on values) for partition and sort keys (keyenc.go).
//   - A compact, deterministic binary item encoding for storage (codec.go).
//
// Errors a client can see are *ddberr.Error values. Request-phase validation
// errors (raised while checking the request itself) carry ddberr.Detected1;
// key checks, which need the table's schema, do not. Malformed or wrongly
// typed JSON inside an AttributeValue yields *SerializationError; an
// AttributeValue that is not a JSON object at all yields a
// *json.UnmarshalTypeError, so the api layer (which knows where the value
// sits) can word it. Both are answered as a SerializationException.
package attr
