package iam

import (
	"cmp"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Context answers a request's condition keys. Keys are compared
// case-insensitively (IAM's rule): Get may be asked with any case (the
// evaluation asks in lower case); ok is false when the request has no
// such key.
type Context interface {
	Get(key string) (vals []string, ok bool)
}

// MapContext is a Context held in a map whose keys are lower case.
type MapContext map[string][]string

// Get implements Context.
func (m MapContext) Get(key string) ([]string, bool) {
	v, ok := m[strings.ToLower(key)]
	return v, ok
}

var operators = map[string]bool{
	"StringEquals": true, "StringNotEquals": true, "StringEqualsIgnoreCase": true, "StringNotEqualsIgnoreCase": true,
	"StringLike": true, "StringNotLike": true,
	"NumericEquals": true, "NumericNotEquals": true, "NumericLessThan": true, "NumericLessThanEquals": true,
	"NumericGreaterThan": true, "NumericGreaterThanEquals": true,
	"DateEquals": true, "DateNotEquals": true, "DateLessThan": true, "DateLessThanEquals": true,
	"DateGreaterThan": true, "DateGreaterThanEquals": true,
	"Bool": true, "BinaryEquals": true, "IpAddress": true, "NotIpAddress": true,
	"ArnEquals": true, "ArnLike": true, "ArnNotEquals": true, "ArnNotLike": true,
	"Null": true,
}

func knownOperator(op string) bool { return operators[op] }

// negated lists the operators that are the negation of another: such an
// operator holds for a request value that matches none of the policy's
// values, and holds when the key is absent.
var negated = map[string]string{
	"StringNotEquals": "StringEquals", "StringNotEqualsIgnoreCase": "StringEqualsIgnoreCase",
	"StringNotLike": "StringLike", "NumericNotEquals": "NumericEquals", "DateNotEquals": "DateEquals",
	"NotIpAddress": "IpAddress", "ArnNotEquals": "ArnEquals", "ArnNotLike": "ArnLike",
}

// holds evaluates one condition against r's keys.
func (cd *Condition) holds(r *Request) bool {
	vals, present := r.get(cd.key)
	if cd.op == "Null" {
		want := len(cd.Values) > 0 && strings.EqualFold(cd.Values[0], "true")
		return want == !present
	}
	if !present || len(vals) == 0 {
		switch {
		case cd.set == setForAll:
			return true // IAM: ForAllValues holds over no values
		case cd.set == setForAny:
			return false
		case cd.ifExists:
			return true
		}
		_, neg := negated[cd.op]
		return neg
	}
	base, neg := negated[cd.op]
	if !neg {
		base = cd.op
	}
	one := func(v string) bool { return cd.matchAny(base, v, r) != neg }
	switch cd.set {
	case setForAll:
		for _, v := range vals {
			if !one(v) {
				return false
			}
		}
		return true
	default:
		// ForAnyValue, and a plain operator over a multi-valued key:
		// some value of the request's satisfies it. A negated plain
		// operator needs every value to match none of the policy's.
		if neg && cd.set == setNone {
			for _, v := range vals {
				if !one(v) {
					return false
				}
			}
			return true
		}
		for _, v := range vals {
			if one(v) {
				return true
			}
		}
		return false
	}
}

// matchAny reports whether request value v matches one of the
// condition's values (policy variables substituted from r's keys; a value
// whose variable has no value matches nothing) under the (non-negated)
// operator op.
func (cd *Condition) matchAny(op, v string, r *Request) bool {
	for _, p := range cd.Values {
		if s, ok := substitute(p, r); ok && matchOne(op, v, s) {
			return true
		}
	}
	return false
}

func matchOne(op, v, p string) bool {
	switch op {
	case "StringEquals", "BinaryEquals":
		return v == p
	case "StringEqualsIgnoreCase":
		return strings.EqualFold(v, p)
	case "StringLike":
		return wildcard(p, v, false)
	case "Bool":
		return strings.EqualFold(v, p)
	case "ArnEquals", "ArnLike":
		return arnLike(p, v)
	case "IpAddress":
		return inNetwork(p, v)
	}
	if strings.HasPrefix(op, "Numeric") {
		a, err1 := strconv.ParseFloat(v, 64)
		b, err2 := strconv.ParseFloat(p, 64)
		return err1 == nil && err2 == nil && compare(op[len("Numeric"):], cmp.Compare(a, b))
	}
	if strings.HasPrefix(op, "Date") {
		a, ok1 := parseDate(v)
		b, ok2 := parseDate(p)
		return ok1 && ok2 && compare(op[len("Date"):], a.Compare(b))
	}
	return false
}

// compare applies a Numeric/Date operator's suffix to a comparison result.
func compare(suffix string, c int) bool {
	switch suffix {
	case "Equals":
		return c == 0
	case "LessThan":
		return c < 0
	case "LessThanEquals":
		return c <= 0
	case "GreaterThan":
		return c > 0
	case "GreaterThanEquals":
		return c >= 0
	}
	return false
}

// parseDate reads a date as IAM accepts it: ISO 8601 (with or without
// time and zone) or seconds since the epoch.
func parseDate(s string) (time.Time, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// arnLike matches an ARN against a pattern part by part (the six
// colon-separated parts; wildcards do not cross a part boundary except in
// the last, the resource, which may itself hold colons).
func arnLike(pattern, arn string) bool {
	pp := strings.SplitN(pattern, ":", 6)
	ap := strings.SplitN(arn, ":", 6)
	if len(pp) != 6 || len(ap) != 6 {
		return false
	}
	for i := range pp {
		if !wildcard(pp[i], ap[i], false) {
			return false
		}
	}
	return true
}

// inNetwork reports whether address v is in CIDR block p (or is address
// p).
func inNetwork(p, v string) bool {
	addr, err := netip.ParseAddr(v)
	if err != nil {
		return false
	}
	if !strings.Contains(p, "/") {
		a, err := netip.ParseAddr(p)
		return err == nil && a == addr
	}
	pfx, err := netip.ParsePrefix(p)
	return err == nil && pfx.Contains(addr.Unmap())
}
