package streams

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/wire"
	sw "github.com/kura-db/kura/internal/wire/streamswire"
)

// Limits of the Streams API.
const (
	maxListStreams   = 100
	maxDescribeShard = 100
	maxGetRecords    = 1000
	maxRecordsBytes  = 1 << 20 // GetRecords returns at most 1 MB
)

const nsStreams = "com.amazonaws.dynamodb.v20120810#"

func streamErr(typ, msg string) *ddberr.Error {
	return &ddberr.Error{Namespace: nsStreams, Type: typ, Status: 400, Message: msg}
}

func streamNotFound(arn string) *ddberr.Error {
	return ddberr.ResourceNotFound("Requested resource not found: Stream: " + arn + " not found")
}

func shardNotFound(id string) *ddberr.Error {
	return ddberr.ResourceNotFound("Requested resource not found: Shard: " + id + " not found")
}

func errExpiredIterator() *ddberr.Error {
	return streamErr("ExpiredIteratorException", "The provided iterator exceeds the maximum age allowed.")
}

func errTrimmed() *ddberr.Error {
	return streamErr("TrimmedDataAccessException", "The data you are trying to access has been trimmed.")
}

func errInvalidIterator() *ddberr.Error { return ddberr.Validation("Invalid ShardIterator") }

// retention is how long records (and disabled streams) are kept.
func (reg *Registry) retention() time.Duration {
	if reg.cfg.Retention > 0 {
		return reg.cfg.Retention
	}
	return defaultRetention
}

// wellFormedStreamARN reports whether arn has a stream ARN's shape,
// arn:<partition>:dynamodb:<region>:<account>:table/<name>/stream/<label>.
func wellFormedStreamARN(arn string) bool {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return false
	}
	res, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return false
	}
	name, label, ok := strings.Cut(res, "/stream/")
	return ok && name != "" && label != "" && !strings.Contains(name, "/")
}

// lookupStream finds a retained stream by ARN for action. An ARN without a
// stream ARN's shape is a ValidationException in DynamoDB Streams, one of
// another account an AccessDeniedException (arn_access.go), one that names
// no stream a ResourceNotFoundException.
func (reg *Registry) lookupStream(action, arn string) (*streamState, error) {
	if !wellFormedStreamARN(arn) {
		return nil, ddberr.Validation("Invalid StreamArn")
	}
	if err := reg.cfg.Authorize(action, arn); err != nil {
		return nil, err
	}
	s, ok, err := reg.known(func() *streamState { return reg.byARN[arn] })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, streamNotFound(arn)
	}
	return s, nil
}

// known finds a stream in the registry with find (called under reg.mu);
// in cluster mode a stream it does not know is looked for in the store
// (another node may have created it).
func (reg *Registry) known(find func() *streamState) (*streamState, bool, error) {
	reg.mu.Lock()
	s := find()
	reg.mu.Unlock()
	if s != nil || !reg.cfg.Cluster {
		return s, s != nil, nil
	}
	if err := reg.refreshAll(); err != nil {
		return nil, false, err
	}
	reg.mu.Lock()
	s = find()
	reg.mu.Unlock()
	return s, s != nil, nil
}

// ListStreams lists the retained streams, optionally of one table, in
// creation order, paged by ExclusiveStartStreamArn.
func (reg *Registry) ListStreams(ctx context.Context, in *sw.ListStreamsInput) (*sw.ListStreamsOutput, error) {
	limit := maxListStreams
	if in.Limit != nil && int(*in.Limit) < limit {
		limit = int(*in.Limit)
	}
	name := wire.Deref(in.TableName)
	if strings.HasPrefix(name, "arn:") {
		if i := strings.Index(name, ":table/"); i >= 0 {
			name = name[i+len(":table/"):]
		}
	}
	if reg.cfg.Cluster {
		if err := reg.refreshAll(); err != nil {
			return nil, err
		}
	}
	all := reg.list()
	var list []*streamState
	for _, s := range all {
		if name == "" || s.meta.TableName == name {
			list = append(list, s)
		}
	}
	if name != "" && len(list) == 0 {
		if !reg.cfg.TableExists(name) {
			return nil, ddberr.TableNamedNotFound(name)
		}
	}
	if start := wire.Deref(in.ExclusiveStartStreamArn); start != "" && !wellFormedStreamARN(start) {
		// A malformed start ARN is refused (ScyllaDB's Alternator tests,
		// which are run against DynamoDB; the text is the one DescribeStream
		// answers a malformed ARN with).
		return nil, ddberr.Validation("Invalid StreamArn")
	}
	if start := wire.Deref(in.ExclusiveStartStreamArn); start != "" {
		for i, s := range list {
			if s.meta.ARN == start {
				list = list[i+1:]
				break
			}
		}
	}
	out := &sw.ListStreamsOutput{Streams: []sw.Stream{}}
	for i, s := range list {
		if i == limit {
			out.LastEvaluatedStreamArn = wire.Ptr(list[i-1].meta.ARN)
			break
		}
		out.Streams = append(out.Streams, sw.Stream{StreamArn: wire.Ptr(s.meta.ARN), StreamLabel: wire.Ptr(s.meta.Label),
			TableName: wire.Ptr(s.meta.TableName)})
	}
	return out, nil
}

// DescribeStream describes a stream and its shards (lineage and sequence
// number ranges), paged by ExclusiveStartShardId, or only the children of
// one shard with ShardFilter CHILD_SHARDS.
func (reg *Registry) DescribeStream(ctx context.Context, in *sw.DescribeStreamInput) (*sw.DescribeStreamOutput, error) {
	s, err := reg.lookupStream("DescribeStream", wire.Deref(in.StreamArn))
	if err != nil {
		return nil, err
	}
	limit := maxDescribeShard
	if in.Limit != nil && int(*in.Limit) < limit {
		limit = int(*in.Limit)
	}
	v, found, err := reg.readView(s)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, streamNotFound(s.arn)
	}
	m := v.meta
	d := &sw.StreamDescription{
		StreamArn: wire.Ptr(m.ARN), StreamLabel: wire.Ptr(m.Label), StreamViewType: m.ViewType,
		StreamStatus: streamEnabled, TableName: wire.Ptr(m.TableName),
		CreationRequestDateTime: wire.NewTime(m.Created), Shards: []sw.Shard{},
	}
	if !m.Disabled.IsZero() {
		d.StreamStatus = streamDisabled
	}
	for _, k := range m.KeySchema {
		d.KeySchema = append(d.KeySchema, sw.KeySchemaElement{AttributeName: k.AttributeName, KeyType: k.KeyType})
	}
	shards := m.Shards
	if f := in.ShardFilter; f != nil && f.Type == "CHILD_SHARDS" {
		parent := wire.Deref(f.ShardId)
		var kids []shardMeta
		for _, sh := range shards {
			if sh.Parent == parent && parent != "" {
				kids = append(kids, sh)
			}
		}
		shards = kids
	}
	if start := wire.Deref(in.ExclusiveStartShardId); start != "" {
		// The shards after start in ID order (IDs sort by creation time):
		// an ID the stream never had lists those above it, so one past the
		// last lists none, as DynamoDB answers (a test suite run against
		// it); Kura listed every shard.
		i := slices.IndexFunc(shards, func(sh shardMeta) bool { return sh.ID == start })
		if i >= 0 {
			shards = shards[i+1:]
		} else {
			var later []shardMeta
			for _, sh := range shards {
				if sh.ID > start {
					later = append(later, sh)
				}
			}
			shards = later
		}
	}
	for i, sh := range shards {
		if i == limit {
			d.LastEvaluatedShardId = wire.Ptr(shards[i-1].ID)
			break
		}
		out := sw.Shard{ShardId: wire.Ptr(sh.ID), SequenceNumberRange: &sw.SequenceNumberRange{
			StartingSequenceNumber: wire.Ptr(formatSeq(sh.Start))}}
		if sh.Parent != "" {
			out.ParentShardId = wire.Ptr(sh.Parent)
		}
		if !sh.open() {
			out.SequenceNumberRange.EndingSequenceNumber = wire.Ptr(formatSeq(sh.End))
		}
		d.Shards = append(d.Shards, out)
	}
	return &sw.DescribeStreamOutput{StreamDescription: d}, nil
}

// iterator is a decoded shard iterator: read records with numbers above
// after, in one shard, issued at issued.
type iterator struct {
	table  uint64
	stream uint32
	shard  uint32
	after  uint64
	issued time.Time
}

const iteratorVersion = 1

// encodeIterator renders an iterator as DynamoDB shapes them (the stream
// ARN, "|1|", then an opaque part): a binary position and a MAC over the
// ARN and the position, so that a forged or altered iterator is refused.
func (reg *Registry) encodeIterator(arn string, it iterator) string {
	b := make([]byte, 0, 33+16)
	b = append(b, iteratorVersion)
	b = binary.BigEndian.AppendUint64(b, it.table)
	b = binary.BigEndian.AppendUint32(b, it.stream)
	b = binary.BigEndian.AppendUint32(b, it.shard)
	b = binary.BigEndian.AppendUint64(b, it.after)
	b = binary.BigEndian.AppendUint64(b, uint64(it.issued.UnixMilli()))
	b = append(b, reg.iteratorMAC(arn, b)...)
	return arn + "|1|" + base64.RawURLEncoding.EncodeToString(b)
}

func (reg *Registry) iteratorMAC(arn string, payload []byte) []byte {
	h := hmac.New(sha256.New, reg.key)
	h.Write([]byte(arn))
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum(nil)[:16]
}

func (reg *Registry) decodeIterator(s string) (string, iterator, error) {
	var it iterator
	i := strings.LastIndex(s, "|1|")
	if i < 0 {
		return "", it, errInvalidIterator()
	}
	arn := s[:i]
	b, err := base64.RawURLEncoding.Strict().DecodeString(s[i+3:])
	if err != nil || len(b) != 33+16 || b[0] != iteratorVersion {
		return "", it, errInvalidIterator()
	}
	if !hmac.Equal(b[33:], reg.iteratorMAC(arn, b[:33])) {
		return "", it, errInvalidIterator()
	}
	it.table = binary.BigEndian.Uint64(b[1:])
	it.stream = binary.BigEndian.Uint32(b[9:])
	it.shard = binary.BigEndian.Uint32(b[13:])
	it.after = binary.BigEndian.Uint64(b[17:])
	it.issued = time.UnixMilli(int64(binary.BigEndian.Uint64(b[25:])))
	return arn, it, nil
}

// GetShardIterator returns an iterator at a position of a shard.
func (reg *Registry) GetShardIterator(ctx context.Context, in *sw.GetShardIteratorInput) (*sw.GetShardIteratorOutput, error) {
	arn := wire.Deref(in.StreamArn)
	s, err := reg.lookupStream("GetShardIterator", arn)
	if err != nil {
		return nil, err
	}
	typ := in.ShardIteratorType
	seqStr := wire.Deref(in.SequenceNumber)
	needSeq := typ == "AT_SEQUENCE_NUMBER" || typ == "AFTER_SEQUENCE_NUMBER"
	if needSeq && in.SequenceNumber == nil {
		return nil, ddberr.Validation("Must provide SequenceNumber for iterator type " + typ)
	}
	if !needSeq && in.SequenceNumber != nil {
		return nil, ddberr.Validation("Must not provide SequenceNumber for iterator type " + typ)
	}
	id := wire.Deref(in.ShardId)
	v, found, err := reg.readView(s)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, streamNotFound(arn)
	}
	i := slices.IndexFunc(v.meta.Shards, func(sh shardMeta) bool { return sh.ID == id })
	if i < 0 {
		return nil, shardNotFound(id)
	}
	sh := &v.meta.Shards[i]
	it := iterator{table: v.meta.TableID, stream: v.meta.No, shard: sh.No, issued: reg.cfg.Clock.Now()}
	switch typ {
	case "TRIM_HORIZON":
		it.after = max(sh.Start-1, sh.Trimmed)
	case "LATEST":
		if sh.open() {
			it.after = max(v.safe, sh.Start-1)
		} else {
			it.after = sh.End
		}
	default:
		n, ok := parseSeq(seqStr)
		if !ok || n < sh.Start || !sh.open() && n > sh.End || sh.open() && n > v.top {
			return nil, ddberr.Validation("Invalid SequenceNumber " + seqStr + " for shard " + id)
		}
		if n <= sh.Trimmed {
			return nil, errTrimmed()
		}
		it.after = n
		if typ == "AT_SEQUENCE_NUMBER" {
			it.after = n - 1
		}
	}
	return &sw.GetShardIteratorOutput{ShardIterator: wire.Ptr(reg.encodeIterator(arn, it))}, nil
}

// GetRecords reads the records after an iterator's position, up to Limit
// records, 1 MB, or the stream's safe watermark. The next iterator
// continues after the last record returned; at the end of a closed shard
// there is none.
func (reg *Registry) GetRecords(ctx context.Context, in *sw.GetRecordsInput) (*sw.GetRecordsOutput, error) {
	arn, it, err := reg.decodeIterator(wire.Deref(in.ShardIterator))
	if err != nil {
		return nil, err
	}
	now := reg.cfg.Clock.Now()
	if now.Sub(it.issued) > iteratorLifetime {
		return nil, errExpiredIterator()
	}
	limit := maxGetRecords
	if in.Limit != nil && int(*in.Limit) < limit {
		limit = int(*in.Limit)
	}
	s, ok, err := reg.known(func() *streamState { return reg.byID[streamKey{it.table, it.stream}] })
	if err != nil {
		return nil, err
	}
	if !ok || s.arn != arn {
		return nil, streamNotFound(arn)
	}
	// With one node the snapshot is taken after the watermark (below); in
	// cluster mode the stream is read from the snapshot its records are
	// read from.
	var snap storage.Snapshot
	if reg.cfg.Cluster {
		if snap, err = reg.cfg.Store.NewSnapshot(); err != nil {
			return nil, err
		}
		defer snap.Close()
	}
	v, found, err := reg.view(s, snap)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, streamNotFound(arn)
	}
	var sh shardMeta
	found = false
	for _, x := range v.meta.Shards {
		if x.No == it.shard {
			sh, found = x, true
		}
	}
	upper := v.safe
	view := v.meta.ViewType
	if !found {
		return nil, ddberr.ResourceNotFound("Requested resource not found: Shard does not exist")
	}
	if it.after < sh.Trimmed {
		return nil, errTrimmed()
	}
	if !sh.open() {
		upper = min(upper, sh.End)
	}
	out := &sw.GetRecordsOutput{Records: []sw.Record{}}
	pos := it.after
	if upper > pos {
		if snap == nil {
			// The snapshot is taken after the watermark: every record at
			// or below it has committed and is visible.
			if snap, err = reg.cfg.Store.NewSnapshot(); err != nil {
				return nil, err
			}
			defer snap.Close()
		}
		prefix := shardPrefix(it.table, it.stream, it.shard)
		iter, err := snap.NewIterator(storage.IterOptions{
			Lower: binary.BigEndian.AppendUint64(append([]byte(nil), prefix...), pos+1),
			Upper: binary.BigEndian.AppendUint64(append([]byte(nil), prefix...), upper+1),
		})
		if err != nil {
			return nil, err
		}
		defer iter.Close()
		var bytes int64
		full := false
		for len(out.Records) < limit && iter.Next() {
			k := iter.Key()
			n := binary.BigEndian.Uint64(k[len(k)-8:])
			r, err := decodeStreamRecord(iter.Value())
			if err != nil {
				return nil, err
			}
			rec := reg.wireRecord(arn, view, n, r)
			size := wire.Deref(rec.Dynamodb.SizeBytes)
			if len(out.Records) > 0 && bytes+size > maxRecordsBytes {
				full = true
				break
			}
			bytes += size
			out.Records = append(out.Records, rec)
			pos = n
		}
		if err := iter.Err(); err != nil {
			return nil, err
		}
		if !full && len(out.Records) < limit {
			pos = upper // nothing else can appear at or below the watermark
		}
	}
	if !sh.open() && pos >= sh.End {
		return out, nil // end of a closed shard: no next iterator
	}
	it.after, it.issued = pos, now
	out.NextShardIterator = wire.Ptr(reg.encodeIterator(arn, it))
	return out, nil
}

// wireRecord renders one stored record.
func (reg *Registry) wireRecord(arn, view string, n uint64, r *streamRecord) sw.Record {
	seq := formatSeq(n)
	h := sha256.Sum256([]byte(arn + "|" + seq))
	rec := sw.Record{
		AwsRegion:    wire.Ptr(reg.cfg.Region),
		EventID:      wire.Ptr(hex.EncodeToString(h[:16])),
		EventName:    eventNames[r.Event],
		EventSource:  wire.Ptr("aws:dynamodb"),
		EventVersion: wire.Ptr("1.1"),
		Dynamodb: &sw.StreamRecord{
			ApproximateCreationDateTime: wire.NewTime(r.Created.Truncate(time.Second)),
			Keys:                        r.Keys,
			NewImage:                    r.New,
			OldImage:                    r.Old,
			SequenceNumber:              wire.Ptr(seq),
			SizeBytes:                   wire.Ptr(r.sizeBytes()),
			StreamViewType:              view,
		},
	}
	if r.Service {
		rec.UserIdentity = &sw.Identity{PrincipalId: wire.Ptr("dynamodb.amazonaws.com"), Type: wire.Ptr("Service")}
	}
	return rec
}
