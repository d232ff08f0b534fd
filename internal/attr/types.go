package attr

var typeNames = [...]string{
	TypeNone: "",
	S:        "S",
	N:        "N",
	B:        "B",
	BOOL:     "BOOL",
	NULL:     "NULL",
	M:        "M",
	L:        "L",
	SS:       "SS",
	NS:       "NS",
	BS:       "BS",
}

// String returns the DynamoDB name of the type ("S", "NS", "BOOL", …), or ""
// for TypeNone and unknown values.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return ""
}

// TypeFromString returns the Type named s ("S", "N", …), or TypeNone.
func TypeFromString(s string) Type {
	for i, n := range typeNames {
		if n == s && i != 0 {
			return Type(i)
		}
	}
	return TypeNone
}

// IsSet reports whether t is one of the set types SS, NS and BS.
func (t Type) IsSet() bool { return t == SS || t == NS || t == BS }

// IsScalar reports whether t is S, N or B, the types a key attribute can have.
func (t Type) IsScalar() bool { return t == S || t == N || t == B }
