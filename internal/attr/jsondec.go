package attr

import (
	"encoding/base64"
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
func (v *Value) UnmarshalJSON(b []byte) error {
	nv, err := DecodeJSON(b)
	if err != nil {
		return err
	}
	if nv.T != TypeNone {
		*v = nv
	}
	return nil
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
	// check may reject (skipped unknown members, numbers for BOOL/NULL);
	// DecodeItemJSONAt then declines.
	loose bool
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

// Kinds of position, for the texts of wrongly typed members.
const (
	ctxStruct = iota // an AttributeValue
	ctxMap           // M, or an item
	ctxList          // L, SS, NS, BS
	ctxString        // S, N, set elements
	ctxBlob          // B, BS elements
	ctxBool          // BOOL, NULL
)

// mismatch reports a JSON value of the wrong kind at the current offset for
// a position of kind ctx, consuming nothing (the caller stops).
func (d *decoder) mismatch(ctx int) {
	c := d.peek()
	switch c {
	case '{':
		d.fail("Start of structure or map found where not expected.")
		return
	case '[':
		d.fail("Start of list found where not expected")
		return
	}
	switch ctx {
	case ctxStruct:
		d.fail("Expected null")
	case ctxMap:
		d.fail("Expected map or null")
	case ctxList:
		d.fail("Expected list or null")
	default:
		class := "java.lang.Boolean"
		if c == '-' || isDigit(c) {
			class = d.numberClass()
		}
		target := "an String"
		switch ctx {
		case ctxBlob:
			target = "a Blob"
		case ctxBool:
			target = "an Boolean"
		}
		d.fail("class " + class + " can not be converted to " + target)
	}
}

// numberClass names the Java class DynamoDB's deserialiser would see for
// the JSON number at the current offset.
func (d *decoder) numberClass() string {
	j := d.i
	for j < len(d.b) && strings.IndexByte("+-0123456789.eE", d.b[j]) >= 0 {
		j++
	}
	lit := string(d.b[d.i:j])
	if strings.ContainsAny(lit, ".eE") {
		return "java.lang.Double"
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	switch {
	case err != nil:
		return "java.math.BigInteger"
	case n >= -32768 && n <= 32767:
		return "java.lang.Short"
	case n >= -2147483648 && n <= 2147483647:
		return "java.lang.Integer"
	}
	return "java.lang.Long"
}

// value parses one AttributeValue object. depth counts the M/L containers
// enclosing it; rec is the recursion depth.
func (d *decoder) value(depth, rec int) Value {
	var v Value
	if d.peek() != '{' {
		if c := d.peek(); c == '"' || c == '-' || isDigit(c) || c == 't' || c == 'f' || c == '[' {
			d.mismatch(ctxStruct)
		} else {
			d.syntax()
		}
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
			d.invalid(requestErr(msgNesting))
		}
		v.Map = d.object(depth+1, rec+1, ctxMap)
	case L:
		if depth >= MaxDepth {
			d.invalid(requestErr(msgNesting))
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
	case c == '-' || isDigit(c):
		d.loose = true
		// DynamoDB's deserialiser accepts fractional numbers here.
		if d.numberClass() == "java.lang.Double" {
			j := d.i
			d.skipNumber()
			f, err := strconv.ParseFloat(string(d.b[j:d.i]), 64)
			return err == nil && (f >= 1 || f <= -1)
		}
		d.mismatch(ctxBool)
	case c == '"':
		s, ok := d.str()
		if ok {
			d.fail("'" + strings.ToUpper(s) + "' can not be converted to an Boolean")
		}
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

// blob reads a base64 string with DynamoDB's checks and texts.
func (d *decoder) blob() []byte {
	s, ok := d.stringAt(ctxBlob)
	if !ok {
		return nil
	}
	pre := "'" + s + "' can not be converted to a Blob: "
	if len(s)%4 != 0 {
		d.fail(pre + "Base64 encoded length is expected a multiple of 4 bytes but found: " + strconv.Itoa(len(s)))
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || isDigit(c) || c == '+' || c == '/'
		if c == '=' {
			ok = i+1 == len(s) || s[i+1] == '='
		}
		if !ok {
			d.fail(pre + "Invalid Base64 character: '" + string(rune(c)) + "'")
			return nil
		}
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		d.fail(pre + "Invalid last non-pad Base64 character dectected")
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
