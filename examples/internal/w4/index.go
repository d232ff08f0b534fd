package w4

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	. "github.com/kura-db/kura/examples/internal/kit"
)

// searchIndex is the toy stand-in for the OpenSearch domain the seed feeds
// from DynamoDB Streams: documents keyed conversation_id|timestamp, searched
// by substring.
type searchIndex struct {
	stream *StreamReader
	docs   map[string]doc
	// counts of applied records
	inserts, modifies, removes, ttlRemoves int
}

type doc struct{ user, content, genre string }

func newSearchIndex(r *StreamReader) *searchIndex {
	return &searchIndex{stream: r, docs: map[string]doc{}}
}

// apply consumes one stream record, using its new and old images.
func (x *searchIndex) apply(r st.Record) error {
	d := r.Dynamodb
	if d == nil || d.StreamViewType != st.StreamViewTypeNewAndOldImages {
		return fmt.Errorf("stream record without NEW_AND_OLD_IMAGES: %+v", r)
	}
	id := SStr(d.Keys, "conversation_id") + "|" + SStr(d.Keys, "timestamp")
	switch r.EventName {
	case st.OperationTypeInsert:
		if d.OldImage != nil || d.NewImage == nil {
			return fmt.Errorf("INSERT %s: images old=%v new=%v", id, d.OldImage != nil, d.NewImage != nil)
		}
		x.inserts++
	case st.OperationTypeModify:
		if d.OldImage == nil || d.NewImage == nil {
			return fmt.Errorf("MODIFY %s without both images", id)
		}
		if old := SStr(d.OldImage, "message_content"); old != x.docs[id].content {
			return fmt.Errorf("MODIFY %s: old image %q, index had %q", id, old, x.docs[id].content)
		}
		x.modifies++
	case st.OperationTypeRemove:
		if d.OldImage == nil || d.NewImage != nil {
			return fmt.Errorf("REMOVE %s: images old=%v new=%v", id, d.OldImage != nil, d.NewImage != nil)
		}
		x.removes++
		if u := r.UserIdentity; u != nil {
			if aws.ToString(u.Type) != "Service" || aws.ToString(u.PrincipalId) != "dynamodb.amazonaws.com" {
				return fmt.Errorf("REMOVE %s: userIdentity %s/%s", id, aws.ToString(u.Type), aws.ToString(u.PrincipalId))
			}
			x.ttlRemoves++
		}
		delete(x.docs, id)
		return nil
	default:
		return fmt.Errorf("stream record %s: event %q", id, r.EventName)
	}
	x.docs[id] = doc{user: SStr(d.NewImage, "user_id"), content: SStr(d.NewImage, "message_content"),
		genre: SStr(SMap(d.NewImage, "metadata"), "genre_id")}
	return nil
}

// search returns the ids of documents containing term, sorted.
func (x *searchIndex) search(term string) []string {
	var ids []string
	for id, d := range x.docs {
		if strings.Contains(d.content, term) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// sync reads the stream up to now and checks the index against the app's
// model of the table.
func (x *searchIndex) sync(ctx context.Context, c *chat) error {
	recs, err := x.stream.Poll(ctx)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := x.apply(r); err != nil {
			return err
		}
	}
	if err := Want("search index documents", len(x.docs), len(c.msgs)); err != nil {
		return err
	}
	for id, m := range c.msgs {
		if got := x.docs[id]; got.content != m.content || got.user != m.user {
			return fmt.Errorf("search index %s: got %q by %s, want %q by %s", id, got.content, got.user, m.content, m.user)
		}
	}
	for _, term := range []string{"有給休暇", "特別条項", "エアシャワー"} {
		var want []string
		for id, m := range c.msgs {
			if strings.Contains(m.content, term) {
				want = append(want, id)
			}
		}
		sort.Strings(want)
		if err := Want("search "+term, strings.Join(x.search(term), ","), strings.Join(want, ",")); err != nil {
			return err
		}
	}
	c.env.Logf("stream -> search index: %d records (%d shard(s)); applied %d INSERT, %d MODIFY, %d REMOVE (%d by TTL); %d documents; 有給休暇 finds %d, 特別条項 %d",
		len(recs), x.stream.Shards(), x.inserts, x.modifies, x.removes, x.ttlRemoves, len(x.docs), len(x.search("有給休暇")), len(x.search("特別条項")))
	return nil
}
