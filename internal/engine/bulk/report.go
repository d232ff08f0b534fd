package bulk

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/kura-db/kura/internal/wire"
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/engine/jobs"
)

// The report of a bulk operation: the records it could not write, in the
// output bucket, under
//
//	<S3KeyPrefix>/AWSDynamoDB/<operation id>/
//	    manifest-summary.json                 what ran, the counts, the files
//	    ERROR/part-00000.json ...             records that could not be read or written
//	    CONDITION_CHECK_FAILURE/part-00000.json ...  records whose condition was false
//
// each part a JSON Lines object, one failed record a line. Only the
// OutputTypes the operation asked for are written. Layout: Kura's, after
// the developer guide's BulkPutItems.Output (report types, a manifest
// file, data files under the output prefix) and the AWSDynamoDB/<id>/
// folder an export writes; the guide's own file names were not at hand.

// Output types.
const (
	outputError                 = "ERROR"
	outputConditionCheckFailure = "CONDITION_CHECK_FAILURE"
)

// report gathers a run's report lines until the next checkpoint
// writes them as a part.
type report struct {
	want    map[string]bool
	pending map[string][]byte
}

func newReport(rec *Record) *report {
	rep := &report{want: map[string]bool{}, pending: map[string][]byte{}}
	for _, t := range rec.Desc.OutputS3Configuration.OutputType {
		rep.want[t] = true
	}
	return rep
}

// add keeps one line of the report of type typ, when it was asked for.
func (rep *report) add(typ string, line []byte) {
	if rep.want[typ] {
		rep.pending[typ] = append(append(rep.pending[typ], line...), '\n')
	}
}

// bulkErrorLine is one ERROR line: where the record was, why it failed,
// and the record as read.
func bulkErrorLine(key string, line int64, code, msg string, raw []byte) []byte {
	v := map[string]any{"ObjectKey": key, "RecordNumber": line, "ErrorCode": code, "ErrorMessage": msg}
	if raw != nil {
		v["Record"] = string(raw)
	}
	b, _ := json.Marshal(v)
	return b
}

// bulkConditionLine is one CONDITION_CHECK_FAILURE line: the item the
// record tried to write and, when there was one, the item in the table.
func bulkConditionLine(key string, line int64, item, existing attr.Item) []byte {
	v := map[string]any{"ObjectKey": key, "RecordNumber": line, "Item": item}
	if existing != nil {
		v["ExistingItem"] = existing
	}
	b, _ := json.Marshal(v)
	return b
}

// bulkReportDir is the folder of rec's report in the output bucket.
func bulkReportDir(rec *Record) string {
	dir := "AWSDynamoDB/" + operationID(rec.JobARN())
	if p := strings.TrimSuffix(wire.Deref(rec.Desc.OutputS3Configuration.S3KeyPrefix), "/"); p != "" {
		dir = p + "/" + dir
	}
	return dir
}

// bulkPartKey is the key of part n of the report of type typ.
func bulkPartKey(rec *Record, typ string, n int) string {
	return fmt.Sprintf("%s/%s/part-%05d.json", bulkReportDir(rec), typ, n)
}

// flushReport writes the pending lines of each type as its next part.
// Part numbers follow the resume point, so a part written again after a
// stop replaces the one written before.
func (o *Operations) flushReport(ctx context.Context, rec *Record, rep *report) error {
	for _, typ := range []string{outputError, outputConditionCheckFailure} {
		lines := rep.pending[typ]
		if len(lines) == 0 {
			continue
		}
		if rec.Parts == nil {
			rec.Parts = map[string]int{}
		}
		if err := jobs.PutObject(ctx, o.opts.Objects, wire.Deref(rec.Desc.OutputS3Configuration.S3Bucket), bulkPartKey(rec, typ, rec.Parts[typ]), lines); err != nil {
			return err
		}
		rec.Parts[typ]++
		delete(rep.pending, typ)
	}
	return nil
}

// bulkManifest is manifest-summary.json.
type bulkManifest struct {
	BulkOperationArn   string   `json:"bulkOperationArn"`
	TableName          string   `json:"tableName"`
	InputBucket        string   `json:"inputS3Bucket"`
	InputPrefix        string   `json:"inputS3Prefix,omitempty"`
	ProcessedItemCount int64    `json:"processedItemCount"`
	FailedItemCount    int64    `json:"failedItemCount"`
	OutputTypes        []string `json:"outputTypes"`
	Files              []string `json:"files"`
}

// finishReport writes the last lines and the manifest.
func (o *Operations) finishReport(ctx context.Context, rec *Record, rep *report) error {
	if err := o.flushReport(ctx, rec, rep); err != nil {
		return err
	}
	d := &rec.Desc
	m := bulkManifest{BulkOperationArn: rec.JobARN(), TableName: wire.Deref(d.TableDetails[0].TableName),
		InputBucket: wire.Deref(d.InputS3Configuration.S3Bucket), InputPrefix: wire.Deref(d.InputS3Configuration.S3KeyPrefix),
		ProcessedItemCount: wire.Deref(d.ProcessedItemCount), FailedItemCount: wire.Deref(d.FailedItemCount),
		OutputTypes: slices.Clone(d.OutputS3Configuration.OutputType), Files: []string{}}
	for _, typ := range []string{outputError, outputConditionCheckFailure} {
		for n := range rec.Parts[typ] {
			m.Files = append(m.Files, bulkPartKey(rec, typ, n))
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return jobs.PutObject(ctx, o.opts.Objects, wire.Deref(d.OutputS3Configuration.S3Bucket), bulkReportDir(rec)+"/manifest-summary.json", b)
}
