package backup

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
)

// A backup is stored as
//
//	"b" backupID(8)                → backup record (JSON)
//	"B" backupID(8) + item suffix  → a stored item, keyed as in the table
//	                                 without the table's prefix ("i" tableID)
//
// Backup IDs come from the core's table ID counter, so they are never
// reused.
const (
	PrefixRecord = 'b'
	PrefixItem   = 'B'
)

// Statuses (BackupDetails.BackupStatus).
const (
	Creating  = "CREATING"
	Available = "AVAILABLE"
	Deleted   = "DELETED"
)

// Chunk is how many items one storage transaction copies when a backup
// is taken.
const Chunk = 256

// SystemDays is how long DynamoDB keeps the system backup of a deleted
// table that had point-in-time recovery on.
const SystemDays = 35

// Record is what the store keeps for one backup; S is the core's table
// record.
type Record[S any] struct {
	ID        uint64    `json:"id"`
	ARN       string    `json:"arn"`
	Name      string    `json:"name"`
	Status    string    `json:"status"`
	Created   time.Time `json:"created"`
	SizeBytes int64     `json:"size"`
	ItemCount int64     `json:"items"`
	// Source is the table's record when the backup was requested: its
	// schema, indexes, throughput and settings, and the ID its items were
	// copied from.
	Source S `json:"source"`
	// System marks the backup DynamoDB makes when a table with
	// point-in-time recovery on is deleted: its items stay where the
	// table kept them, and it expires.
	System  bool      `json:"system,omitempty"`
	Expires time.Time `json:"expires,omitzero"`
}

// Key is the storage key of backup id's record.
func Key(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{PrefixRecord}, id)
}

// ItemPrefix is the prefix of backup id's copied items.
func ItemPrefix(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{PrefixItem}, id)
}

// Put stages b's record in txn.
func Put[S any](txn storage.Txn, b *Record[S]) error {
	v, err := json.Marshal(b)
	if err != nil {
		return err
	}
	return txn.Set(Key(b.ID), v)
}

// NewARN is a new backup's ARN, shaped like DynamoDB's: the table's ARN,
// "/backup/", the request time in milliseconds (14 digits, zero-padded)
// and eight random hex digits.
func NewARN(region, account, table string, at time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/backup/%014d-%x", region, account, table, at.UnixMilli(), r)
}

// SystemARN is the ARN of the system backup of a table deleted at: its
// ID ends in -00000000 (probe reports captured from DynamoDB, 2026-10-09).
func SystemARN(region, account, table string, at time.Time) string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/backup/%014d-00000000", region, account, table, at.UnixMilli())
}

// Resource is the part of a backup ARN after its account:
// "table/<name>/backup/<id>". DynamoDB ignores an ARN's region when it
// looks a backup up.
func Resource(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 {
		return arn
	}
	return parts[5]
}

// Details is the BackupDetails of a backup.
func (b *Record[S]) Details() *wire.BackupDetails {
	d := &wire.BackupDetails{
		BackupArn:              ptr(b.ARN),
		BackupName:             ptr(b.Name),
		BackupSizeBytes:        ptr(b.SizeBytes),
		BackupStatus:           b.Status,
		BackupType:             "USER",
		BackupCreationDateTime: wire.NewTime(b.Created),
	}
	if b.System {
		d.BackupType = "SYSTEM"
		d.BackupExpiryDateTime = wire.NewTime(b.Expires)
	}
	return d
}

func ptr[T any](v T) *T { return &v }

// TypeMatches is ListBackups' BackupType filter: USER (the default),
// SYSTEM, AWS_BACKUP (none here) or ALL.
func (b *Record[S]) TypeMatches(filter string) bool {
	switch filter {
	case "ALL":
		return true
	case "SYSTEM":
		return b.System
	case "AWS_BACKUP":
		return false
	}
	return !b.System
}

// Position is a place in ListBackups' order: creation time (ms), then
// the ARN's resource part.
type Position struct {
	ms  int64
	res string
}

// PositionOf is the place of a backup ARN in ListBackups' order: the
// creation time written in its ID.
func PositionOf(arn string) Position {
	res := Resource(arn)
	_, id, _ := strings.Cut(res, "/backup/")
	digits, _, _ := strings.Cut(id, "-")
	ms, _ := strconv.ParseInt(digits, 10, 64)
	return Position{ms, res}
}

// Position is the backup's place in ListBackups' order (the same as its
// ARN's: the ID carries the creation time).
func (b *Record[S]) Position() Position {
	return Position{b.Created.UnixMilli(), Resource(b.ARN)}
}

// Compare orders two places.
func (p Position) Compare(q Position) int {
	if c := cmp.Compare(p.ms, q.ms); c != 0 {
		return c
	}
	return strings.Compare(p.res, q.res)
}
