package reads

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
)

// encodedPage is the state of a page whose items are kept as DynamoDB JSON,
// transcoded straight from their stored form (attr.AppendStoredItemJSON)
// instead of being decoded into attr.Items. It applies only to pages
// without a filter, a projection or Select=COUNT, which return every
// scanned item whole.
type encodedPage struct {
	on bool
	// guardName and guardPK, when guardName is set, skip stored items whose
	// guardName attribute is not guardPK (Query's foreign-partition guard).
	guardName string
	guardPK   attr.Value

	json    []byte // the items' JSON, separated by commas; never nil when on
	lastEnc []byte // stored form of the last scanned item
}

// canEncode reports whether p may keep its items encoded.
func (p *page) canEncode() bool {
	return p.filter == nil && p.project == nil && !p.count
}

// fillEncoded is fill for a page in encoded mode.
func (p *page) fillEncoded(r storage.RangeReader, opts storage.IterOptions) error {
	it, err := r.NewIterator(opts)
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		stored := it.Value()
		if p.enc.guardName != "" {
			if !attr.StoredAttrEquals(stored, p.enc.guardName, p.enc.guardPK) {
				if _, err := attr.DecodeItem(stored); err != nil {
					return err
				}
				continue
			}
		}
		mark := len(p.enc.json)
		if p.matched > 0 {
			p.enc.json = append(p.enc.json, ',')
		}
		var size int
		if p.enc.json, size, err = attr.AppendStoredItemJSON(p.enc.json, stored); err != nil {
			p.enc.json = p.enc.json[:mark]
			return err
		}
		if p.matched == 0 && p.limit > 1 {
			// Size the buffer from the first item for the page, unless the
			// caller's buffer is big enough, but not past 64 KB: a large
			// make is zeroed in full, and a page of Limit 100 often ends
			// far short of it (append grows on).
			if want := min(len(p.enc.json)*p.limit+p.limit, 64<<10); cap(p.enc.json) < want {
				p.enc.json = append(make([]byte, 0, want), p.enc.json...)
			}
		}
		p.scanned++
		p.matched++
		p.bytes += size
		p.enc.lastEnc = append(p.enc.lastEnc[:0], stored...)
		p.full = (p.limit > 0 && p.scanned >= p.limit) || p.bytes >= maxPageBytes
		if p.full {
			return nil
		}
	}
	return it.Err()
}

// encodedItems returns the items' JSON (without the enclosing brackets)
// and whether the page kept its items encoded.
func (p *page) encodedItems() ([]byte, bool) {
	if !p.enc.on {
		return nil, false
	}
	if p.enc.json == nil {
		return []byte{}, true
	}
	return p.enc.json, true
}

// lastScanned is the last scanned item, decoded from its stored form in
// encoded mode (where it was transcoded already, so it decodes).
func (p *page) lastScanned() attr.Item {
	if !p.enc.on {
		return p.last
	}
	it, _ := attr.DecodeItem(p.enc.lastEnc)
	return it
}
