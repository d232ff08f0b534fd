package attr

// Type is the DynamoDB data type of a Value.
type Type uint8

// The ten DynamoDB attribute types. TypeNone is the zero Value (absent).
const (
	TypeNone Type = iota
	S
	N
	B
	BOOL
	NULL
	M
	L
	SS
	NS
	BS
)

// Value is one DynamoDB AttributeValue. Exactly the field(s) matching T are
// meaningful:
//   - S: Str;  N: Str holds the number in canonical form (see Number);
//   - B: Bin;  BOOL: Bool;  NULL: no payload (always true on the wire);
//   - M: Map;  L: List;
//   - SS, NS: Strs (NS elements canonical numbers);  BS: Bins.
type Value struct {
	T    Type
	Bool bool
	Str  string
	Bin  []byte
	Strs []string
	Bins [][]byte
	List []Value
	Map  map[string]Value
}

// Item is a DynamoDB item (or key): attribute name → value.
type Item map[string]Value
