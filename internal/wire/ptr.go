package wire

// Ptr returns a pointer to v, for the optional members of the shapes.
func Ptr[T any](v T) *T { return &v }

// Deref returns *p, or T's zero value when p is nil (an absent member).
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
