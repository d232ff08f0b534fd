package imports

import (
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/jobs"
	"github.com/kura-db/kura/internal/wire"
)

// chunkItems is how many items one storage transaction of an import
// writes (as many as a backup's or a restore's).
const chunkItems = 256

// maxItemSize is DynamoDB's item size limit (400 KB).
const maxItemSize = 400 * 1024

// Item validation failures, as DynamoDB reports them (its developer
// guide, "Import format quotas and validation": FAILED with this code and
// text, the table kept with the items that could be imported).
const (
	ItemValidation    = "ItemValidationError"
	itemValidationMsg = "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details."
)

// run reads rec's objects into t and records how it ended:
// COMPLETED with t ACTIVE; FAILED with ItemValidationError and t ACTIVE
// when some records could not be imported; FAILED with t deleted when the
// objects could not be read.
func (m *Imports) run(rec *Record, t Target) {
	d := &rec.Desc
	ctx, cancel := jobs.Context(m.opts.Closing)
	defer cancel()
	err := m.read(ctx, rec, t)
	if errors.Is(err, jobs.ErrStopped) || ctx.Err() != nil {
		return
	}
	d.EndTime = wire.NewTime(m.opts.Now())
	switch {
	case err != nil:
		d.ImportStatus = Failed
		code, msg := jobs.Failure(err)
		d.FailureCode, d.FailureMessage = &code, &msg
		d.ProcessedSizeBytes = wire.Ptr[int64](0) // as DynamoDB's S3NoSuchBucket example shows it
		t.Drop()
	case wire.Deref(d.ErrorCount) > 0:
		d.ImportStatus = Failed
		d.FailureCode, d.FailureMessage = wire.Ptr(ItemValidation), wire.Ptr(itemValidationMsg)
		t.Finish()
	default:
		d.ImportStatus = Completed
		t.Finish()
	}
	_ = m.log.Save(rec) // on error the import stays IN_PROGRESS and runs again at the next start
}

// errBadRecord is a record of an object that cannot be imported: counted,
// and, as DynamoDB does, the rest of its object is skipped (measured
// against DynamoDB: one error per object however many bad records follow;
// see scylladb's test/alternator/test_import.py, observation 12).
var errBadRecord = errors.New("a record that cannot be imported")

// importCounts are an import's counters: ProcessedItemCount is always
// ImportedItemCount + ErrorCount; ProcessedSizeBytes counts the source's
// bytes uncompressed.
type importCounts struct {
	processed, imported, failed, size int64
}

// read reads every object under the source's prefix into t,
// counting what it processed, imported and refused in rec (set when it
// ends, as DynamoDB's counters are).
func (m *Imports) read(ctx context.Context, rec *Record, t Target) error {
	d := &rec.Desc
	src := d.S3BucketSource
	bucket := wire.Deref(src.S3Bucket)
	objects, err := m.opts.Objects.List(ctx, bucket, wire.Deref(src.S3KeyPrefix))
	if err != nil {
		return err
	}
	var n importCounts
	chunk := make([]attr.Item, 0, chunkItems)
	flush := func() error {
		err := t.Write(lastPerKey(t, chunk))
		chunk = chunk[:0]
		return err
	}
	add := func(it attr.Item, err error) error {
		select {
		case <-m.opts.Closing:
			return jobs.ErrStopped
		default:
		}
		n.processed++
		if err == nil {
			err = t.Check(it)
		}
		if err != nil {
			n.failed++
			return errBadRecord
		}
		n.imported++
		if chunk = append(chunk, it); len(chunk) == chunkItems {
			return flush()
		}
		return nil
	}
	for _, obj := range objects {
		size, err := m.readObject(ctx, d, bucket, obj.Key, add)
		n.size += size
		if err != nil {
			return fmt.Errorf("%s: %w", obj.Key, err)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	d.ProcessedItemCount, d.ImportedItemCount, d.ErrorCount, d.ProcessedSizeBytes = &n.processed, &n.imported, &n.failed, &n.size
	return nil
}

// lastPerKey keeps, of items with the same key, the last one (a later line
// of the source replaces an earlier one, as a later PutItem would).
func lastPerKey(t Target, items []attr.Item) []attr.Item {
	seen := make(map[string]int, len(items))
	out := items[:0]
	for _, it := range items {
		k := t.Key(it)
		if i, dup := seen[k]; dup {
			out[i] = it
			continue
		}
		seen[k] = len(out)
		out = append(out, it)
	}
	return out
}

// readObject hands add each record of one object (or the error that made
// it unreadable), decompressed as the import says and parsed as its
// format, and returns the object's size uncompressed. A record add refuses
// (errBadRecord), or content that does not decompress, ends the object
// (counted as one bad record) but not the import; an error reading the
// object from the store ends the import.
func (m *Imports) readObject(ctx context.Context, d *wire.ImportTableDescription, bucket, key string, add func(attr.Item, error) error) (int64, error) {
	f, err := m.opts.Objects.Open(ctx, bucket, key)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	src := &sourceReader{r: f}
	content := &jobs.CountingReader{R: src}
	var fatal error // add's own failure (a write, a stop): it ends the import
	add = keepFatal(add, &fatal)
	err = decompress(d.InputCompressionType, src, func(r io.Reader) error {
		content.R = r
		var err error
		if d.InputFormat == "CSV" {
			err = readCSV(d.InputFormatOptions, d.TableCreationParameters, content, add)
		} else {
			err = readJSONRecords(content, add)
		}
		if errors.Is(err, errBadRecord) {
			_, _ = io.Copy(io.Discard, content) // the skipped rest still counts as processed
		}
		return err
	})
	switch {
	case src.err != nil:
		return content.N, src.err // the store's error, not the content's
	case fatal != nil:
		return content.N, fatal
	case err == nil || errors.Is(err, errBadRecord):
		return content.N, nil
	case ctx.Err() != nil:
		return content.N, ctx.Err()
	}
	// The content does not decompress: one bad record.
	if err := add(nil, err); !errors.Is(err, errBadRecord) {
		return content.N, err
	}
	_, _ = io.Copy(io.Discard, content)
	return content.N, src.err
}

// keepFatal is add, noting in fatal its errors other than errBadRecord.
func keepFatal(add func(attr.Item, error) error, fatal *error) func(attr.Item, error) error {
	return func(it attr.Item, err error) error {
		err = add(it, err)
		if err != nil && !errors.Is(err, errBadRecord) {
			*fatal = err
		}
		return err
	}
}

// decompress hands read the object's content as the compression type
// says.
func decompress(compression string, r io.Reader, read func(io.Reader) error) error {
	switch compression {
	case "GZIP":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		defer zr.Close()
		return read(zr)
	case "ZSTD":
		zr, err := zstd.NewReader(r)
		if err != nil {
			return err
		}
		defer zr.Close()
		return read(zr)
	}
	return read(r)
}

// sourceReader keeps the error of reading the object itself, so that it
// is told apart from content that does not decompress or parse.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// maxImportRecord bounds one DYNAMODB_JSON record: an item of 400 KB in
// DynamoDB JSON, with its type tags and escapes, stays well under it.
const maxImportRecord = 4*maxItemSize + 64<<10

// readJSONRecords reads DYNAMODB_JSON: {"Item": {...}} records, one after
// another, with or without newlines (or any JSON whitespace) between them
// (DynamoDB reads both: the moto test suite's
// test_import_table_single_file_with_multiple_items, verified against
// AWS). A record that is not JSON, or not an object with an "Item", is a
// bad record; an object ends at its first.
func readJSONRecords(r io.Reader, add func(attr.Item, error) error) error {
	lim := &recordLimit{r: r}
	dec := json.NewDecoder(lim)
	for {
		lim.left = maxImportRecord
		var rec struct {
			Item json.RawMessage
		}
		var it attr.Item
		err := dec.Decode(&rec)
		if err == io.EOF {
			return nil
		}
		if err == nil && rec.Item == nil {
			err = errors.New(`no "Item"`)
		}
		if err == nil {
			it, err = attr.DecodeItemJSON(rec.Item)
		}
		if err := add(it, err); err != nil {
			return err
		}
	}
}

// recordLimit fails a read once a record has taken more than left bytes
// (the decoder's read-ahead included), so that a record without an end is
// not buffered whole.
type recordLimit struct {
	r    io.Reader
	left int
}

var errRecordTooLarge = errors.New("record over the size limit")

func (l *recordLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errRecordTooLarge
	}
	n, err := l.r.Read(p[:min(len(p), l.left)])
	l.left -= n
	return n, err
}

// readCSV reads CSV: the header line (or HeaderList) names the columns;
// key attributes of the table and its indexes take the type their
// definition gives (N as a number, B as base64), every other column is a
// string.
func readCSV(opts *wire.InputFormatOptions, p *wire.TableCreationParameters, r io.Reader, add func(attr.Item, error) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var header []string
	if opts != nil && opts.Csv != nil {
		if d := wire.Deref(opts.Csv.Delimiter); d != "" {
			cr.Comma = []rune(d)[0]
		}
		header = opts.Csv.HeaderList
	}
	types := map[string]string{}
	for _, a := range p.AttributeDefinitions {
		types[wire.Deref(a.AttributeName)] = a.AttributeType
	}
	for {
		row, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				if err := add(nil, err); err != nil {
					return err
				}
				continue
			}
			return err
		}
		if header == nil {
			header = row
			continue
		}
		if err := add(csvItem(header, row, types)); err != nil {
			return err
		}
	}
}

// csvItem is one CSV row as an item.
func csvItem(header, row []string, types map[string]string) (attr.Item, error) {
	if len(row) != len(header) {
		return nil, fmt.Errorf("%d columns, the header has %d", len(row), len(header))
	}
	it := attr.Item{}
	for i, name := range header {
		switch types[name] {
		case "N":
			n, err := attr.CanonicalNumber(row[i])
			if err != nil {
				return nil, err
			}
			it[name] = attr.Value{T: attr.N, Str: n}
		case "B":
			b, err := base64.StdEncoding.DecodeString(row[i])
			if err != nil {
				return nil, err
			}
			it[name] = attr.Value{T: attr.B, Bin: b}
		default:
			it[name] = attr.Value{T: attr.S, Str: row[i]}
		}
	}
	return it, nil
}
