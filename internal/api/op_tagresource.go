package api

import (
	"strconv"

	"github.com/kura-db/kura/internal/wire"
)

var tagResource = op(Backend.TagResource, func(in *wire.TagResourceInput) error {
	var v validator
	v.resourceArn(in.ResourceArn)
	v.notNull("tags", in.Tags == nil)
	for i, t := range in.Tags {
		p := "tags." + strconv.Itoa(i+1) + ".member."
		v.notNull(p+"key", t.Key == nil)
		if t.Key != nil {
			v.minLen(p+"key", quote(*t.Key), len(*t.Key), 1)
			v.maxLen(p+"key", quote(*t.Key), len(*t.Key), 128)
		}
		v.notNull(p+"value", t.Value == nil)
		if t.Value != nil {
			v.maxLen(p+"value", quote(*t.Value), len(*t.Value), 256)
		}
	}
	return v.err()
})

// resourceArn checks a required ResourceArn (length 1..1283).
func (v *validator) resourceArn(p *string) {
	v.notNull("resourceArn", p == nil)
	if p != nil {
		v.minLen("resourceArn", quote(*p), len(*p), 1)
		v.maxLen("resourceArn", quote(*p), len(*p), 1283)
	}
}
