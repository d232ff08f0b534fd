package kinesisdest

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/change"
)

// kinesisRecord is DynamoDB's Kinesis record (the data of each Kinesis
// record), member for member in DynamoDB's order. userIdentity is null
// except for TTL deletions.
type kinesisRecord struct {
	AwsRegion    string        `json:"awsRegion"`
	EventID      string        `json:"eventID"`
	EventName    string        `json:"eventName"`
	UserIdentity *userIdentity `json:"userIdentity"`
	RecordFormat string        `json:"recordFormat"`
	TableName    string        `json:"tableName"`
	Dynamodb     recordBody    `json:"dynamodb"`
	EventSource  string        `json:"eventSource"`
}

type userIdentity struct {
	Type        string `json:"type"`
	PrincipalID string `json:"principalId"`
}

type recordBody struct {
	ApproximateCreationDateTime          int64     `json:"ApproximateCreationDateTime"`
	Keys                                 attr.Item `json:"Keys"`
	NewImage                             attr.Item `json:"NewImage,omitempty"`
	OldImage                             attr.Item `json:"OldImage,omitempty"`
	SizeBytes                            int64     `json:"SizeBytes"`
	ApproximateCreationDateTimePrecision string    `json:"ApproximateCreationDateTimePrecision"`
}

// encodeRecord is the Kinesis data of change c for a destination of the
// given precision: ApproximateCreationDateTime in milliseconds, or in
// microseconds for MICROSECOND, since the epoch.
func encodeRecord(region string, c *change.Change, at time.Time, precision string) ([]byte, error) {
	r := kinesisRecord{
		AwsRegion:    region,
		EventID:      newEventID(),
		RecordFormat: "application/json",
		TableName:    c.Table.Def().Name,
		EventSource:  "aws:dynamodb",
		Dynamodb: recordBody{
			Keys:                                 keys(c),
			NewImage:                             c.New,
			OldImage:                             c.Old,
			SizeBytes:                            int64(size(keys(c)) + size(c.New) + size(c.Old)),
			ApproximateCreationDateTimePrecision: precision,
		},
	}
	if precision == "MICROSECOND" {
		r.Dynamodb.ApproximateCreationDateTime = at.UnixMicro()
	} else {
		r.Dynamodb.ApproximateCreationDateTime = at.UnixMilli()
	}
	switch {
	case c.Old == nil:
		r.EventName = "INSERT"
	case c.New == nil:
		r.EventName = "REMOVE"
		if c.TTL {
			r.UserIdentity = &userIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}
		}
	default:
		r.EventName = "MODIFY"
	}
	return json.Marshal(&r)
}

// keys is the changed item's key attributes.
func keys(c *change.Change) attr.Item {
	if c.New != nil {
		return c.Table.Def().KeyItem(c.New)
	}
	return c.Table.Def().KeyItem(c.Old)
}

func size(it attr.Item) int {
	if it == nil {
		return 0
	}
	return attr.ItemSize(it)
}

// partitionKey is the Kinesis partition key of a change: as DynamoDB's,
// 32 upper-case hexadecimal digits of a hash of the item's partition key
// value, so every change of one item (and of one item collection) goes to
// the same shard, in order.
func partitionKey(c *change.Change) string {
	it := c.New
	if it == nil {
		it = c.Old
	}
	sum := md5.Sum(attr.AppendKey(nil, it[c.Table.Def().Hash.Name]))
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// newEventID is a random UUID, as DynamoDB's eventIDs are.
func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// outboxKey is the key of a destination's outbox record number seq.
func outboxKey(destID, seq uint64) []byte {
	b := binary.BigEndian.AppendUint64([]byte(outboxPrefix), destID)
	return binary.BigEndian.AppendUint64(b, seq)
}

// An outbox value is the partition key's length (1 byte), the partition
// key and the Kinesis data.
func encodeOutbox(pk string, data []byte) []byte {
	b := make([]byte, 0, 1+len(pk)+len(data))
	b = append(b, byte(len(pk)))
	b = append(b, pk...)
	return append(b, data...)
}

var errOutbox = errors.New("kinesisdest: malformed outbox record")

func decodeOutbox(v []byte) (pk string, data []byte, err error) {
	if len(v) < 1 || len(v) < 1+int(v[0]) {
		return "", nil, errOutbox
	}
	n := int(v[0])
	return string(v[1 : 1+n]), v[1+n:], nil
}

// outboxID splits an outbox key into its destination and sequence number.
func outboxID(k []byte) (destID, seq uint64, err error) {
	if len(k) != len(outboxPrefix)+16 {
		return 0, 0, fmt.Errorf("kinesisdest: outbox key %x", k)
	}
	k = k[len(outboxPrefix):]
	return binary.BigEndian.Uint64(k), binary.BigEndian.Uint64(k[8:]), nil
}
