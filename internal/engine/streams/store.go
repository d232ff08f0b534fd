package streams

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// Stream storage (the engine's doc.go lists every key space):
//
//	record: "s" + tableID(8) + streamNo(4) + shardNo(4) + seq(8) → encoded record
//	meta:   "m" "stream/" + tableID(8) + streamNo(4)            → streamMeta (JSON)
//	        "m" "streams/seq"   → sequence-number floor (uint64 BE)
//	        "m" "streams/hmac"  → shard-iterator MAC key
//	        "m" "streams/next"  → next stream number (uint32 BE)
//	        "m" "streams/ctr/" + tableID(8) + streamNo(4) → cluster mode: the
//	                            stream's position, shard(4) last(8) disabled(1)
//	        "m" "streams/tab/" + tableID(8) → cluster mode: the table's newest
//	                            stream (JSON: number, ARN, label)
//
// Sequence numbers come from one engine-wide counter (in cluster mode
// from the stream's stored position), so they increase within every shard
// and across a shard and its children.
const prefixStream = 's'

var (
	metaStreamPrefix   = []byte("mstream/")
	metaStreamSeqKey   = []byte("mstreams/seq")
	metaStreamHMACKey  = []byte("mstreams/hmac")
	metaStreamNextKey  = []byte("mstreams/next")
	errStreamCorrupt   = errors.New("engine: corrupt stream record")
	streamRecordFormat = byte(1)
)

// streamMetaKey is the storage key of one stream's metadata.
func streamMetaKey(tableID uint64, no uint32) []byte {
	b := binary.BigEndian.AppendUint64(append([]byte(nil), metaStreamPrefix...), tableID)
	return binary.BigEndian.AppendUint32(b, no)
}

// streamPrefix is the prefix of every record of one stream.
func streamPrefix(tableID uint64, no uint32) []byte {
	b := make([]byte, 13, 25)
	b[0] = prefixStream
	binary.BigEndian.PutUint64(b[1:], tableID)
	binary.BigEndian.PutUint32(b[9:], no)
	return b
}

// shardPrefix is the prefix of every record of one shard.
func shardPrefix(tableID uint64, no, shard uint32) []byte {
	return binary.BigEndian.AppendUint32(streamPrefix(tableID, no), shard)
}

// streamRecordKey is the storage key of one record.
func streamRecordKey(tableID uint64, no, shard uint32, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(shardPrefix(tableID, no, shard), seq)
}

// Stream statuses as DynamoDB Streams reports them.
const (
	streamEnabled  = "ENABLED"
	streamDisabled = "DISABLED"
)

// streamMeta is the persisted description of one stream.
type streamMeta struct {
	TableID   uint64                  `json:"tableId"`
	TableName string                  `json:"table"`
	No        uint32                  `json:"no"`
	ARN       string                  `json:"arn"`
	Label     string                  `json:"label"`
	ViewType  string                  `json:"viewType"`
	KeySchema []wire.KeySchemaElement `json:"keySchema"`
	Created   time.Time               `json:"created"`
	Disabled  time.Time               `json:"disabled,omitzero"`
	Shards    []shardMeta             `json:"shards"`
	NextShard uint32                  `json:"nextShard"`
}

// shardMeta is one shard. End is 0 while the shard is open; Trimmed is the
// highest sequence number removed by retention (0: nothing trimmed).
type shardMeta struct {
	No      uint32    `json:"no"`
	ID      string    `json:"id"`
	Parent  string    `json:"parent,omitempty"`
	Start   uint64    `json:"start"`
	End     uint64    `json:"end,omitempty"`
	Created time.Time `json:"created"`
	Closed  time.Time `json:"closed,omitzero"`
	Trimmed uint64    `json:"trimmed,omitempty"`
}

func (s *shardMeta) open() bool { return s.End == 0 }

// shardID formats a DynamoDB-style shard ID:
// "shardId-" + 20-digit creation time (ms) + "-" + 8 hex digits.
func shardID(created time.Time, tableID uint64, stream, shard uint32) string {
	h := uint32(tableID*0x9E3779B97F4A7C15>>32) ^ stream*0x85EBCA6B ^ shard*0xC2B2AE35
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	return fmt.Sprintf("shardId-%020d-%08x", created.UnixMilli(), h)
}

// formatSeq renders a sequence number as DynamoDB does: a decimal string
// of 21 digits.
func formatSeq(n uint64) string { return fmt.Sprintf("1%020d", n) }

// parseSeq is the inverse of formatSeq.
func parseSeq(s string) (uint64, bool) {
	if len(s) != 21 || s[0] != '1' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:], 10, 64)
	return n, err == nil
}

// putStreamMeta writes m in txn.
func putStreamMeta(txn storage.Txn, m *streamMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return txn.Set(streamMetaKey(m.TableID, m.No), b)
}

// Event names and their stored codes.
const (
	eventInsert = 1
	eventModify = 2
	eventRemove = 3
)

var eventNames = [...]string{eventInsert: "INSERT", eventModify: "MODIFY", eventRemove: "REMOVE"}

// streamRecord is one decoded stored record.
type streamRecord struct {
	Event    byte
	Service  bool // a TTL deletion (userIdentity dynamodb.amazonaws.com)
	Created  time.Time
	Keys     attr.Item
	New, Old attr.Item
}

// encodeStreamRecord is the stored form of a record: format(1) event(1)
// flags(1) createdMs(8), then keys, new and old images, each a uvarint
// length (0: absent) and an attr item encoding.
func encodeStreamRecord(r *streamRecord) []byte {
	b := make([]byte, 0, 64)
	var flags byte
	if r.Service {
		flags = 1
	}
	b = append(b, streamRecordFormat, r.Event, flags)
	b = binary.BigEndian.AppendUint64(b, uint64(r.Created.UnixMilli()))
	for _, it := range []attr.Item{r.Keys, r.New, r.Old} {
		if it == nil {
			b = binary.AppendUvarint(b, 0)
			continue
		}
		enc := attr.AppendItem(nil, it)
		b = binary.AppendUvarint(b, uint64(len(enc)))
		b = append(b, enc...)
	}
	return b
}

func decodeStreamRecord(b []byte) (*streamRecord, error) {
	if len(b) < 11 || b[0] != streamRecordFormat {
		return nil, errStreamCorrupt
	}
	r := &streamRecord{Event: b[1], Service: b[2]&1 != 0,
		Created: time.UnixMilli(int64(binary.BigEndian.Uint64(b[3:11]))).UTC()}
	rest := b[11:]
	var items [3]attr.Item
	for i := range items {
		n, k := binary.Uvarint(rest)
		if k <= 0 || uint64(len(rest)-k) < n {
			return nil, errStreamCorrupt
		}
		rest = rest[k:]
		if n == 0 {
			continue
		}
		it, err := attr.DecodeItem(rest[:n])
		if err != nil {
			return nil, err
		}
		items[i] = it
		rest = rest[n:]
	}
	if r.Event < eventInsert || r.Event > eventRemove {
		return nil, errStreamCorrupt
	}
	r.Keys, r.New, r.Old = items[0], items[1], items[2]
	return r, nil
}

// sizeBytes is the record's SizeBytes: its keys and images.
func (r *streamRecord) sizeBytes() int64 {
	return int64(itemSize(r.Keys) + itemSize(r.New) + itemSize(r.Old))
}

// itemSize is attr.ItemSize, 0 for a missing item.
func itemSize(it attr.Item) int {
	if it == nil {
		return 0
	}
	return attr.ItemSize(it)
}

// createdOf reads only the creation time of a stored record.
func createdOf(b []byte) (time.Time, bool) {
	if len(b) < 11 || b[0] != streamRecordFormat {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(binary.BigEndian.Uint64(b[3:11]))).UTC(), true
}
