package attr

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kura-db/kura/internal/ddberr"
)

// SerializationError is malformed JSON, or a JSON value of the wrong kind
// where an AttributeValue member is expected (e.g. {"S": 5}). The api layer
// answers it as a SerializationException with Msg.
type SerializationError struct {
	Msg string
}

func (e *SerializationError) Error() string { return e.Msg }

// DDB returns the error as DynamoDB's SerializationException.
func (e *SerializationError) DDB() *ddberr.Error { return ddberr.Serialization(e.Msg) }

// maxJSONDepth bounds recursion on hostile input (encoding/json's limit).
const maxJSONDepth = 10000

// DecodeJSON decodes one AttributeValue from DynamoDB JSON, canonicalising
// numbers and applying the request checks of Validate while it parses (the
// first problem in document order wins). A SerializationError anywhere in
// the input takes precedence over those checks, as in DynamoDB, where the
// body is deserialised before it is validated. JSON null yields the zero
// Value.
func DecodeJSON(b []byte) (Value, error) {
	d := decoder{b: b}
	d.ws()
	var v Value
	if d.lit("null") {
		// absent
	} else {
		v = d.value(0, 0)
	}
	return v, d.finish()
}

// DecodeItemJSON decodes a JSON object of attribute name → AttributeValue
// (an item, a key, ExpressionAttributeValues) with the checks of
// DecodeJSON. JSON null yields a nil Item.
func DecodeItemJSON(b []byte) (Item, error) {
	d := decoder{b: b}
	d.ws()
	var it Item
	if !d.lit("null") {
		it = Item(d.object(0, 0, ctxMap))
	}
	return it, d.finish()
}

// UnmarshalJSON implements json.Unmarshaler with DecodeJSON. JSON null
// leaves v unchanged.
//
// When b itself is not an object (or null), the error is a
// *json.UnmarshalTypeError for Value instead of a SerializationError:
// DynamoDB's text then depends on where the AttributeValue sits ("Unexpected
// field type" for a structure member such as Expected.Value, "Unexpected
// value type in payload" for a list element), which only the caller's
// decoder knows; encoding/json adds that context (Field) to the error.
func (v *Value) UnmarshalJSON(b []byte) error {
	nv, err := DecodeJSON(b)
	if err != nil {
		if kind := scalarOrArray(b); kind != "" {
			return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[Value]()}
		}
		return err
	}
	if nv.T != TypeNone {
		*v = nv
	}
	return nil
}

// scalarOrArray is encoding/json's name for the kind of the JSON value b
// ("string", "number", "bool", "array"), or "" for an object, null or
// anything else.
func scalarOrArray(b []byte) string {
	d := decoder{b: b}
	switch c := d.peek(); {
	case c == '"':
		return "string"
	case c == '-' || isDigit(c):
		return "number"
	case c == 't' || c == 'f':
		return "bool"
	case c == '[':
		return "array"
	}
	return ""
}

// UnmarshalJSON implements json.Unmarshaler with DecodeItemJSON. JSON null
// leaves it unchanged.
func (it *Item) UnmarshalJSON(b []byte) error {
	m, err := DecodeItemJSON(b)
	if err != nil {
		return err
	}
	if m != nil {
		*it = m
	}
	return nil
}

type decoder struct {
	b    []byte
	i    int
	serr *SerializationError
	verr *ddberr.Error
	// loose is set when the input used something encoding/json's syntax
	// check may reject (skipped unknown members); DecodeItemJSONAt then
	// declines.
	loose bool
	deep  bool // verr is the nesting fault (tooDeep)
}

func (d *decoder) finish() error {
	if d.serr == nil {
		d.ws()
		if d.i != len(d.b) {
			d.syntax()
		}
	}
	if d.serr != nil {
		return d.serr
	}
	if d.verr != nil {
		return d.verr
	}
	return nil
}

func (d *decoder) failed() bool { return d.serr != nil }

func (d *decoder) fail(msg string) {
	if d.serr == nil {
		d.serr = &SerializationError{Msg: msg}
	}
}

func (d *decoder) syntax() {
	if d.i >= len(d.b) {
		d.fail("Unexpected end of JSON input")
		return
	}
	d.fail("Unexpected character ('" + string(rune(d.b[d.i])) + "') at offset " + strconv.Itoa(d.i))
}

// invalid records a semantic error unless an earlier one is known.
func (d *decoder) invalid(e *ddberr.Error) {
	if d.verr == nil {
		d.verr = e
	}
}

// tooDeep records the nesting fault. It is found while the value is
// parsed, as a number that cannot be read is, so between those two the
// first in document order wins; attribute names are checked once the
// value is read, so the nesting beats a bad name met earlier in the same
// item (an empty map key before a value nested 40 levels is reported as
// the nesting, an unreadable number before it as the number:
// TransactWriteItems and PartiQL parameters, us-east-1 and eu-west-2,
// 2026-10-09, in a public conformance suite).
func (d *decoder) tooDeep() {
	if d.deep {
		return
	}
	if d.verr == nil || d.verr.Message == requestErr(msgEmptyName).Message || d.verr.Message == requestErr(msgNameTooLong).Message {
		d.deep = true
		d.verr = requestErr(msgNesting)
	}
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *decoder) lit(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

func (d *decoder) expect(c byte) bool {
	if d.peek() != c {
		d.syntax()
		return false
	}
	d.i++
	return true
}

// Kinds of position, for the texts of wrongly typed members. The texts are
// those of DynamoDB's deserialiser (as re-checked against AWS by dynalite
// 4.0.0); what they say depends on the position and on the JSON token.
const (
	ctxStruct = iota // an AttributeValue (in an item, M or L)
	ctxMap           // M, or an item
	ctxList          // L, SS, NS, BS
	ctxString        // S, N, set elements
	ctxBlob          // B, BS elements
	ctxBool          // BOOL, NULL
)

// Java type names in the texts.
const (
	javaAttributeValue = "com.amazonaws.dynamodb.v20120810.AttributeValue"
	javaItem           = "java.util.Map<java.lang.String, " + javaAttributeValue + ">"
)

// mismatch reports a JSON value of the wrong kind at the current offset for
// a position of kind ctx, consuming nothing (the caller stops).
func (d *decoder) mismatch(ctx int) {
	tok := d.token()
	switch tok {
	case "":
		d.syntax()
		return
	case "{":
		// Only maps and AttributeValues take an object.
		d.fail("Start of structure or map found where not expected")
		return
	case "[":
		switch ctx {
		case ctxStruct:
			d.fail("Unrecognized collection type class " + javaAttributeValue)
		case ctxMap:
			d.fail("Unrecognized collection type " + javaItem)
		case ctxString:
			d.fail("Unrecognized collection type class java.lang.String")
		case ctxBlob:
			d.fail("Unrecognized collection type class java.nio.ByteBuffer")
		case ctxBool:
			d.fail("Unrecognized collection type class java.lang.Boolean")
		}
		return
	}
	switch ctx {
	case ctxStruct:
		d.fail("Unexpected value type in payload")
	case ctxMap, ctxList:
		d.fail("Unexpected field type")
	case ctxString:
		d.fail(tok + " cannot be converted to String")
	case ctxBlob:
		d.fail("only base-64-encoded strings are convertible to bytes")
	case ctxBool:
		d.fail(tok + " cannot be converted to Boolean")
	}
}

// token names the JSON token at the current offset as DynamoDB's
// deserialiser does: "{", "[", STRING_VALUE, TRUE_VALUE, FALSE_VALUE,
// NUMBER_VALUE (a number with an integral value, such as 1, 1.0 or 1e2)
// or DECIMAL_VALUE (any other number); "" when it is none of these.
func (d *decoder) token() string {
	switch c := d.peek(); {
	case c == '{', c == '[':
		return string(rune(c))
	case c == '"':
		return "STRING_VALUE"
	case c == 't' && d.at("true"):
		return "TRUE_VALUE"
	case c == 'f' && d.at("false"):
		return "FALSE_VALUE"
	case c == '-' || isDigit(c):
		j := d.i
		for j < len(d.b) && strings.IndexByte("+-0123456789.eE", d.b[j]) >= 0 {
			j++
		}
		// A float64 is what the texts' integral test sees: 1e400 is not
		// integral (infinite), 1e-400 is (zero).
		lit := string(d.b[d.i:j])
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) || lit[0] == '+' {
			return ""
		}
		if !strings.ContainsAny(lit, ".eE") || !math.IsInf(f, 0) && f == math.Trunc(f) {
			return "NUMBER_VALUE"
		}
		return "DECIMAL_VALUE"
	}
	return ""
}

// at reports whether the input continues with s, consuming nothing.
func (d *decoder) at(s string) bool {
	return len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s
}

// value parses one AttributeValue object. depth counts the M/L containers
// enclosing it; rec is the recursion depth.
func (d *decoder) value(depth, rec int) Value {
	var v Value
	if d.peek() != '{' {
		d.mismatch(ctxStruct)
		return v
	}
	if rec > maxJSONDepth {
		d.fail("JSON nesting exceeds maximum depth")
		return v
	}
	d.i++
	ntypes := 0
	first := true
	for !d.failed() {
		if d.peek() == '}' {
			d.i++
			break
		}
		if !first && !d.expect(',') {
			break
		}
		first = false
		d.ws()
		key, ok := d.str()
		if !ok || !d.expect(':') {
			break
		}
		if d.peek() == 'n' {
			if !d.lit("null") {
				d.syntax()
			}
			continue // a null member is an absent member
		}
		t := TypeFromString(key)
		if t == TypeNone {
			d.loose = true
			d.skip(rec + 1)
			continue
		}
		ntypes++
		v.T = t
		d.member(&v, t, depth, rec)
	}
	if d.failed() || d.verr != nil {
		return v
	}
	switch {
	case ntypes == 0:
		d.invalid(requestErr(msgEmptyValue))
	case ntypes > 1:
		d.invalid(requestErr(msgMultiType))
	}
	return v
}

// member parses the payload of type t into v.
func (d *decoder) member(v *Value, t Type, depth, rec int) {
	switch t {
	case S:
		if s, ok := d.stringAt(ctxString); ok {
			v.Str = s
		}
	case N:
		s, ok := d.stringAt(ctxString)
		if !ok {
			return
		}
		v.Str = s
		if d.verr == nil {
			c, err := CanonicalNumber(s)
			if err != nil {
				d.invalid(numberErr(err))
			}
			v.Str = c
		}
	case B:
		v.Bin = d.blob()
	case BOOL:
		v.Bool = d.boolean()
	case NULL:
		if !d.boolean() && !d.failed() {
			d.invalid(requestErr(msgNullFalse))
		}
	case M:
		if depth >= MaxDepth {
			d.tooDeep()
		}
		v.Map = d.object(depth+1, rec+1, ctxMap)
	case L:
		if depth >= MaxDepth {
			d.tooDeep()
		}
		if !d.arrayStart() {
			return
		}
		v.List = []Value{}
		for d.arrayNext(len(v.List) == 0) {
			if d.peek() == 'n' && d.lit("null") {
				d.invalid(requestErr(msgEmptyValue))
				v.List = append(v.List, Value{})
				continue
			}
			v.List = append(v.List, d.value(depth+1, rec+1))
		}
	case SS, NS:
		if !d.arrayStart() {
			return
		}
		v.Strs = []string{}
		for d.arrayNext(len(v.Strs) == 0) {
			if d.peek() == 'n' && d.lit("null") {
				continue
			}
			s, ok := d.stringAt(ctxString)
			if !ok {
				return
			}
			v.Strs = append(v.Strs, s)
		}
		if d.failed() || d.verr != nil {
			return
		}
		if t == SS {
			d.invalid(checkSS(v.Strs))
		} else {
			d.invalid(checkNS(v.Strs, true))
		}
		if d.verr == nil {
			SortSet(v)
		}
	case BS:
		if !d.arrayStart() {
			return
		}
		v.Bins = [][]byte{}
		for d.arrayNext(len(v.Bins) == 0) {
			if d.peek() == 'n' && d.lit("null") {
				continue
			}
			b := d.blob()
			if d.failed() {
				return
			}
			v.Bins = append(v.Bins, b)
		}
		if !d.failed() && d.verr == nil {
			d.invalid(checkBS(v.Bins))
			if d.verr == nil {
				SortSet(v)
			}
		}
	}
}

// object parses {"name": AttributeValue, …}; depth is that of the values.
func (d *decoder) object(depth, rec, ctx int) map[string]Value {
	if d.peek() != '{' {
		d.mismatch(ctx)
		return nil
	}
	if rec > maxJSONDepth {
		d.fail("JSON nesting exceeds maximum depth")
		return nil
	}
	d.i++
	m := make(map[string]Value)
	first := true
	for !d.failed() {
		if d.peek() == '}' {
			d.i++
			break
		}
		if !first && !d.expect(',') {
			break
		}
		first = false
		d.ws()
		key, ok := d.str()
		if !ok || !d.expect(':') {
			break
		}
		switch {
		case key == "":
			d.invalid(requestErr(msgEmptyName))
		case len(key) > MaxNameSize:
			d.invalid(NameTooLarge())
		}
		if d.peek() == 'n' && d.lit("null") {
			d.invalid(requestErr(msgEmptyValue))
			continue
		}
		m[key] = d.value(depth, rec+1)
	}
	return m
}

func (d *decoder) arrayStart() bool {
	if d.peek() != '[' {
		d.mismatch(ctxList)
		return false
	}
	d.i++
	return true
}

// arrayNext advances to the next element, reporting false at the end.
func (d *decoder) arrayNext(first bool) bool {
	if d.failed() {
		return false
	}
	if d.peek() == ']' {
		d.i++
		return false
	}
	if !first && !d.expect(',') {
		return false
	}
	d.ws()
	return true
}

func (d *decoder) boolean() bool {
	switch c := d.peek(); {
	case c == 't' && d.lit("true"):
		return true
	case c == 'f' && d.lit("false"):
		return false
	case c == '"':
		// DynamoDB's deserialiser also takes these strings, in any case.
		s, ok := d.str()
		if !ok {
			return false
		}
		switch strings.ToUpper(s) {
		case "TRUE", "1", "YES":
			return true
		case "FALSE", "0", "NO":
			return false
		}
		d.fail("Unexpected token received from parser")
	default:
		d.mismatch(ctxBool)
	}
	return false
}

// stringAt reads a JSON string where one is required.
func (d *decoder) stringAt(ctx int) (string, bool) {
	if d.peek() != '"' {
		d.mismatch(ctx)
		return "", false
	}
	return d.str()
}

// blob reads a base64 string with DynamoDB's checks and texts: its length
// must be a multiple of 4 and it must be the canonical (padded, standard
// alphabet) encoding of its bytes.
func (d *decoder) blob() []byte {
	s, ok := d.stringAt(ctxBlob)
	if !ok {
		return nil
	}
	if len(s)%4 != 0 {
		d.fail("Base64 encoded length is expected a multiple of 4 bytes but found: " + strconv.Itoa(len(s)))
		return nil
	}
	// The decoder skips CR and LF; the canonical encoding has none.
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || strings.ContainsAny(s, "\r\n") {
		d.fail("Invalid last non-pad Base64 character dectected")
		return nil
	}
	return b
}

// str reads a JSON string at the current offset.
func (d *decoder) str() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		d.syntax()
		return "", false
	}
	d.i++
	start := d.i
	ascii := true
	for d.i < len(d.b) {
		if d.i = skipPlain(d.b, d.i); d.i >= len(d.b) {
			break
		}
		c := d.b[d.i]
		switch {
		case c == '"':
			raw := d.b[start:d.i]
			d.i++
			if ascii || utf8.Valid(raw) {
				return string(raw), true
			}
			return strings.ToValidUTF8(string(raw), "\uFFFD"), true
		case c == '\\':
			return d.strSlow(start)
		case c < 0x20:
			d.syntax()
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	d.syntax()
	return "", false
}

// strSlow decodes a string with escapes; d.i is at the first backslash.
func (d *decoder) strSlow(start int) (string, bool) {
	buf := make([]byte, 0, d.i-start+16)
	buf = append(buf, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if !utf8.Valid(buf) {
				return strings.ToValidUTF8(string(buf), "\uFFFD"), true
			}
			return string(buf), true
		case c < 0x20:
			d.syntax()
			return "", false
		case c != '\\':
			buf = append(buf, c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.b) {
			break
		}
		e := d.b[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					if r2, ok = d.hex4(); !ok {
						return "", false
					}
					if utf16.DecodeRune(r, r2) == utf8.RuneError {
						d.i, r2 = save, -1
					}
				}
				if r2 >= 0 {
					r = utf16.DecodeRune(r, r2)
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.i--
			d.syntax()
			return "", false
		}
	}
	d.syntax()
	return "", false
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		d.i = len(d.b)
		d.syntax()
		return 0, false
	}
	v, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	if err != nil {
		d.syntax()
		return 0, false
	}
	d.i += 4
	return rune(v), true
}

func (d *decoder) skipNumber() {
	j := d.i
	if j < len(d.b) && d.b[j] == '-' {
		j++
	}
	digits := 0
	for j < len(d.b) && isDigit(d.b[j]) {
		j++
		digits++
	}
	if j < len(d.b) && d.b[j] == '.' {
		j++
		for j < len(d.b) && isDigit(d.b[j]) {
			j++
		}
	}
	if j < len(d.b) && (d.b[j] == 'e' || d.b[j] == 'E') {
		j++
		if j < len(d.b) && (d.b[j] == '+' || d.b[j] == '-') {
			j++
		}
		for j < len(d.b) && isDigit(d.b[j]) {
			j++
		}
	}
	if digits == 0 {
		d.syntax()
		return
	}
	d.i = j
}

// skip consumes any JSON value (unknown members).
func (d *decoder) skip(rec int) {
	if rec > maxJSONDepth {
		d.fail("JSON nesting exceeds maximum depth")
		return
	}
	switch c := d.peek(); {
	case c == '"':
		d.str()
	case c == '{':
		d.i++
		for first := true; !d.failed(); first = false {
			if d.peek() == '}' {
				d.i++
				return
			}
			if !first && !d.expect(',') {
				return
			}
			d.ws()
			if _, ok := d.str(); !ok || !d.expect(':') {
				return
			}
			d.skip(rec + 1)
		}
	case c == '[':
		d.i++
		for first := true; d.arrayNext(first); first = false {
			d.skip(rec + 1)
		}
	case c == 't' && d.lit("true"), c == 'f' && d.lit("false"), c == 'n' && d.lit("null"):
	case c == '-' || isDigit(c):
		d.skipNumber()
	default:
		d.syntax()
	}
}
