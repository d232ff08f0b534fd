package attr

import (
	"encoding/base64"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
)

// MaxDepth is the deepest nesting of M and L containers a top-level value
// (an item attribute, an ExpressionAttributeValue, a PartiQL parameter) may
// have. A value wrapped in 32 maps is rejected by us-east-1 (captured
// 2026-08-12), so 31 is the most that is accepted.
const MaxDepth = 31

// Limits on key attribute values, in bytes.
const (
	MaxPartitionKeySize = 2048
	MaxSortKeySize      = 1024
)

// MaxNameSize is the longest attribute name, in bytes, at any depth of an
// item or value: us-east-1 refused 65,536 and took 65,535 (2026-09-16).
const MaxNameSize = 65535

const invalidParam = "One or more parameter values were invalid: "

// Messages of the request-phase value checks, without ddberr.Detected1.
const (
	msgEmptyValue  = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	msgMultiType   = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	msgNullFalse   = invalidParam + "Null attribute value types must have the value of true"
	msgEmptySS     = invalidParam + "An string set  may not be empty"
	msgEmptyNS     = invalidParam + "An number set  may not be empty"
	msgEmptyBS     = invalidParam + "Binary sets should not be empty"
	msgNSDuplicate = invalidParam + "Input collection contains duplicates."
	msgNesting     = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	msgNameTooLong = "Attribute name is too large, must be less than 65536 bytes"
	// msgEmptyName: an attribute or map key named "" (a transaction's Put,
	// us-east-1 and eu-west-2, 2026-10-09, in a public conformance suite).
	msgEmptyName = "Empty attribute name"
)

// NameTooLarge is the request-phase error for an attribute name longer
// than MaxNameSize (in an item, a map value or ExpressionAttributeNames).
func NameTooLarge() *ddberr.Error { return requestErr(msgNameTooLong) }

// EmptyName is the request-phase error for an attribute named "".
func EmptyName() *ddberr.Error { return requestErr(msgEmptyName) }

func requestErr(msg string) *ddberr.Error { return ddberr.RequestInvalid(msg) }

// numberErr is a rejected number, with the older value layer's reading
// of it (ddberr.OlderLayer; olderNumberText).
func numberErr(err error) *ddberr.Error {
	e := ddberr.RequestInvalid(err.Error())
	if ne, ok := err.(*NumberError); ok {
		e.Older = olderNumberText(ne)
	}
	return e
}

// olderNumberText is how DynamoDB's older value layer (BatchWriteItem, the
// transaction APIs, Scan, PartiQL parameters) words a rejected number: it
// reads the literal as Java's BigDecimal does, so an exponent past 32 bits
// cannot be converted at all, a magnitude exponent past 32 bits wraps to an
// underflow (1e2147483647), and an empty one has no colon (four regions,
// 2026-10-09, in a public conformance suite).
func olderNumberText(ne *NumberError) string {
	const notNumeric = "The parameter cannot be converted to a numeric value"
	if ne.Input == "" {
		return notNumeric
	}
	if ne.Kind != NumOverflow && ne.Kind != NumUnderflow {
		return ne.Error()
	}
	r, ok := scanNumber(ne.Input)
	if !ok {
		return ne.Error()
	}
	switch {
	case !BigDecimalScaleFits(ne.Input):
		return notNumeric + ": " + ne.Input
	case r.exp > math.MaxInt32:
		return (&NumberError{Kind: NumUnderflow}).Error()
	}
	return ne.Error()
}

// BigDecimalScaleFits reports whether Java's BigDecimal can read a number
// literal: its exponent, and its scale (digits after the point less the
// exponent), must be 32-bit integers. DynamoDB's older value layer and its
// PartiQL parser cannot convert one that does not fit (1e2147483648,
// 1e-2147483648, 1.5e-2147483647).
func BigDecimalScaleFits(lit string) bool {
	mant, exp, hasExp := strings.Cut(strings.ToLower(lit), "e")
	e := int64(0)
	if hasExp {
		var err error
		if e, err = strconv.ParseInt(exp, 10, 32); err != nil {
			return false
		}
	}
	frac := int64(0)
	if _, f, ok := strings.Cut(mant, "."); ok {
		frac = int64(len(f))
	}
	scale := frac - e
	return scale >= math.MinInt32 && scale <= math.MaxInt32
}

// The texts of duplicate set members. DynamoDB's current value layer
// (PutItem, UpdateItem, DeleteItem, GetItem, BatchGetItem, Query) quotes
// the members and lists them as a sorted set fills until the first repeat:
// the set so far in byte order, the repeat, then the rest as sent. Its
// older layer (ddberr.OlderLayer) lists them as sent, unquoted, and words a
// number set without the prefix and full stop. Recorded in us-east-1,
// eu-west-2, eu-west-1 and us-west-2 on 2026-10-09 by a public
// conformance suite.
func ssDuplicates(ss []string) *ddberr.Error {
	e := requestErr(invalidParam + "Input collection [" + joinMembers(inSetOrder(ss), `"`, ", ") + "] contains duplicates.")
	e.Older = invalidParam + "Input collection [" + joinMembers(ss, "", ", ") + "] contains duplicates."
	return e
}

// bsDuplicates is the binary-set form: members in base64, and in the
// current layer no space after the commas nor before "of".
func bsDuplicates(bs [][]byte) *ddberr.Error {
	raw, enc := make([]string, len(bs)), make([]string, len(bs))
	for i, x := range bs {
		raw[i], enc[i] = string(x), base64.StdEncoding.EncodeToString(x)
	}
	ordered := inSetOrder(raw) // a new slice: encoded in place
	for i, x := range ordered {
		ordered[i] = base64.StdEncoding.EncodeToString([]byte(x))
	}
	e := requestErr(invalidParam + "Input collection [" + joinMembers(ordered, `"`, ",") + "]of type BS contains duplicates.")
	e.Older = invalidParam + "Input collection [" + joinMembers(enc, "", ", ") + "]of type BS contains duplicates."
	return e
}

func nsDuplicates() *ddberr.Error {
	e := requestErr(msgNSDuplicate)
	e.Older = "Input collection contains duplicates"
	return e
}

// inSetOrder is the order a sorted set lists members that are added until
// one repeats: the set so far, sorted bytewise, then the repeat, then the
// members after it as sent.
func inSetOrder(members []string) []string {
	var set []string
	for i, m := range members {
		at, found := slices.BinarySearch(set, m)
		if found {
			return append(append(set, m), members[i+1:]...)
		}
		set = slices.Insert(set, at, m)
	}
	return set
}

func joinMembers(members []string, quote, sep string) string {
	var b strings.Builder
	for i, m := range members {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(quote)
		b.WriteString(m)
		b.WriteString(quote)
	}
	return b.String()
}

func hasDupStrings(ss []string) bool {
	if len(ss) < 2 {
		return false
	}
	if len(ss) <= 8 {
		for i := 1; i < len(ss); i++ {
			for j := 0; j < i; j++ {
				if ss[i] == ss[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(ss))
	for _, s := range ss {
		if _, ok := seen[s]; ok {
			return true
		}
		seen[s] = struct{}{}
	}
	return false
}

func hasDupBins(bs [][]byte) bool {
	if len(bs) < 2 {
		return false
	}
	seen := make(map[string]struct{}, len(bs))
	for _, b := range bs {
		if _, ok := seen[string(b)]; ok {
			return true
		}
		seen[string(b)] = struct{}{}
	}
	return false
}

// checkSS, checkNS and checkBS validate a set. checkNS canonicalises the
// elements, in place when inPlace.
func checkSS(ss []string) *ddberr.Error {
	if len(ss) == 0 {
		return requestErr(msgEmptySS)
	}
	if hasDupStrings(ss) {
		return ssDuplicates(ss)
	}
	return nil
}

func checkNS(ns []string, inPlace bool) *ddberr.Error {
	if len(ns) == 0 {
		return requestErr(msgEmptyNS)
	}
	if !inPlace {
		ns = append([]string(nil), ns...)
	}
	for i, s := range ns {
		c, err := CanonicalNumber(s)
		if err != nil {
			return numberErr(err)
		}
		ns[i] = c
	}
	if hasDupStrings(ns) {
		return nsDuplicates()
	}
	return nil
}

func checkBS(bs [][]byte) *ddberr.Error {
	if len(bs) == 0 {
		return requestErr(msgEmptyBS)
	}
	if hasDupBins(bs) {
		return bsDuplicates(bs)
	}
	return nil
}

// Validate applies the request checks the JSON decoder applies while
// parsing to a value built in memory: exactly one type, NULL true, sets
// non-empty and without duplicates (NS compared numerically), numbers
// valid, and nesting at most MaxDepth. v is not modified. It returns a
// request-phase *ddberr.Error or nil.
func Validate(v Value) error {
	if e := validate(&v, 0); e != nil {
		return e
	}
	return nil
}

// ValidateItem is Validate for every attribute of an item, and checks the
// attribute names' length.
func ValidateItem(it Item) error {
	for name, v := range it {
		if name == "" {
			return requestErr(msgEmptyName)
		}
		if len(name) > MaxNameSize {
			return NameTooLarge()
		}
		if e := validate(&v, 0); e != nil {
			return e
		}
	}
	return nil
}

func validate(v *Value, depth int) *ddberr.Error {
	switch v.T {
	case TypeNone:
		return requestErr(msgEmptyValue)
	case S, B, BOOL, NULL:
		return nil
	case N:
		if _, err := CanonicalNumber(v.Str); err != nil {
			return numberErr(err)
		}
		return nil
	case SS:
		return checkSS(v.Strs)
	case NS:
		return checkNS(v.Strs, false)
	case BS:
		return checkBS(v.Bins)
	case L, M:
		if depth >= MaxDepth {
			return requestErr(msgNesting)
		}
		for i := range v.List {
			if e := validate(&v.List[i], depth+1); e != nil {
				return e
			}
		}
		for name, e := range v.Map {
			if name == "" {
				return requestErr(msgEmptyName)
			}
			if len(name) > MaxNameSize {
				return NameTooLarge()
			}
			if err := validate(&e, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return requestErr(msgEmptyValue)
}

// Depth returns the nesting depth of v: 0 for scalars and sets, 1 + the
// deepest element for L and M.
func Depth(v Value) int {
	d := 0
	for _, e := range v.List {
		d = max(d, Depth(e))
	}
	for _, e := range v.Map {
		d = max(d, Depth(e))
	}
	if v.T == L || v.T == M {
		return d + 1
	}
	return 0
}

// ValidateKeyValue checks the value of key attribute name against the type
// the table declares (want), for a partition key when isHash and a sort key
// otherwise. The errors carry no ddberr.Detected1 prefix (they need the
// table). v.T == TypeNone (attribute missing) is the caller's to report.
func ValidateKeyValue(name string, v Value, want Type, isHash bool) error {
	if v.T != want {
		return ddberr.InvalidParam("Type mismatch for key %s expected: %s actual: %s", name, want, v.T)
	}
	var n int
	switch v.T {
	case S:
		if v.Str == "" {
			return ddberr.Validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: " + name)
		}
		n = len(v.Str)
	case B:
		if len(v.Bin) == 0 {
			return ddberr.Validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: " + name)
		}
		n = len(v.Bin)
	default:
		return nil
	}
	if isHash && n > MaxPartitionKeySize {
		return ddberr.InvalidParam("Size of hashkey has exceeded the maximum size limit of2048 bytes")
	}
	if !isHash && n > MaxSortKeySize {
		return ddberr.InvalidParam("Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
	}
	return nil
}
