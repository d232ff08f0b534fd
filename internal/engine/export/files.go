package export

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/engine/snapshot"
	"github.com/kura-db/kura/internal/objstore"
	"github.com/kura-db/kura/internal/wire"
)

// The files of an export, in DynamoDB's layout (its developer guide,
// "DynamoDB table export output format"), under
// <S3Prefix>/AWSDynamoDB/<ExportId>/:
//
//	_started                    empty, written first
//	data/<name>.json.gz         the items, one {"Item":{...}} per line, gzip
//	manifest-files.json         one line per data file: itemCount,
//	                            md5Checksum, etag, dataFileS3Key
//	manifest-files.checksum     hex MD5 of manifest-files.json
//	manifest-summary.json       the export's summary (exportSummary)
//	manifest-summary.checksum   hex MD5 of manifest-summary.json
//
// DynamoDB writes at least one data file per partition; Kura's table is
// one keyspace and gets one.

// write writes _started, the data file and manifest-files.json, and
// returns the items exported and their billed size.
func (x *Exports) write(ctx context.Context, rec *Record, snap *snapshot.Reader, filter Filter) (count, billed int64, err error) {
	d := &rec.Desc
	objects, bucket, prefix := x.opts.Objects, wire.Deref(d.S3Bucket), filesPrefix(d)
	if err := jobs.PutObject(ctx, objects, bucket, prefix+"_started", nil); err != nil {
		return 0, 0, err
	}
	if rec.Filter != nil && filter == nil {
		var found bool
		if filter, found, err = x.opts.ParseFilter(rec.TableID, rec.Filter); err != nil {
			return 0, 0, err
		} else if !found {
			return 0, 0, errors.New("the table was deleted before its export could run")
		}
	}
	key := prefix + "data/" + dataFileName(d) + ".json.gz"
	f, err := objects.Create(ctx, bucket, key)
	if err != nil {
		return 0, 0, err
	}
	sum := md5.New()
	zw := gzip.NewWriter(io.MultiWriter(f, sum))
	bw := bufio.NewWriterSize(zw, 64<<10)
	line := make([]byte, 0, 1024)
	done, err := snap.ItemsAt(rec.TableID, d.ExportTime.Time, func(_, stored []byte) (bool, error) {
		select {
		case <-x.opts.Closing:
			return false, jobs.ErrStopped
		default:
		}
		it, err := attr.DecodeItem(stored)
		if err != nil {
			return false, err
		}
		size := attr.ItemSize(it)
		if filter != nil {
			var keep bool
			if it, keep, err = filter.Keep(it); err != nil || !keep {
				return err == nil, err
			}
		}
		line = append(attr.AppendItemJSON(append(line[:0], `{"Item":`...), it), "}\n"...)
		count, billed = count+1, billed+int64(size)
		_, err = bw.Write(line)
		return err == nil, err
	})
	if err == nil && !done {
		err = jobs.ErrStopped
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Close()
	} else {
		f.Abort()
	}
	if err != nil {
		return 0, 0, err
	}
	entry, _ := json.Marshal(map[string]any{ // encoding/json sorts the keys; DynamoDB's order differs, JSON readers do not mind
		"itemCount": count, "md5Checksum": base64.StdEncoding.EncodeToString(sum.Sum(nil)),
		"etag": f.ETag(), "dataFileS3Key": key, // S3's ETag: the hex MD5 of a single-part object, not of a multipart one
	})
	return count, billed, putWithChecksum(ctx, objects, bucket, prefix+"manifest-files", append(entry, '\n'))
}

// exportSummary is manifest-summary.json.
type exportSummary struct {
	Version            string  `json:"version"`
	ExportArn          string  `json:"exportArn"`
	StartTime          string  `json:"startTime"`
	EndTime            string  `json:"endTime"`
	TableArn           string  `json:"tableArn"`
	TableID            string  `json:"tableId"`
	ExportTime         string  `json:"exportTime"`
	S3Bucket           string  `json:"s3Bucket"`
	S3Prefix           *string `json:"s3Prefix"`
	S3SseAlgorithm     *string `json:"s3SseAlgorithm"`
	S3SseKmsKeyID      *string `json:"s3SseKmsKeyId"`
	ManifestFilesS3Key string  `json:"manifestFilesS3Key"`
	BilledSizeBytes    int64   `json:"billedSizeBytes"`
	ItemCount          int64   `json:"itemCount"`
	OutputFormat       string  `json:"outputFormat"`
	ExportType         string  `json:"exportType"`
}

// writeSummary writes manifest-summary.json and its checksum.
func (x *Exports) writeSummary(ctx context.Context, rec *Record) error {
	d := &rec.Desc
	ms := func(t *wire.Time) string { return t.Time.UTC().Format("2006-01-02T15:04:05.000Z") }
	var sse *string
	if d.S3SseAlgorithm != "" {
		sse = &d.S3SseAlgorithm
	}
	b, err := json.Marshal(exportSummary{
		Version: "2020-06-30", ExportArn: wire.Deref(d.ExportArn), StartTime: ms(d.StartTime), EndTime: ms(d.EndTime),
		TableArn: wire.Deref(d.TableArn), TableID: wire.Deref(d.TableId), ExportTime: ms(d.ExportTime),
		S3Bucket: wire.Deref(d.S3Bucket), S3Prefix: d.S3Prefix, S3SseAlgorithm: sse, S3SseKmsKeyID: d.S3SseKmsKeyId,
		ManifestFilesS3Key: filesPrefix(d) + "manifest-files.json",
		BilledSizeBytes:    wire.Deref(d.BilledSizeBytes), ItemCount: wire.Deref(d.ItemCount),
		OutputFormat: d.ExportFormat, ExportType: d.ExportType,
	})
	if err != nil {
		return err
	}
	return putWithChecksum(ctx, x.opts.Objects, wire.Deref(d.S3Bucket), filesPrefix(d)+"manifest-summary", b)
}

// putWithChecksum writes name.json and name.checksum (its hex MD5).
func putWithChecksum(ctx context.Context, objects objstore.Store, bucket, name string, body []byte) error {
	if err := jobs.PutObject(ctx, objects, bucket, name+".json", body); err != nil {
		return err
	}
	sum := md5.Sum(body)
	return jobs.PutObject(ctx, objects, bucket, name+".checksum", []byte(hex.EncodeToString(sum[:])))
}

// dataFileName is the name of an export's data file: 26 lowercase
// letters and digits, as DynamoDB names them, drawn from the export's ARN
// (itself random) rather than afresh, so that an export a stop interrupted
// writes the same file again when it runs again instead of leaving a
// second one beside it under data/.
func dataFileName(d *wire.ExportDescription) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	sum := sha256.Sum256([]byte("data file of " + wire.Deref(d.ExportArn)))
	var b [26]byte
	for i := range b {
		b[i] = chars[int(sum[i])%len(chars)]
	}
	return string(b[:])
}
