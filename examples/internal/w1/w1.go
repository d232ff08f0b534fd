// Package w1 is seed 000: document-processing workflow state in one table
// (projects, documents, workflows, per-step state and 3,000 segments).
package w1

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	. "github.com/kura-db/kura/examples/internal/kit"
)

const (
	projectID = "p-contracts"
	bigWF     = "wf-0001" // the 3,000-page document's workflow
	bigSegs   = 3000
)

// steps are the ten workflow steps of the seed, with their labels.
var steps = [][2]string{
	{"segment_prep", "セグメント準備"},
	{"bda_processor", "Bedrock Document Analysis"},
	{"format_parser", "フォーマットパース"},
	{"paddleocr_processor", "PaddleOCR処理"},
	{"transcribe", "音声変換"},
	{"webcrawler", "Webクローリング"},
	{"segment_builder", "セグメント構築"},
	{"segment_analyzer", "AI分析（Claude）"},
	{"graph_builder", "グラフ構築"},
	{"document_summarizer", "文書要約"},
}

// doc is one uploaded document (or crawled web page) and its workflow.
type doc struct {
	id, wf, file, mime, prefix string // prefix: DOC# or WEB#
	segments                   int
}

var docs = []doc{
	{"d-0001", bigWF, "annual-report-2025.pdf", "application/pdf", "DOC#", bigSegs},
	{"d-0002", "wf-0002", "contract-a.pdf", "application/pdf", "DOC#", 12},
	{"d-0003", "wf-0003", "meeting.mp3", "audio/mpeg", "DOC#", 4},
	{"d-0004", "wf-0004", "scan-001.png", "image/png", "DOC#", 1},
	{"w-0005", "wf-0005", "https://example.com/handbook", "text/html", "WEB#", 7},
}

// Run creates the table, loads the data and runs every W1 access pattern.
func Run(ctx context.Context, env *Env) error {
	table := env.Table("DocumentWorkflows")
	env.Step("W1 workflow state: table %s", table)
	td, err := env.CreateTable(ctx, tableInput(table))
	if err != nil {
		return err
	}
	if err := FirstErr(Want("GSIs", len(td.GlobalSecondaryIndexes), 2),
		Want("stream view", td.StreamSpecification != nil && td.StreamSpecification.StreamViewType == types.StreamViewTypeNewAndOldImages, true)); err != nil {
		return err
	}
	env.Logf("created PK/SK table, GSI1 (GSI1PK/GSI1SK), GSI2 (GSI2PK/GSI2SK), stream NEW_AND_OLD_IMAGES")
	stream := NewStreamReader(env.Streams, aws.ToString(td.LatestStreamArn))
	a := &app{env: env, db: env.DB, table: table}
	if err := a.load(ctx); err != nil {
		return err
	}
	if err := a.queries(ctx); err != nil {
		return err
	}
	if err := a.stepUpdates(ctx); err != nil {
		return err
	}
	return a.notifier(ctx, stream)
}

func tableInput(table string) *dynamodb.CreateTableInput {
	var defs []types.AttributeDefinition
	for _, a := range []string{"PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"} {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	keys := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: defs,
		KeySchema:            keys("PK", "SK"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("GSI1"), KeySchema: keys("GSI1PK", "GSI1SK"), Projection: all},
			{IndexName: aws.String("GSI2"), KeySchema: keys("GSI2PK", "GSI2SK"), Projection: all},
		},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	}
}

type app struct {
	env   *Env
	db    *dynamodb.Client
	table string
}

func key(pk, sk string) Item { return Item{"PK": S(pk), "SK": S(sk)} }

func stepsMap(status string) types.AttributeValue {
	m := Item{}
	for _, s := range steps {
		m[s[0]] = M(Item{"status": S(status), "label": S(s[1]), "started_at": Null(), "ended_at": Null(), "error": Null()})
	}
	return M(m)
}

// createWorkflow writes the workflow metadata, its step record and the
// project link in one TransactWriteItems, none of which may exist yet.
func (a *app) createWorkflow(ctx context.Context, d doc) error {
	now := "2025-11-05T09:00:00Z"
	meta := key(d.prefix+d.id, "WF#"+d.wf)
	meta["data"] = M(Item{
		"project_id": S(projectID), "file_uri": S("s3://idp-bucket/" + projectID + "/" + d.id), "file_name": S(d.file),
		"file_type": S(d.mime), "execution_arn": S("arn:aws:states:us-east-1:123456789012:execution:idp:" + d.wf),
		"status": S("pending"), "total_segments": N(d.segments), "created_at": S(now),
		"preprocess": M(Item{"ocr": S("pending"), "bda": S("skipped"), "transcribe": S("skipped"), "webcrawler": S("skipped")}),
	})
	step := key("WF#"+d.wf, "STEP")
	step["GSI1PK"], step["GSI1SK"] = S("STEP#ANALYSIS_STATUS"), S("pending")
	step["data"] = M(Item{"steps": stepsMap("pending")})
	link := key("PROJ#"+projectID, "WF#"+d.wf)
	link["data"] = M(Item{"file_name": S(d.file), "status": S("pending")})
	put := func(it Item) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(a.table), Item: it,
			ConditionExpression: aws.String("attribute_not_exists(PK)")}}
	}
	_, err := a.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{put(meta), put(step), put(link)}})
	return err
}

func (a *app) load(ctx context.Context) error {
	proj := key("PROJ#"+projectID, "META")
	proj["data"] = M(Item{"name": S("契約書レビュー"), "language": S("en"), "ocr_model": S("pp-ocrv5"),
		"document_prompt": S("Extract parties, dates and obligations.")})
	if _, err := a.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(a.table), Item: proj}); err != nil {
		return fmt.Errorf("PutItem project: %w", err)
	}
	for _, d := range docs {
		link := key("PROJ#"+projectID, "DOC#"+d.id)
		link["data"] = M(Item{"file_name": S(d.file), "uploaded_at": S("2025-11-05T08:59:00Z")})
		if _, err := a.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(a.table), Item: link}); err != nil {
			return fmt.Errorf("PutItem document link: %w", err)
		}
		if err := a.createWorkflow(ctx, d); err != nil {
			return fmt.Errorf("TransactWriteItems create workflow %s: %w", d.wf, err)
		}
	}
	a.env.Logf("project %s, %d document links, %d workflows (metadata+STEP+link per TransactWriteItems)", projectID, len(docs), len(docs))

	// Creating the same workflow again is cancelled as a whole.
	err := a.createWorkflow(ctx, docs[1])
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return fmt.Errorf("re-creating workflow %s: got %v, want TransactionCanceledException", docs[1].wf, err)
	}
	var reasons []string
	for _, r := range tce.CancellationReasons {
		reasons = append(reasons, aws.ToString(r.Code))
	}
	if got := strings.Join(reasons, ","); got != "ConditionalCheckFailed,ConditionalCheckFailed,ConditionalCheckFailed" {
		return fmt.Errorf("re-creating workflow: cancellation reasons %s", got)
	}
	a.env.Logf("re-creating an existing workflow: TransactionCanceledException [%s]", strings.Join(reasons, " "))

	var segs []Item
	for _, d := range docs {
		for i := 1; i <= d.segments; i++ {
			it := key("WF#"+d.wf, fmt.Sprintf("SEG#%04d", i))
			it["data"] = M(Item{
				"segment_index": N(i),
				"s3_key":        S(fmt.Sprintf("%s/%s/segments/%04d.json", projectID, d.wf, i)),
				"image_uri":     S(fmt.Sprintf("s3://idp-bucket/%s/%s/pages/%04d.png", projectID, d.wf, i)),
				"image_analysis": L(M(Item{"analysis_query": S("layout"), "content": S(fmt.Sprintf("page %d: 2 tables, 1 figure", i))}),
					M(Item{"analysis_query": S("entities"), "content": S("party, date")})),
			})
			segs = append(segs, it)
		}
	}
	start := time.Now()
	calls, err := BatchWrite(ctx, a.db, a.table, Puts(segs))
	if err != nil {
		return err
	}
	a.env.Logf("%d segments written with %d BatchWriteItem calls (25 per call) in %v", len(segs), calls, time.Since(start).Round(time.Millisecond))
	return nil
}

func (a *app) queries(ctx context.Context) error {
	q := func(pk, prefix string) ([]Item, int, error) {
		return QueryAll(ctx, a.db, &dynamodb.QueryInput{TableName: aws.String(a.table),
			KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
			ExpressionAttributeValues: Item{":pk": S(pk), ":p": S(prefix)}})
	}
	items, _, err := q("PROJ#"+projectID, "DOC#")
	if err != nil {
		return err
	}
	if err := FirstErr(Want("documents of the project", len(items), len(docs)), Want("first document", Str(items[0], "SK"), "DOC#d-0001")); err != nil {
		return err
	}
	a.env.Logf("documents of project: %d (begins_with SK DOC#)", len(items))

	items, _, err = q("PROJ#"+projectID, "WF#")
	if err != nil {
		return err
	}
	if err := Want("workflows of the project", len(items), len(docs)); err != nil {
		return err
	}
	for _, it := range items {
		if err := Want("workflow link status", Str(it, "data", "status"), "pending"); err != nil {
			return err
		}
	}
	a.env.Logf("workflows of project: %d (begins_with SK WF#), all pending", len(items))

	get := func(pk, sk string, proj string) (Item, error) {
		in := &dynamodb.GetItemInput{TableName: aws.String(a.table), Key: key(pk, sk), ConsistentRead: aws.Bool(true)}
		if proj != "" {
			in.ProjectionExpression = aws.String(proj)
			in.ExpressionAttributeNames = map[string]string{"#d": "data"}
		}
		out, err := a.db.GetItem(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("GetItem %s/%s: %w", pk, sk, err)
		}
		if out.Item == nil {
			return nil, fmt.Errorf("GetItem %s/%s: no item", pk, sk)
		}
		return out.Item, nil
	}
	meta, err := get("DOC#d-0001", "WF#"+bigWF, "")
	if err != nil {
		return err
	}
	if err := FirstErr(Want("total_segments", Num(meta, "data", "total_segments"), fmt.Sprint(bigSegs)),
		Want("workflow status", Str(meta, "data", "status"), "pending"),
		Want("preprocess.ocr", Str(meta, "data", "preprocess", "ocr"), "pending")); err != nil {
		return err
	}
	web, err := get("WEB#w-0005", "WF#wf-0005", "#d.file_name, #d.file_type")
	if err != nil {
		return err
	}
	if err := Want("web workflow projection", Names(Map(web, "data")), "file_name,file_type"); err != nil {
		return err
	}
	a.env.Logf("workflow metadata: GetItem DOC#d-0001/WF#%s total_segments=%s; WEB# metadata with a projection", bigWF, Num(meta, "data", "total_segments"))

	step, err := get("WF#"+bigWF, "STEP", "")
	if err != nil {
		return err
	}
	if err := Want("steps in STEP record", len(Map(step, "data", "steps")), len(steps)); err != nil {
		return err
	}
	a.env.Logf("step state: GetItem WF#%s/STEP has %d steps", bigWF, len(steps))

	in := &dynamodb.QueryInput{TableName: aws.String(a.table), Limit: aws.Int32(500),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: Item{":pk": S("WF#" + bigWF), ":p": S("SEG#")}}
	segs, pages, err := QueryAll(ctx, a.db, in)
	if err != nil {
		return err
	}
	if err := Want("segments", len(segs), bigSegs); err != nil {
		return err
	}
	for i, it := range segs {
		if want := fmt.Sprintf("SEG#%04d", i+1); Str(it, "SK") != want {
			return fmt.Errorf("segment %d: got %s, want %s (order)", i, Str(it, "SK"), want)
		}
	}
	a.env.Logf("all segments: %d in SEG#0001..SEG#%04d order over %d pages of Limit 500", len(segs), bigSegs, pages)

	seg, err := get("WF#"+bigWF, "SEG#1500", "#d.s3_key, #d.image_analysis[0]")
	if err != nil {
		return err
	}
	if err := FirstErr(Want("segment s3_key", Str(seg, "data", "s3_key"), projectID+"/"+bigWF+"/segments/1500.json"),
		Want("projected image_analysis entries", len(List(seg, "data", "image_analysis")), 1)); err != nil {
		return err
	}
	a.env.Logf("one segment: GetItem SEG#1500 -> %s", Str(seg, "data", "s3_key"))
	return nil
}

// running lists the workflows whose analysis is in progress (GSI1).
func (a *app) running(ctx context.Context) ([]string, error) {
	items, _, err := QueryAll(ctx, a.db, &dynamodb.QueryInput{TableName: aws.String(a.table), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("GSI1PK = :pk AND GSI1SK = :s"),
		ExpressionAttributeValues: Item{":pk": S("STEP#ANALYSIS_STATUS"), ":s": S("in_progress")}})
	var wfs []string
	for _, it := range items {
		wfs = append(wfs, strings.TrimPrefix(Str(it, "PK"), "WF#"))
	}
	return wfs, err
}

// setStep moves one step of a workflow to status, keeping GSI1SK in step.
func (a *app) setStep(ctx context.Context, wf, stepName, status, at string) error {
	tsField := "started_at"
	if status == "completed" || status == "failed" {
		tsField = "ended_at"
	}
	_, err := a.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(a.table), Key: key("WF#"+wf, "STEP"),
		UpdateExpression:          aws.String("SET #d.steps.#s.#st = :s, #d.steps.#s.#ts = :t, GSI1SK = :g"),
		ConditionExpression:       aws.String("attribute_exists(#d.steps.#s)"),
		ExpressionAttributeNames:  map[string]string{"#d": "data", "#s": stepName, "#st": "status", "#ts": tsField},
		ExpressionAttributeValues: Item{":s": S(status), ":t": S(at), ":g": S(analysisStatus(status))}})
	if err != nil {
		return fmt.Errorf("UpdateItem WF#%s/STEP %s=%s: %w", wf, stepName, status, err)
	}
	return nil
}

func analysisStatus(stepStatus string) string {
	if stepStatus == "completed" {
		return "in_progress" // the workflow goes on with its next step
	}
	return stepStatus
}

func (a *app) stepUpdates(ctx context.Context) error {
	for _, wf := range []string{bigWF, "wf-0002", "wf-0003"} {
		if err := a.setStep(ctx, wf, "segment_prep", "in_progress", "2025-11-05T09:01:00Z"); err != nil {
			return err
		}
	}
	run, err := a.running(ctx)
	if err != nil {
		return err
	}
	sort.Strings(run) // the order of equal GSI keys is not defined
	if err := Want("running analyses", strings.Join(run, ","), bigWF+",wf-0002,wf-0003"); err != nil {
		return err
	}
	a.env.Logf("running analyses (GSI1 STEP#ANALYSIS_STATUS / in_progress): %v", run)

	if err := a.setStep(ctx, "wf-0003", "segment_prep", "failed", "2025-11-05T09:02:00Z"); err != nil {
		return err
	}
	if err := a.setStep(ctx, bigWF, "segment_prep", "completed", "2025-11-05T09:03:00Z"); err != nil {
		return err
	}
	for i, s := range steps[1:] {
		if err := a.setStep(ctx, bigWF, s[0], "in_progress", fmt.Sprintf("2025-11-05T09:%02d:00Z", 4+2*i)); err != nil {
			return err
		}
		if err := a.setStep(ctx, bigWF, s[0], "completed", fmt.Sprintf("2025-11-05T09:%02d:30Z", 4+2*i)); err != nil {
			return err
		}
	}
	// The last step done: the analysis is completed.
	if _, err := a.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(a.table), Key: key("WF#"+bigWF, "STEP"),
		UpdateExpression: aws.String("SET GSI1SK = :c"), ExpressionAttributeValues: Item{":c": S("completed")}}); err != nil {
		return err
	}
	if _, err := a.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(a.table), Key: key("DOC#d-0001", "WF#"+bigWF),
		UpdateExpression:          aws.String("SET #d.#st = :c, #d.preprocess.ocr = :c"),
		ConditionExpression:       aws.String("#d.#st = :p"),
		ExpressionAttributeNames:  map[string]string{"#d": "data", "#st": "status"},
		ExpressionAttributeValues: Item{":c": S("completed"), ":p": S("pending")}}); err != nil {
		return fmt.Errorf("UpdateItem workflow status: %w", err)
	}
	run, err = a.running(ctx)
	if err != nil {
		return err
	}
	if err := Want("running analyses after updates", strings.Join(run, ","), "wf-0002"); err != nil {
		return err
	}
	out, err := a.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(a.table), Key: key("WF#"+bigWF, "STEP"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return err
	}
	for _, s := range steps {
		if err := FirstErr(Want("step "+s[0], Str(out.Item, "data", "steps", s[0], "status"), "completed"),
			Check(Str(out.Item, "data", "steps", s[0], "ended_at") != "", "step %s has no ended_at", s[0])); err != nil {
			return err
		}
	}
	a.env.Logf("nested step updates (SET data.steps.<step>.status): %s completed all %d steps, wf-0003 failed; running now %v", bigWF, len(steps), run)
	return nil
}

// notifier is the WebSocket-notifier stream consumer: it reads every change
// with its old and new image and reports step status transitions.
func (a *app) notifier(ctx context.Context, stream *StreamReader) error {
	recs, err := stream.Poll(ctx)
	if err != nil {
		return err
	}
	var inserts, modifies, transitions int
	var first string
	for _, r := range recs {
		switch r.EventName {
		case st.OperationTypeInsert:
			inserts++
		case st.OperationTypeModify:
			modifies++
			d := r.Dynamodb
			if d.OldImage == nil || d.NewImage == nil {
				return fmt.Errorf("MODIFY record without both images: %+v", d.Keys)
			}
			if SStr(d.Keys, "SK") != "STEP" {
				continue
			}
			oldSteps, newSteps := SMap(SMap(d.OldImage, "data"), "steps"), SMap(SMap(d.NewImage, "data"), "steps")
			for name := range newSteps {
				o, n := SStr(SMap(oldSteps, name), "status"), SStr(SMap(newSteps, name), "status")
				if o != n {
					transitions++
					if first == "" {
						first = fmt.Sprintf("%s %s: %s -> %s", SStr(d.Keys, "PK"), name, o, n)
					}
				}
			}
		}
	}
	wantInserts := 1 + 3*len(docs)
	for _, d := range docs {
		wantInserts += 1 + d.segments
	}
	if err := FirstErr(Want("stream INSERT records", inserts, wantInserts),
		Want("stream MODIFY records", modifies, 3+2+2*(len(steps)-1)+2),
		Want("step transitions seen in old/new images", transitions, 3+2+2*(len(steps)-1)),
		Want("first transition", first, "WF#"+bigWF+" segment_prep: pending -> in_progress")); err != nil {
		return err
	}
	a.env.Logf("stream consumer: %d records from %d shard(s) in %d GetRecords calls: %d INSERT, %d MODIFY, %d step transitions (first: %s)",
		len(recs), stream.Shards(), stream.Calls, inserts, modifies, transitions, first)
	return nil
}
