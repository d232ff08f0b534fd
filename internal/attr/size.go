package attr

// MaxItemSize is DynamoDB's item size limit (400 KB): an item of exactly
// this size is accepted, one byte more is refused.
const MaxItemSize = 400 * 1024

// ItemSize returns an item's size as DynamoDB counts it: for every
// attribute, the UTF-8 length of its name plus ValueSize of its value.
func ItemSize(it Item) int {
	n := 0
	for k, v := range it {
		n += len(k) + ValueSize(v)
	}
	return n
}

// ValueSize returns a value's size as DynamoDB counts it:
//   - S: UTF-8 bytes; B: bytes; BOOL and NULL: 1;
//   - N: see NumberSize;
//   - SS, NS, BS: the sum of the element sizes;
//   - L: 3 + for each element 1 + its size;
//   - M: 3 + for each entry the name's length + 1 + the value's size.
func ValueSize(v Value) int {
	switch v.T {
	case S:
		return len(v.Str)
	case N:
		return NumberSize(v.Str)
	case B:
		return len(v.Bin)
	case BOOL, NULL:
		return 1
	case SS:
		n := 0
		for _, s := range v.Strs {
			n += len(s)
		}
		return n
	case NS:
		n := 0
		for _, s := range v.Strs {
			n += NumberSize(s)
		}
		return n
	case BS:
		n := 0
		for _, b := range v.Bins {
			n += len(b)
		}
		return n
	case L:
		n := 3
		for _, e := range v.List {
			n += 1 + ValueSize(e)
		}
		return n
	case M:
		n := 3
		for k, e := range v.Map {
			n += len(k) + 1 + ValueSize(e)
		}
		return n
	}
	return 0
}

// NumberSize returns the stored size of a number: DynamoDB keeps numbers in
// base 100 with digit pairs aligned on the decimal point, so the size is
// 1 (exponent) + the number of base-100 digits between the first and last
// significant decimal digit + 1 more for a negative number; zero is 1 byte.
// E.g. "1"→2, "12"→2, "123"→3, "1.5"→3, "3.14159"→5, "123456"→4,
// "1E125"→2, "-42"→3. It does not depend on how the literal was written.
func NumberSize(s string) int {
	r, ok := scanNumber(s)
	if !ok || r.zero {
		return 1
	}
	// Significant digits occupy decimal positions exp-1 down to exp-nd;
	// base-100 digit k covers positions 2k+1 and 2k.
	top := floorDiv2(r.exp - 1)
	bottom := floorDiv2(r.exp - int64(r.nd))
	n := 1 + int(top-bottom+1)
	if r.neg {
		n++
	}
	return n
}

func floorDiv2(x int64) int64 {
	if x >= 0 {
		return x / 2
	}
	return -((-x + 1) / 2)
}
