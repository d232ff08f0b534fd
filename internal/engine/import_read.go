package engine

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/wire"
)

// errStopped is background work a Close interrupted (it runs again at the
// next start).
var errStopped = errors.New("stopped by Close")

// importChunk is how many items one storage transaction of an import
// writes.
const importChunk = backupChunk

// runImport reads rec's objects into t and records how it ended: COMPLETED
// with t ACTIVE, or FAILED with t deleted.
func (e *Engine) runImport(rec *importRecord, t *Table) {
	d := &rec.Desc
	ctx, cancel := e.jobContext()
	defer cancel()
	err := e.readImport(ctx, rec, t)
	if errors.Is(err, errStopped) || ctx.Err() != nil {
		return
	}
	d.EndTime = wire.NewTime(e.clock.Now())
	if err != nil {
		d.ImportStatus = importFailed
		code, msg := jobFailure(err)
		d.FailureCode, d.FailureMessage = &code, &msg
		e.dropImportTable(t)
	} else {
		d.ImportStatus = importCompleted
		e.finishRestore(t)
	}
	_ = e.imp.save(e, rec) // on error the import stays IN_PROGRESS and runs again at the next start
}

// dropImportTable deletes a failed import's table, still CREATING (which
// DeleteTable refuses).
func (e *Engine) dropImportTable(t *Table) {
	e.ddl.Lock()
	defer e.ddl.Unlock()
	if cur, ok := e.lookupTable(t.Name); ok && cur.ID == t.ID {
		_, _ = e.dropTable(cur) // on failure the table stays CREATING; the import is FAILED either way
	}
}

// readImport reads every object under the source's prefix into t,
// counting what it processed, imported and refused in rec.
func (e *Engine) readImport(ctx context.Context, rec *importRecord, t *Table) error {
	d := &rec.Desc
	src := d.S3BucketSource
	bucket := cpDeref(src.S3Bucket)
	objects, err := e.cfg.Objects.List(ctx, bucket, cpDeref(src.S3KeyPrefix))
	if err != nil {
		return err
	}
	var processed, imported, failed, size int64
	chunk := make([]attr.Item, 0, importChunk)
	flush := func() error {
		err := e.restoreChunk(t, lastPerKey(t, chunk))
		chunk = chunk[:0]
		return err
	}
	add := func(it attr.Item, err error) error {
		select {
		case <-e.closing:
			return errStopped
		default:
		}
		processed++
		if err == nil {
			err = checkImportItem(t, it)
		}
		if err != nil {
			failed++
			return nil
		}
		imported++
		if chunk = append(chunk, it); len(chunk) == importChunk {
			return flush()
		}
		return nil
	}
	for _, obj := range objects {
		size += obj.Size
		if err := e.readObject(ctx, d, bucket, obj.Key, add); err != nil {
			return fmt.Errorf("%s: %w", obj.Key, err)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	d.ProcessedItemCount, d.ImportedItemCount, d.ErrorCount, d.ProcessedSizeBytes = &processed, &imported, &failed, &size
	return nil
}

// checkImportItem refuses an item the table would not take from PutItem:
// invalid values, a missing or mistyped key, index keys of the wrong type,
// over 400 KB.
func checkImportItem(t *Table, it attr.Item) error {
	if err := attr.ValidateItem(it); err != nil {
		return err
	}
	if _, err := t.validateItemKey(it); err != nil {
		return err
	}
	if err := t.checkIndexKeys(it, false); err != nil {
		return err
	}
	if attr.ItemSize(it) > maxItemSize {
		return errors.New("item over the size limit")
	}
	return nil
}

// lastPerKey keeps, of items with the same key, the last one (a later line
// of the source replaces an earlier one, as a later PutItem would).
func lastPerKey(t *Table, items []attr.Item) []attr.Item {
	seen := make(map[string]int, len(items))
	out := items[:0]
	for _, it := range items {
		k := string(t.storageKey(t.primaryKeyOf(it)))
		if i, dup := seen[k]; dup {
			out[i] = it
			continue
		}
		seen[k] = len(out)
		out = append(out, it)
	}
	return out
}

// readObject hands add each item of one object (or the error that made a
// line unreadable): decompressed as the import says, parsed as its format.
func (e *Engine) readObject(ctx context.Context, d *wire.ImportTableDescription, bucket, key string, add func(attr.Item, error) error) error {
	f, err := e.cfg.Objects.Open(ctx, bucket, key)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	switch d.InputCompressionType {
	case "GZIP":
		zr, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		defer zr.Close()
		r = zr
	case "ZSTD":
		zr, err := zstd.NewReader(f)
		if err != nil {
			return err
		}
		defer zr.Close()
		r = zr
	}
	if d.InputFormat == "CSV" {
		return readCSV(d.InputFormatOptions, d.TableCreationParameters, r, add)
	}
	return readJSONLines(r, add)
}

// readJSONLines reads DYNAMODB_JSON: one {"Item": {...}} per line (blank
// lines skipped).
func readJSONLines(r io.Reader, add func(attr.Item, error) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 2*maxItemSize+1024)
	for sc.Scan() {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var rec struct {
			Item json.RawMessage
		}
		var it attr.Item
		err := json.Unmarshal(line, &rec)
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
	return sc.Err()
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
		if d := cpDeref(opts.Csv.Delimiter); d != "" {
			cr.Comma = []rune(d)[0]
		}
		header = opts.Csv.HeaderList
	}
	types := map[string]string{}
	for _, a := range p.AttributeDefinitions {
		types[cpDeref(a.AttributeName)] = a.AttributeType
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
