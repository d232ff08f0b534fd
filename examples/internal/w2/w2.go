// Package w2 is seed 002: a RAG chunk store with vector search, in the
// three layouts the article compares (B: one item per chunk, C: parent and
// chunk children, small-to-big: document, parent text, embedded children).
package w2

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	. "github.com/kura-db/kura/examples/internal/kit"
)

// TopK is the article's --top-k.
const TopK = 5

// Run loads the narrations in every layout and searches them.
func Run(ctx context.Context, env *Env) error {
	env.Step("W2 RAG chunks with vector search (query %q, %d-rune chunks, overlap %d)", Query, ChunkLen, Overlap)
	q := Embedding(Query)
	for _, layout := range []func(context.Context, *Env, []float32) error{layoutB, layoutC, smallToBig} {
		if err := layout(ctx, env, q); err != nil {
			return err
		}
	}
	return nil
}

// vectorTable is the article's create-table: an on-demand table keyed
// hash/range (both S) with one 1024-dimension COSINE vector index.
func vectorTable(name, hash, rng, vecAttr string, proj *types.Projection) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(hash), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(rng), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange},
		},
		VectorIndexes: []types.VectorIndex{{
			IndexName:        aws.String("NarrationChunkIndex"),
			VectorAttribute:  &types.VectorAttributeDefinition{AttributeName: aws.String(vecAttr)},
			Projection:       proj,
			Dimensions:       aws.Int64(Dims),
			DistanceFunction: types.VectorDistanceFunctionCosine,
		}},
	}
}

// hit is one search result.
type hit struct {
	item  Item
	score float64
}

// search runs SearchVectors and checks what every search must satisfy:
// scores ascending, in [0, 2], equal to the COSINE score computed here
// from the stored vector (text), and the projected attributes only.
func search(ctx context.Context, env *Env, table string, q []float32, topK int32, textOf func(Item) []float32, attrs string) ([]hit, *types.VectorCapacity, error) {
	out, err := env.DB.SearchVectors(ctx, &dynamodb.SearchVectorsInput{
		TableName: aws.String(table), IndexName: aws.String("NarrationChunkIndex"),
		SearchVector: VectorList(q), TopK: aws.Int32(topK), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		return nil, nil, fmt.Errorf("SearchVectors %s: %w", table, err)
	}
	var hits []hit
	for i, r := range out.SearchResults {
		if i > 0 && r.Score < out.SearchResults[i-1].Score {
			return nil, nil, fmt.Errorf("%s: result %d scores %f after %f (not ascending)", table, i+1, r.Score, out.SearchResults[i-1].Score)
		}
		if r.Score < 0 || r.Score > 2 {
			return nil, nil, fmt.Errorf("%s: COSINE score %f outside [0, 2]", table, r.Score)
		}
		if want := Cosine(q, textOf(r.Item)); math.Abs(r.Score-want) > 1e-4 {
			return nil, nil, fmt.Errorf("%s: result %d %v scores %f, want %f", table, i+1, r.Item, r.Score, want)
		}
		if got := Names(r.Item); got != attrs {
			return nil, nil, fmt.Errorf("%s: result attributes %s, want %s", table, got, attrs)
		}
		hits = append(hits, hit{r.Item, r.Score})
	}
	return hits, out.ConsumedCapacity, nil
}

// checkDetectives asserts the article's outcome: the top hits all come from
// the two detective stories, and both of them are there.
func checkDetectives(layout string, hits []hit, docOf func(Item) string) error {
	if len(hits) != TopK {
		return fmt.Errorf("%s: %d results, want %d", layout, len(hits), TopK)
	}
	seen := map[string]bool{}
	for i, h := range hits {
		d := docOf(h.item)
		if strings.Contains(strings.ToLower(d), "onepiece") {
			return fmt.Errorf("%s: ONE PIECE ranked #%d (%v)", layout, i+1, h.item)
		}
		seen[d] = true
	}
	return Check(len(seen) == 2, "%s: top %d come from %v, want both detective stories", layout, TopK, seen)
}

func narration(key string) Narration {
	for _, n := range Narrations {
		if n.Key == key || n.Short == key {
			return n
		}
	}
	return Narration{}
}

// layoutB: one item per chunk (方式B 縦持ち), the title repeated in each.
func layoutB(ctx context.Context, env *Env, q []float32) error {
	table := env.Table("NarrationChunks")
	if _, err := env.CreateTable(ctx, vectorTable(table, "DocId", "SortKey", "Embedding",
		&types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"Title", "ChunkText"}})); err != nil {
		return err
	}
	var items []Item
	for _, n := range Narrations {
		for i, c := range Chunks(n.Text, ChunkLen, Overlap) {
			items = append(items, Item{"DocId": S(n.Key), "SortKey": S(fmt.Sprintf("%03d", i+1)), "Title": S(n.Title),
				"ChunkText": S(c), "Embedding": VectorAV(Embedding(c))})
		}
	}
	if _, err := BatchWrite(ctx, env.DB, table, Puts(items)); err != nil {
		return err
	}
	env.Logf("layout B (%s): %d chunk items, title repeated; index INCLUDE [Title, ChunkText]", table, len(items))
	textOf := func(it Item) []float32 { return Embedding(Str(it, "ChunkText")) }
	hits, _, err := search(ctx, env, table, q, TopK, textOf, "ChunkText,DocId,SortKey,Title")
	if err != nil {
		return err
	}
	for _, h := range hits {
		if err := Want("layout B title of "+Str(h.item, "DocId"), Str(h.item, "Title"), narration(Str(h.item, "DocId")).Title); err != nil {
			return err
		}
	}
	if err := checkDetectives("layout B", hits, func(it Item) string { return Str(it, "DocId") }); err != nil {
		return err
	}
	printHits(env, hits, "DocId", "SortKey", "Title")

	// Renaming a document touches every one of its chunks.
	keys, _, err := QueryAll(ctx, env.DB, &dynamodb.QueryInput{TableName: aws.String(table), ProjectionExpression: aws.String("DocId, SortKey"),
		KeyConditionExpression: aws.String("DocId = :d"), ExpressionAttributeValues: Item{":d": S("conan-opening")}})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if _, err := env.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: k,
			UpdateExpression: aws.String("SET Title = :t"), ExpressionAttributeValues: Item{":t": S("名探偵コナン（TV版）")}}); err != nil {
			return fmt.Errorf("UpdateItem title: %w", err)
		}
	}
	hits, _, err = search(ctx, env, table, q, TopK, textOf, "ChunkText,DocId,SortKey,Title")
	if err != nil {
		return err
	}
	for _, h := range hits {
		if Str(h.item, "DocId") == "conan-opening" && Str(h.item, "Title") != "名探偵コナン（TV版）" {
			return fmt.Errorf("layout B: search returned a stale title %q after the update", Str(h.item, "Title"))
		}
	}
	env.Logf("layout B: renaming conan-opening took %d UpdateItem calls (one per chunk); search shows the new title", len(keys))
	return nil
}

// layoutC: a parent item per document and CHUNK#NNNN children (方式C 親子管理).
func layoutC(ctx context.Context, env *Env, q []float32) error {
	table := env.Table("Narrations")
	if _, err := env.CreateTable(ctx, vectorTable(table, "DocId", "SortKey", "Embedding",
		&types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"ChunkText"}})); err != nil {
		return err
	}
	var items []Item
	children := map[string]int{}
	for _, n := range Narrations {
		items = append(items, Item{"DocId": S(n.Key), "SortKey": S("DOC"), "itemType": S("PARENT"), "Title": S(n.Title)})
		for i, c := range Chunks(n.Text, ChunkLen, Overlap) {
			items = append(items, Item{"DocId": S(n.Key), "SortKey": S(fmt.Sprintf("CHUNK#%04d", i+1)), "itemType": S("CHILD"),
				"ChunkText": S(c), "Embedding": VectorAV(Embedding(c))})
			children[n.Key]++
		}
	}
	if _, err := BatchWrite(ctx, env.DB, table, Puts(items)); err != nil {
		return err
	}
	total := len(items) - len(Narrations)
	env.Logf("layout C (%s): %d parents (SortKey DOC, no embedding) + %d CHUNK#NNNN children; index INCLUDE [ChunkText]", table, len(Narrations), total)
	textOf := func(it Item) []float32 { return Embedding(Str(it, "ChunkText")) }
	hits, cc, err := search(ctx, env, table, q, TopK, textOf, "ChunkText,DocId,SortKey")
	if err != nil {
		return err
	}
	if err := FirstErr(checkDetectives("layout C", hits, func(it Item) string { return Str(it, "DocId") }),
		Check(cc != nil && aws.ToFloat64(cc.VectorSearchRequestBytes) > 0, "layout C: no ConsumedCapacity with ReturnConsumedCapacity TOTAL: %+v", cc)); err != nil {
		return err
	}
	// The children carry no title: fetch the parents (one BatchGetItem).
	var keys []Item
	seen := map[string]bool{}
	for _, h := range hits {
		if d := Str(h.item, "DocId"); !seen[d] {
			seen[d] = true
			keys = append(keys, Item{"DocId": S(d), "SortKey": S("DOC")})
		}
	}
	bg, err := env.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		table: {Keys: keys, ProjectionExpression: aws.String("DocId, Title")}}})
	if err != nil {
		return fmt.Errorf("BatchGetItem parents: %w", err)
	}
	titles := map[string]string{}
	for _, it := range bg.Responses[table] {
		titles[Str(it, "DocId")] = Str(it, "Title")
	}
	for d := range seen {
		if err := Want("layout C parent title of "+d, titles[d], narration(d).Title); err != nil {
			return err
		}
	}
	printHits(env, hits, "DocId", "SortKey")
	env.Logf("layout C: titles from the parents via BatchGetItem: %v; search read %.0f bytes", titles, aws.ToFloat64(cc.VectorSearchRequestBytes))

	// Parents are not indexed: a wide search returns the children only.
	all, _, err := search(ctx, env, table, q, 100, textOf, "ChunkText,DocId,SortKey")
	if err != nil {
		return err
	}
	if err := Want("layout C indexed items (TopK 100)", len(all), total); err != nil {
		return err
	}
	// No cascade: deleting a parent leaves its children's vectors behind.
	if _, err := env.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table),
		Key: Item{"DocId": S("onepiece-opening"), "SortKey": S("DOC")}}); err != nil {
		return err
	}
	orphans := func() (int, error) {
		all, _, err := search(ctx, env, table, q, 100, textOf, "ChunkText,DocId,SortKey")
		n := 0
		for _, h := range all {
			if Str(h.item, "DocId") == "onepiece-opening" {
				n++
			}
		}
		return n, err
	}
	n, err := orphans()
	if err != nil {
		return err
	}
	if err := Want("orphan ONE PIECE vectors after deleting only the parent", n, children["onepiece-opening"]); err != nil {
		return err
	}
	// The application's cascade: delete the whole partition.
	rest, _, err := QueryAll(ctx, env.DB, &dynamodb.QueryInput{TableName: aws.String(table), ProjectionExpression: aws.String("DocId, SortKey"),
		KeyConditionExpression: aws.String("DocId = :d"), ExpressionAttributeValues: Item{":d": S("onepiece-opening")}})
	if err != nil {
		return err
	}
	var dels []types.WriteRequest
	for _, k := range rest {
		dels = append(dels, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}})
	}
	if _, err := BatchWrite(ctx, env.DB, table, dels); err != nil {
		return err
	}
	if n, err = orphans(); err != nil {
		return err
	}
	if err := Want("ONE PIECE vectors after deleting the partition", n, 0); err != nil {
		return err
	}
	env.Logf("layout C: deleting only the parent left %d orphan vectors searchable; deleting the partition removed them", children["onepiece-opening"])
	return nil
}

// smallToBig: DOC, parents P#NNN holding the answer text (bodyText), and
// children P#NNN#C#NNN holding only the embedding, indexed KEYS_ONLY.
func smallToBig(ctx context.Context, env *Env, q []float32) error {
	table := env.Table("NarrationHierarchy")
	if _, err := env.CreateTable(ctx, vectorTable(table, "docId", "sk", "embedding",
		&types.Projection{ProjectionType: types.ProjectionTypeKeysOnly})); err != nil {
		return err
	}
	var items []Item
	childText := map[string]string{} // docId|sk → the child's text (kept by the app, not the table)
	parents, children := 0, 0
	for _, n := range Narrations {
		items = append(items, Item{"docId": S(n.Short), "sk": S("DOC"), "itemType": S("DOCUMENT"), "title": S(n.Title)})
		for p, body := range Chunks(n.Text, ParentLen, 0) {
			psk := fmt.Sprintf("P#%03d", p+1)
			items = append(items, Item{"docId": S(n.Short), "sk": S(psk), "itemType": S("PARENT"), "bodyText": S(body)})
			parents++
			for c, text := range Chunks(body, ChunkLen, Overlap) {
				csk := fmt.Sprintf("%s#C#%03d", psk, c+1)
				items = append(items, Item{"docId": S(n.Short), "sk": S(csk), "itemType": S("CHILD"), "embedding": VectorAV(Embedding(text))})
				childText[n.Short+"|"+csk] = text
				children++
			}
		}
	}
	if _, err := BatchWrite(ctx, env.DB, table, Puts(items)); err != nil {
		return err
	}
	env.Logf("small-to-big (%s): %d DOC, %d parents P#NNN (%d runes, bodyText), %d children P#NNN#C#NNN (embedding only); index KEYS_ONLY",
		table, len(Narrations), parents, ParentLen, children)
	textOf := func(it Item) []float32 { return Embedding(childText[Str(it, "docId")+"|"+Str(it, "sk")]) }
	hits, _, err := search(ctx, env, table, q, TopK, textOf, "docId,sk")
	if err != nil {
		return err
	}
	if err := checkDetectives("small-to-big", hits, func(it Item) string { return narration(Str(it, "docId")).Key }); err != nil {
		return err
	}
	printHits(env, hits, "docId", "sk")
	distinct := map[string]bool{}
	for i, h := range hits {
		doc, sk := Str(h.item, "docId"), Str(h.item, "sk")
		psk, _, ok := strings.Cut(sk, "#C#")
		if !ok {
			return fmt.Errorf("small-to-big: hit %s/%s is not a child", doc, sk)
		}
		out, err := env.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table),
			Key: Item{"docId": S(doc), "sk": S(psk)}, ProjectionExpression: aws.String("bodyText")})
		if err != nil {
			return fmt.Errorf("GetItem parent %s/%s: %w", doc, psk, err)
		}
		body := Str(out.Item, "bodyText")
		if err := FirstErr(Want("parent attributes", Names(out.Item), "bodyText"),
			Check(strings.Contains(body, childText[doc+"|"+sk]), "parent %s/%s does not contain the child's text", doc, psk)); err != nil {
			return err
		}
		if i == 0 {
			env.Logf("small-to-big: GetItem %s/%s (projection bodyText) -> %s…", doc, psk, string([]rune(body)[:24]))
		}
		distinct[doc+"/"+psk] = true
	}
	env.Logf("small-to-big: the top %d children map to %d distinct parents (crowding)", TopK, len(distinct))

	// The service caps TopK at 100.
	_, err = env.DB.SearchVectors(ctx, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String("NarrationChunkIndex"),
		SearchVector: VectorList(q), TopK: aws.Int32(101)})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" || !strings.Contains(ae.ErrorMessage(), "TopK") {
		return fmt.Errorf("SearchVectors TopK 101: got %v, want a ValidationException about TopK", err)
	}
	env.Logf("small-to-big: TopK 101 rejected: %s", ae.ErrorMessage())
	return nil
}

func printHits(env *Env, hits []hit, attrs ...string) {
	for i, h := range hits {
		var parts []string
		for _, a := range attrs {
			parts = append(parts, Str(h.item, a))
		}
		text := []rune(Str(h.item, "ChunkText"))
		line := fmt.Sprintf("#%d %.6f %s", i+1, h.score, strings.Join(parts, " "))
		if len(text) > 0 {
			line += " " + string(text[:min(24, len(text))]) + "…"
		}
		env.Logf("  %s", line)
	}
}
