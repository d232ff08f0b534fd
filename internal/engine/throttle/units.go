package throttle

// ReadUnitBytes is what one read capacity unit covers read strongly
// consistently (half a unit eventually consistently).
const ReadUnitBytes = 4 * 1024

// ReadUnits is the read capacity of reading size bytes: rounded up to 4 KB
// units, at least one unit (reading nothing still costs one), halved for
// eventually consistent reads.
func ReadUnits(size int, consistent bool) float64 {
	u := float64(max(1, (size+ReadUnitBytes-1)/ReadUnitBytes))
	if !consistent {
		u /= 2
	}
	return u
}
