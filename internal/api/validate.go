package api

import (
	"strconv"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
)

// Enum value sets, in the order DynamoDB prints them.
var (
	enumReturnConsumedCapacity = []string{"INDEXES", "TOTAL", "NONE"}
	enumReturnItemCollection   = []string{"SIZE", "NONE"}
	enumReturnValues           = []string{"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"}
	enumReturnValuesOnCCF      = []string{"ALL_OLD", "NONE"}
	enumReturnValuesOlder      = []string{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"} // the older per-value layer's order
	enumSelect                 = []string{"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"}
	enumConditionalOperator    = []string{"OR", "AND"} // as listed by us-east-1 and eu-west-2, 2026-10-09
	enumComparisonOperator     = []string{"IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT", "NOT_NULL", "NE", "LE", "BEGINS_WITH", "GE", "CONTAINS"}
	enumBillingMode            = []string{"PROVISIONED", "PAY_PER_REQUEST"}
	enumKeyType                = []string{"HASH", "RANGE"}
	enumScalarAttributeType    = []string{"B", "N", "S"}
	enumProjectionType         = []string{"ALL", "INCLUDE", "KEYS_ONLY"}
	enumStreamViewType         = []string{"OLD_IMAGE", "KEYS_ONLY", "NEW_AND_OLD_IMAGES", "NEW_IMAGE"}
	enumTableClass             = []string{"STANDARD", "STANDARD_INFREQUENT_ACCESS"}
	enumSSEType                = []string{"AES256", "KMS"}
)

// returnValuesBareText is how DynamoDB (us-east-1, 2026-08) reports a bad
// ReturnValues: no "Value ... at ..." part, and its own spelling of the set.
const returnValuesBareText = "Failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATE_NEW, NONE]"

const tableNamePattern = "[a-zA-Z0-9_.-]+"

// violation is one failed member constraint. bare is a pre-formatted entry
// printed as is (DynamoDB's quirk for ReturnValues); a bare entry with a
// constraint too has that per-value form in the older layer.
type violation struct {
	c    ddberr.Constraint
	bare string
}

// validator collects member-constraint failures in DynamoDB's order.
type validator struct {
	vs []violation
}

func (v *validator) add(value, member, text string) {
	v.vs = append(v.vs, violation{c: ddberr.Constraint{Value: value, Member: member, Text: text}})
}

func (v *validator) addBare(text string) { v.vs = append(v.vs, violation{bare: text}) }

// err is the "N validation error(s) detected: ..." exception, or nil.
// When a bare entry has a per-value form in DynamoDB's older layer (a bad
// ReturnValues), the error carries that reading too (ddberr.OlderLayer).
func (v *validator) err() error {
	if len(v.vs) == 0 {
		return nil
	}
	e := ddberr.Validation(v.text(false))
	if older := v.text(true); older != e.Message {
		e.Older = older
	}
	return e
}

// text words the violations; older prints a bare entry in its per-value
// form when it has one.
func (v *validator) text(older bool) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(v.vs)))
	if len(v.vs) == 1 {
		b.WriteString(" validation error detected: ")
	} else {
		b.WriteString(" validation errors detected: ")
	}
	for i, x := range v.vs {
		if i > 0 {
			b.WriteString("; ")
		}
		if x.bare != "" && !(older && x.c.Member != "") {
			b.WriteString(x.bare)
			continue
		}
		b.WriteString("Value ")
		if x.c.Value != "" {
			b.WriteString(x.c.Value)
			b.WriteByte(' ')
		}
		b.WriteString("at '")
		b.WriteString(x.c.Member)
		b.WriteString("' failed to satisfy constraint: ")
		b.WriteString(x.c.Text)
	}
	return b.String()
}

func quote(s string) string {
	if s == explicitEmpty {
		return "''" // an enum member sent as "" (empty_enums.go)
	}
	return "'" + s + "'"
}

func (v *validator) notNull(member string, isNull bool) {
	if isNull {
		v.add("null", member, "Member must not be null")
	}
}

func (v *validator) enum(member, val string, set []string) {
	if val == "" {
		return
	}
	for _, s := range set {
		if s == val {
			return
		}
	}
	v.add(quote(val), member, "Member must satisfy enum value set: ["+strings.Join(set, ", ")+"]")
}

// returnValues checks ReturnValues, reported in DynamoDB's bare form.
func (v *validator) returnValues(val string) {
	if !validReturnValues(val) {
		// The older layer lists the value against its own order of the set.
		v.vs = append(v.vs, violation{bare: returnValuesBareText, c: ddberr.Constraint{Value: quote(val), Member: "returnValues",
			Text: "Member must satisfy enum value set: [" + strings.Join(enumReturnValuesOlder, ", ") + "]"}})
	}
}

func validReturnValues(val string) bool {
	if val == "" {
		return true
	}
	for _, s := range enumReturnValues {
		if s == val {
			return true
		}
	}
	return false
}

func (v *validator) minLen(member, echo string, n, min int) {
	if n < min {
		v.add(echo, member, "Member must have length greater than or equal to "+strconv.Itoa(min))
	}
}

func (v *validator) maxLen(member, echo string, n, max int) {
	if n > max {
		v.add(echo, member, "Member must have length less than or equal to "+strconv.Itoa(max))
	}
}

func (v *validator) intRange(member string, p *int32, min, max int64) {
	if p != nil {
		v.int64Range(member, int64(*p), min, max)
	}
}

// rangeNoEcho is intRange in the form DynamoDB's Query and Scan report
// since 2026: no echoed value, the member capitalised ("Value at 'Limit'
// failed to satisfy constraint: ...").
func (v *validator) rangeNoEcho(member string, p *int32, min, max int64) {
	if p == nil {
		return
	}
	n := int64(*p)
	if n < min {
		v.addBare("Value at '" + member + "' failed to satisfy constraint: Member must have value greater than or equal to " + strconv.FormatInt(min, 10))
	}
	if n > max {
		v.addBare("Value at '" + member + "' failed to satisfy constraint: Member must have value less than or equal to " + strconv.FormatInt(max, 10))
	}
}

func (v *validator) int64Range(member string, n, min, max int64) {
	echo := quote(strconv.FormatInt(n, 10))
	if n < min {
		v.add(echo, member, "Member must have value greater than or equal to "+strconv.FormatInt(min, 10))
	}
	if n > max {
		v.add(echo, member, "Member must have value less than or equal to "+strconv.FormatInt(max, 10))
	}
}

// name checks a table or index name: pattern, then length 3..255.
func (v *validator) name(member, s string) {
	if isARN(s) {
		v.maxLen(member, quote(s), len(s), 1024)
		return
	}
	v.plainName(member, s)
}

// plainName checks a name that cannot be an ARN: pattern, then length 3..255.
func (v *validator) plainName(member, s string) {
	if !matchesNamePattern(s) {
		v.add(quote(s), member, "Member must satisfy regular expression pattern: "+tableNamePattern)
	}
	v.minLen(member, quote(s), len(s), 3)
	v.maxLen(member, quote(s), len(s), 255)
}

// tableName checks a TableName member; required reports null.
func (v *validator) tableName(p *string, required bool) {
	if p == nil {
		if required {
			v.notNull("tableName", true)
		}
		return
	}
	v.name("tableName", *p)
}

// isARN reports whether a TableName is given as a table ARN, which
// DynamoDB accepts in place of the name (resolved by the backend).
func isARN(s string) bool { return strings.HasPrefix(s, "arn:") }

func matchesNamePattern(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// emptyTableName is DynamoDB's answer to TableName="": it is reported
// alone, before any other constraint, with no echoed value.
func emptyTableName(p *string) error {
	if p != nil && *p == "" {
		return ddberr.Validation(ddberr.Detected1 +
			"Value at 'TableName' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	return nil
}

// attributesToGet checks the legacy AttributesToGet list (at least 1 name).
func (v *validator) attributesToGet(member string, names []string) {
	if names != nil && len(names) == 0 {
		v.minLen(member, "'[]'", 0, 1)
	}
}
