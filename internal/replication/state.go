package replication

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
)

// Keys of the replication store. Parts are separated by a 0 byte (table
// and region names hold none).
//
//	g 0 table                       → tableState (JSON)
//	c 0 table 0 region              → position (JSON): the reader's place in the region's stream
//	q 0 table 0 region 0 seq(8)     → entry (JSON): a write queued for region
//	m 0 table 0 region 0 key        → stamp (JSON): the last write of the item applied in region
//	e 0 table 0 region 0 key        → []marker (JSON): writes applied in region not yet seen in its stream
func key(kind byte, parts ...string) []byte {
	b := []byte{kind}
	for _, p := range parts {
		b = append(b, 0)
		b = append(b, p...)
	}
	return b
}

func queueKey(table, region string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(key('q', table, region), 0), seq)
}

// prefixEnd is the first key after every key starting with p.
func prefixEnd(p []byte) []byte {
	end := slices.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// tableState is a global table in the catalogue.
type tableState struct {
	Name     string         `json:"name"`
	Replicas []replicaState `json:"replicas"`
	// WriteScaling is the write auto scaling every replica shares
	// (autoscaling.go).
	WriteScaling *writeScaling `json:"writeScaling,omitempty"`
	// Strong is set for a multi-Region strongly consistent (MRSC) table
	// (strong.go): its key attributes, and its witness region if it has
	// one. nil: replication is eventually consistent (MREC).
	Strong *strongState `json:"strong,omitempty"`
}

// replicaState is one region's replica: CREATING (being filled), ACTIVE,
// UPDATING (its settings changed, until ReadyAt) or DELETING.
type replicaState struct {
	Region string `json:"region"`
	Status string `json:"status"`
	// ReadyAt is when an UPDATING replica is ACTIVE again, in Unix
	// nanoseconds on the clock of region ReadyOn (where the change was
	// asked).
	ReadyAt int64  `json:"readyAt,omitempty"`
	ReadyOn string `json:"readyOn,omitempty"`
	// Settings are what the replica sets apart from its global table
	// (settings.go); nil: nothing.
	Settings *replicaSettings `json:"settings,omitempty"`
}

const (
	statusCreating = "CREATING"
	statusActive   = "ACTIVE"
	statusUpdating = "UPDATING"
	statusDeleting = "DELETING"
)

// position is a reader's place in a stream: the last sequence number read
// in each shard, and the shards read to their end.
type position struct {
	StreamArn string            `json:"streamArn"`
	Last      map[string]string `json:"last"`
	Done      map[string]bool   `json:"done"`
}

// stamp orders the writes of one item: the time the write happened (an
// upper bound of it, in Unix nanoseconds) and the region it happened in.
type stamp struct {
	TS     int64  `json:"ts"`
	Origin string `json:"origin"`
}

// after reports whether s is a later write than o.
func (s stamp) after(o stamp) bool {
	return s.TS > o.TS || s.TS == o.TS && s.Origin > o.Origin
}

// entry is a write queued for a region: the item's new image (nil: the
// item is deleted) and its stamp.
type entry struct {
	Key      attr.Item `json:"key"`
	Image    attr.Item `json:"image,omitempty"`
	Stamp    stamp     `json:"stamp"`
	Enqueued int64     `json:"enqueued"` // Unix nanoseconds, for replication delays
}

// marker is a write the worker applied in a region, by the digest of the
// image written, until the region's stream shows it.
type marker struct {
	Digest string `json:"digest"`
	Stamp  stamp  `json:"stamp"`
}

// itemKey is the stored form of an item's key attributes.
func itemKey(k attr.Item) string { return string(attr.AppendItemJSON(nil, k)) }

// digest names an image (nil: a deletion).
func digest(img attr.Item) string {
	if img == nil {
		return "deleted"
	}
	sum := sha256.Sum256(attr.AppendItemJSON(nil, img))
	return hex.EncodeToString(sum[:]) // JSON keeps only UTF-8 strings intact
}

// getJSON reads the JSON value at k into v; false when there is none.
func getJSON(r storage.Reader, k []byte, v any) (bool, error) {
	b, err := r.Get(k)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(b, v)
}

func setJSON(t storage.Txn, k []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.Set(k, b)
}
