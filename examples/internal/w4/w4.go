// Package w4 is seed 004: the chat history of an internal RAG chatbot in
// ChatMessages, with a sparse GSI listing each user's conversations, TTL on
// "ttl" and a stream feeding a (toy) search index.
package w4

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	. "github.com/kura-db/kura/examples/internal/kit"
)

const gsi = "UserConversationsIndex"

type topic struct{ genre, question, answer, pdf, snippet string }

var topics = []topic{
	{"labor", "有給休暇の申請方法を教えて", "有給休暇は勤怠システムから前日までに申請してください。", "労務管理規定_2024.pdf", "第12条 年次有給休暇は所定の様式により前日までに申請する。"},
	{"labor", "残業の上限は何時間ですか", "時間外労働は月45時間、年360時間が上限です。", "労務管理規定_2024.pdf", "第20条 時間外労働の上限は月45時間とする。"},
	{"compliance", "取引先からの贈答品は受け取れますか", "社会通念上相当な範囲を超える贈答品は辞退してください。", "コンプライアンス規定_2023.pdf", "第5条 過度な贈答・接待の授受を禁止する。"},
	{"manufacturing", "製造ラインに入る前の衛生手順は", "手洗い、アルコール消毒、エアシャワーの順に行います。", "製造ガイドライン_v5.pdf", "3.2 入室時は手洗い後にエアシャワーを通過する。"},
	{"it", "パスワードはどのくらいの頻度で変更しますか", "定期変更は不要で、漏えいの疑いがある時に変更します。", "情報セキュリティ規程.pdf", "第8条 パスワードの漏えいが疑われる場合は直ちに変更する。"},
}

// message is the app's own record of what it wrote (the model the checks
// compare the database and the search index against).
type message struct {
	conv, ts, user, gsiKey, content string
	expired                         bool
}

type chat struct {
	env     *Env
	table   string
	now     time.Time
	msgs    map[string]*message // conversation_id|timestamp → message
	convs   map[string][]string // gsi_pk_user → conversation first timestamps
	starts  map[string]string   // conversation_id → gsi_pk_user
	expired int
	noAdmin bool
}

func key(conv, ts string) Item { return Item{"conversation_id": S(conv), "timestamp": S(ts)} }

// Run creates ChatMessages, writes the conversations, runs the access
// patterns, expires old messages and checks the stream-fed search index.
func Run(ctx context.Context, env *Env) error {
	c := &chat{env: env, table: env.Table("ChatMessages"), now: time.Now(),
		msgs: map[string]*message{}, convs: map[string][]string{}, starts: map[string]string{}}
	env.Step("W4 chat history: table %s", c.table)
	td, err := env.CreateTable(ctx, tableInput(c.table))
	if err != nil {
		return err
	}
	if _, err := env.DB.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(c.table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}}); err != nil {
		return fmt.Errorf("UpdateTimeToLive: %w", err)
	}
	d, err := env.DB.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(c.table)})
	if err != nil {
		return err
	}
	if s := d.TimeToLiveDescription.TimeToLiveStatus; s != types.TimeToLiveStatusEnabled && s != types.TimeToLiveStatusEnabling {
		return fmt.Errorf("TTL status %s after enabling", s)
	}
	env.Logf("created conversation_id/timestamp table, sparse GSI %s (gsi_pk_user/timestamp, INCLUDE conversation_id, message_content), stream NEW_AND_OLD_IMAGES, TTL on ttl (%s)",
		gsi, d.TimeToLiveDescription.TimeToLiveStatus)
	// Expiry is driven through Kura's admin endpoint; without it (Amazon
	// DynamoDB, or Kura without --admin) no message gets a past ttl, as
	// the moment of the service's own sweep is unknown.
	if _, err := env.ExpireTTL(ctx); errors.Is(err, ErrNoAdmin) {
		c.noAdmin = true
		env.Logf("no /admin/ttl/expire on this server: every ttl is in the future and expiry is not checked")
	} else if err != nil {
		return err
	}
	index := newSearchIndex(NewStreamReader(env.Streams, aws.ToString(td.LatestStreamArn)))
	if err := c.load(ctx); err != nil {
		return err
	}
	if err := index.sync(ctx, c); err != nil {
		return err
	}
	if err := c.patterns(ctx); err != nil {
		return err
	}
	if err := c.changes(ctx); err != nil {
		return err
	}
	if err := index.sync(ctx, c); err != nil {
		return err
	}
	return FirstErr(Want("stream REMOVE records by TTL", index.ttlRemoves, c.expired), Want("stream MODIFY records", index.modifies, 1))
}

func tableInput(table string) *dynamodb.CreateTableInput {
	attr := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	keys := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{attr("conversation_id"), attr("timestamp"), attr("gsi_pk_user")},
		KeySchema:            keys("conversation_id", "timestamp"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String(gsi), KeySchema: keys("gsi_pk_user", "timestamp"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"conversation_id", "message_content"}}}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	}
}

// load writes the conversations the way the seed's save_message does: one
// PutItem per message, gsi_pk_user on the first message only.
func (c *chat) load(ctx context.Context) error {
	r := rand.New(rand.NewPCG(4, 2025))
	base := time.Date(2025, 11, 5, 8, 0, 0, 0, time.UTC)
	type plan struct {
		user, gsiKey string
		at           time.Time
	}
	var plans []plan
	for i := 0; i < 120; i++ { // 40 ordinary users, 3 conversations on average
		u := fmt.Sprintf("U%03d", 1+r.IntN(40))
		plans = append(plans, plan{u, u, base.Add(time.Duration(i) * 7 * time.Minute)})
	}
	for i := 0; i < 45; i++ { // a heavy user: more than two pages of 20
		plans = append(plans, plan{"U100", "U100", base.Add(time.Duration(i)*11*time.Minute + 3*time.Second)})
	}
	for i := 0; i < 30; i++ { // the hot user: date-suffixed GSI keys
		at := base.Add(time.Duration(i)*90*time.Minute + 5*time.Second)
		plans = append(plans, plan{"U456", "U456#" + at.Format("2006-01-02"), at})
	}
	puts := 0
	for i, p := range plans {
		conv := fmt.Sprintf("conv_%s_%03d", p.at.Format("20060102"), i+1)
		tp := topics[r.IntN(len(topics))]
		expired := i%10 == 3 && !c.noAdmin // these conversations' TTL has passed
		ttl := c.now.AddDate(2, 0, 0).Unix()
		if expired {
			ttl = c.now.Add(-24 * time.Hour).Unix()
		}
		n := 2 + r.IntN(5)
		for m := 0; m < n; m++ {
			ts := p.at.Add(time.Duration(m*4) * time.Second).Format("2006-01-02T15:04:05.000Z")
			content, kind := tp.question, "user"
			switch {
			case m%2 == 1:
				content, kind = tp.answer, "assistant"
			case m > 0:
				content = "ありがとうございます。もう少し詳しく教えてください。"
			}
			meta := Item{"company_id": S("C01"), "working_status_id": S([]string{"fulltime", "contract", "dispatch"}[i%3]), "genre_id": S(tp.genre)}
			if kind == "assistant" {
				meta["rag_sources"] = L(M(Item{"source_pdf_name": S(tp.pdf), "snippet": S(tp.snippet)}))
			} else {
				meta["rag_sources"] = L()
			}
			item := Item{"message_id": S(fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Int64N(1<<48))),
				"conversation_id": S(conv), "timestamp": S(ts), "user_id": S(p.user), "message_type": S(kind),
				"message_content": S(content), "metadata": M(meta), "ttl": N(ttl)}
			msg := &message{conv: conv, ts: ts, user: p.user, content: content, expired: expired}
			if m == 0 {
				item["gsi_pk_user"] = S(p.gsiKey) // the sparse index's marker
				msg.gsiKey = p.gsiKey
				c.convs[p.gsiKey] = append(c.convs[p.gsiKey], ts)
				c.starts[conv] = p.gsiKey
			}
			if _, err := c.env.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(c.table), Item: item}); err != nil {
				return fmt.Errorf("PutItem message: %w", err)
			}
			puts++
			c.msgs[conv+"|"+ts] = msg
			if expired {
				c.expired++
			}
		}
	}
	c.env.Logf("%d messages in %d conversations for %d GSI partition keys (incl. U100 with 45 and hot user U456 split by day); %d messages have a past ttl",
		puts, len(plans), len(c.convs), c.expired)
	return nil
}

// userConversations is the seed's get_user_conversations: newest first, 20
// at a time.
func (c *chat) userConversations(ctx context.Context, gsiKey string, start Item) (*dynamodb.QueryOutput, error) {
	out, err := c.env.DB.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(c.table), IndexName: aws.String(gsi),
		KeyConditionExpression:    aws.String("gsi_pk_user = :u"),
		ExpressionAttributeValues: Item{":u": S(gsiKey)}, ScanIndexForward: aws.Bool(false), Limit: aws.Int32(20), ExclusiveStartKey: start})
	if err != nil {
		return nil, fmt.Errorf("Query %s %s: %w", gsi, gsiKey, err)
	}
	return out, nil
}

// wantConversations is the model's answer for a GSI key, newest first.
func (c *chat) wantConversations(gsiKey string) []string {
	var ts []string
	for _, t := range c.convs[gsiKey] {
		for _, m := range c.msgs {
			if m.ts == t && m.gsiKey == gsiKey {
				ts = append(ts, t)
			}
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ts)))
	return ts
}

func (c *chat) checkUser(ctx context.Context, gsiKey string) (int, error) {
	want := c.wantConversations(gsiKey)
	var got []string
	var start Item
	pages := 0
	for {
		out, err := c.userConversations(ctx, gsiKey, start)
		if err != nil {
			return 0, err
		}
		pages++
		if err := Check(len(out.Items) <= 20, "%s: page of %d items with Limit 20", gsiKey, len(out.Items)); err != nil {
			return 0, err
		}
		for _, it := range out.Items {
			if err := Want(gsiKey+" projected attributes", Names(it), "conversation_id,gsi_pk_user,message_content,timestamp"); err != nil {
				return 0, err
			}
			got = append(got, Str(it, "timestamp"))
		}
		if start = out.LastEvaluatedKey; start == nil {
			break
		}
	}
	return pages, Want(gsiKey+" conversations newest first", strings.Join(got, ","), strings.Join(want, ","))
}

func (c *chat) patterns(ctx context.Context) error {
	// Requirement 1: a conversation's messages in time order.
	byConv := map[string][]string{}
	for _, m := range c.msgs {
		byConv[m.conv] = append(byConv[m.conv], m.ts)
	}
	for conv, want := range byConv {
		sort.Strings(want)
		items, _, err := QueryAll(ctx, c.env.DB, &dynamodb.QueryInput{TableName: aws.String(c.table),
			KeyConditionExpression:    aws.String("conversation_id = :c"),
			ExpressionAttributeValues: Item{":c": S(conv)}, ScanIndexForward: aws.Bool(true)})
		if err != nil {
			return err
		}
		var got []string
		for i, it := range items {
			got = append(got, Str(it, "timestamp"))
			if (i == 0) != (Str(it, "gsi_pk_user") != "") {
				return fmt.Errorf("%s message %d: gsi_pk_user %q (only the first message carries it)", conv, i, Str(it, "gsi_pk_user"))
			}
			if Str(it, "message_type") == "assistant" && len(List(it, "metadata", "rag_sources")) != 1 {
				return fmt.Errorf("%s message %d: metadata.rag_sources %v", conv, i, List(it, "metadata", "rag_sources"))
			}
		}
		if err := Want(conv+" messages in time order", strings.Join(got, ","), strings.Join(want, ",")); err != nil {
			return err
		}
	}
	c.env.Logf("requirement 1: %d conversations read in time order (ScanIndexForward true), gsi_pk_user on first messages only, rag_sources on answers", len(byConv))

	// Requirement 2: each user's conversations, newest first, 20 a page.
	total, maxPages := 0, 0
	for k := range c.convs {
		pages, err := c.checkUser(ctx, k)
		if err != nil {
			return err
		}
		total += len(c.wantConversations(k))
		maxPages = max(maxPages, pages)
	}
	first, err := c.userConversations(ctx, "U100", nil)
	if err != nil {
		return err
	}
	if err := FirstErr(Want("U100 first page", len(first.Items), 20), Check(first.LastEvaluatedKey != nil, "U100: no LastEvaluatedKey after a full page")); err != nil {
		return err
	}
	c.env.Logf("requirement 2: %d users' conversation lists match (%d GSI entries for %d messages: sparse), up to %d pages of Limit 20, newest first (ScanIndexForward false)",
		len(c.convs), total, len(c.msgs), maxPages)

	// Hot user: one GSI partition per day, read newest day first.
	var days []string
	for k := range c.convs {
		if strings.HasPrefix(k, "U456#") {
			days = append(days, k)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(days)))
	var latest []string
	for _, d := range days {
		out, err := c.userConversations(ctx, d, nil)
		if err != nil {
			return err
		}
		for _, it := range out.Items {
			if len(latest) < 20 {
				latest = append(latest, Str(it, "timestamp"))
			}
		}
	}
	var want []string
	for _, d := range days {
		want = append(want, c.wantConversations(d)...)
	}
	if err := Want("U456 latest 20 across day partitions", strings.Join(latest, ","), strings.Join(want[:20], ",")); err != nil {
		return err
	}
	c.env.Logf("hot user U456: %d day partitions %v, latest 20 conversations merged newest day first", len(days), days)
	return nil
}

// changes edits an answer, deletes a conversation and expires old messages.
func (c *chat) changes(ctx context.Context) error {
	var edit *message
	for _, m := range c.msgs {
		if !m.expired && strings.HasPrefix(m.content, "時間外労働") && (edit == nil || m.conv+m.ts < edit.conv+edit.ts) {
			edit = m
		}
	}
	if edit == nil {
		return errors.New("no answer about overtime to edit")
	}
	edit.content = "時間外労働は月45時間、年360時間が上限です（特別条項は人事部へ）。"
	if _, err := c.env.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(c.table), Key: key(edit.conv, edit.ts),
		UpdateExpression: aws.String("SET message_content = :m"), ExpressionAttributeValues: Item{":m": S(edit.content)}}); err != nil {
		return fmt.Errorf("UpdateItem answer: %w", err)
	}
	var gone string
	for conv, k := range c.starts {
		if k == "U100" && (gone == "" || conv < gone) {
			gone = conv
		}
	}
	deleted := 0
	for id, m := range c.msgs {
		if m.conv == gone {
			if _, err := c.env.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(c.table), Key: key(m.conv, m.ts)}); err != nil {
				return fmt.Errorf("DeleteItem: %w", err)
			}
			delete(c.msgs, id)
			deleted++
		}
	}
	c.env.Logf("edited one answer (UpdateItem), deleted conversation %s (%d messages)", gone, deleted)

	if c.noAdmin {
		return nil
	}
	n, err := c.env.ExpireTTL(ctx)
	if err != nil {
		return err
	}
	// A background expirer (kura --ttl-interval) may have deleted some
	// already; the stream check counts them all.
	if err := Check(n <= c.expired, "TTL pass deleted %d messages, %d had expired", n, c.expired); err != nil {
		return err
	}
	for id, m := range c.msgs {
		if m.expired {
			delete(c.msgs, id)
		}
	}
	count, err := ScanCount(ctx, c.env.DB, c.table)
	if err != nil {
		return err
	}
	if err := Want("messages left after TTL", count, len(c.msgs)); err != nil {
		return err
	}
	for k := range c.convs {
		if _, err := c.checkUser(ctx, k); err != nil {
			return fmt.Errorf("after TTL: %w", err)
		}
	}
	c.env.Logf("TTL: POST /admin/ttl/expire deleted %d expired messages; %d left; the sparse GSI no longer lists expired conversations", n, count)
	return nil
}
