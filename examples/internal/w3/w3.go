// Package w3 is seed 003: Mesh v2 IoT groups scoped by domain (group
// metadata, node status and membership in one table, GroupIdIndex for the
// reverse lookup of a group's domains).
package w3

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	. "github.com/kura-db/kura/examples/internal/kit"
)

// MaxDomain is the seed's limit on a domain, in characters.
const MaxDomain = 256

// longDomain is a manually chosen domain of exactly MaxDomain characters,
// multibyte (768 bytes of UTF-8 for the Japanese part).
var longDomain = func() string {
	s := strings.Repeat("東京都千代田区丸の内メッシュ研究室", 20)
	return string([]rune(s)[:MaxDomain-len("@lab")]) + "@lab"
}()

// ValidateDomain is the seed's validation: at most 256 characters, letters
// (including multibyte), digits and symbols, no spaces or control characters.
func ValidateDomain(d string) error {
	if d == "" || utf8.RuneCountInString(d) > MaxDomain {
		return fmt.Errorf("domain must have 1 to %d characters, has %d", MaxDomain, utf8.RuneCountInString(d))
	}
	for _, r := range d {
		if r <= ' ' || r == 0x7f || r == '#' {
			return fmt.Errorf("domain contains %q", r)
		}
	}
	return nil
}

type group struct{ id, domain, name, host string }

var (
	domains = []string{"203.0.113.1", "198.51.100.7", longDomain}
	groups  = []group{
		{"abc123", "203.0.113.1", "My Group", "node_001"},
		{"g1", "203.0.113.1", "教室A", "node_101"},
		{"g10", "203.0.113.1", "教室B", "node_201"},
		{"abc123", "198.51.100.7", "Other site", "node_301"}, // same group id, other domain
		{"lab", longDomain, "研究室メッシュ", "node_401"},
	}
)

const nodesPerGroup = 5

func nodeID(g, n int) string { return fmt.Sprintf("node_%d%02d", g, n+1) }

// Run creates the table, loads the mesh and runs every W3 access pattern.
func Run(ctx context.Context, env *Env) error {
	table := env.Table("MeshV2Table")
	env.Step("W3 IoT mesh groups: table %s", table)
	if _, err := env.CreateTable(ctx, tableInput(table)); err != nil {
		return err
	}
	env.Logf("created pk/sk table (PAY_PER_REQUEST), GSI GroupIdIndex gsi_pk/gsi_sk projection ALL")
	for _, d := range domains {
		if err := ValidateDomain(d); err != nil {
			return fmt.Errorf("domain %.20s…: %w", d, err)
		}
	}
	if err := Check(ValidateDomain(longDomain+"x") != nil, "a %d-character domain passed validation", MaxDomain+1); err != nil {
		return err
	}
	env.Logf("long domain: %d characters, %d bytes (257 characters rejected by the app)", utf8.RuneCountInString(longDomain), len(longDomain))

	var items []Item
	for gi, g := range groups {
		items = append(items, Item{"pk": S("DOMAIN#" + g.domain), "sk": S("GROUP#" + g.id + "#METADATA"),
			"id": S(g.id), "domain": S(g.domain), "fullId": S(g.id + "@" + g.domain), "name": S(g.name), "hostId": S(g.host),
			"createdAt": S(fmt.Sprintf("2025-01-15T12:%02d:00Z", gi)),
			"gsi_pk":    S("GROUP#" + g.id), "gsi_sk": S("DOMAIN#" + g.domain)})
		for n := 0; n < nodesPerGroup; n++ {
			id := nodeID(gi, n)
			items = append(items,
				nodeStatus(g, id, 0),
				Item{"pk": S("NODE#" + id), "sk": S("METADATA"), "nodeId": S(id), "groupId": S(g.id), "domain": S(g.domain)})
		}
	}
	if _, err := BatchWrite(ctx, env.DB, table, Puts(items)); err != nil {
		return err
	}
	env.Logf("%d groups in %d domains, %d nodes (status + membership items): %d items", len(groups), len(domains), len(groups)*nodesPerGroup, len(items))

	// Frequent small status overwrites: every node reports 20 times.
	const rounds = 20
	writes := 0
	for r := 1; r <= rounds; r++ {
		for gi, g := range groups {
			for n := 0; n < nodesPerGroup; n++ {
				if _, err := env.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: nodeStatus(g, nodeID(gi, n), r)}); err != nil {
					return fmt.Errorf("PutItem node status: %w", err)
				}
				writes++
			}
		}
	}
	// One more report, returning what it replaced.
	last, err := env.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: nodeStatus(groups[4], nodeID(4, 0), rounds+1),
		ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		return err
	}
	if err := Want("replaced status timestamp", Str(last.Attributes, "timestamp"), stamp(rounds)); err != nil {
		return err
	}
	env.Logf("%d node-status overwrites (PutItem), the last with ReturnValues ALL_OLD", writes+1)
	return patterns(ctx, env, table)
}

func stamp(round int) string {
	return fmt.Sprintf("2025-01-15T12:%02d:%02dZ", 5+round/60, round%60)
}

func sensors(round int, seed int) types.AttributeValue {
	return L(M(Item{"key": S("temperature"), "value": S(fmt.Sprint(20 + (round+seed)%10))}),
		M(Item{"key": S("humidity"), "value": S(fmt.Sprint(50 + (round*3+seed)%30))}))
}

func nodeStatus(g group, id string, round int) Item {
	return Item{"pk": S("DOMAIN#" + g.domain), "sk": S("GROUP#" + g.id + "#NODE#" + id),
		"nodeId": S(id), "groupId": S(g.id), "domain": S(g.domain), "name": S("Node " + id[len("node_"):]),
		"data": sensors(round, len(id)), "timestamp": S(stamp(round))}
}

func tableInput(table string) *dynamodb.CreateTableInput {
	var defs []types.AttributeDefinition
	for _, a := range []string{"pk", "sk", "gsi_pk", "gsi_sk"} {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	keys := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	return &dynamodb.CreateTableInput{
		TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: defs, KeySchema: keys("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("GroupIdIndex"), KeySchema: keys("gsi_pk", "gsi_sk"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}
}

func patterns(ctx context.Context, env *Env, table string) error {
	query := func(in *dynamodb.QueryInput) ([]Item, error) {
		in.TableName = aws.String(table)
		items, _, err := QueryAll(ctx, env.DB, in)
		return items, err
	}
	get := func(pk, sk string) (Item, error) {
		out, err := env.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S(pk), "sk": S(sk)}})
		if err != nil {
			return nil, fmt.Errorf("GetItem %.40s/%s: %w", pk, sk, err)
		}
		if out.Item == nil {
			return nil, fmt.Errorf("GetItem %.40s/%s: no item", pk, sk)
		}
		return out.Item, nil
	}

	// Groups in a domain: begins_with GROUP# also matches the node items
	// (GROUP#{id}#NODE#…), so the app keeps the metadata items only.
	for _, d := range domains {
		all, err := query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :g)"),
			ExpressionAttributeValues: Item{":pk": S("DOMAIN#" + d), ":g": S("GROUP#")}})
		if err != nil {
			return err
		}
		var ids []string
		for _, it := range all {
			if strings.HasSuffix(Str(it, "sk"), "#METADATA") {
				ids = append(ids, Str(it, "id"))
			}
		}
		var want []string
		for _, g := range groups {
			if g.domain == d {
				want = append(want, g.id)
			}
		}
		sort.Strings(want)
		if err := FirstErr(Want("groups in domain "+short(d), strings.Join(ids, ","), strings.Join(want, ",")),
			Want("items under GROUP# in "+short(d), len(all), len(want)*(1+nodesPerGroup))); err != nil {
			return err
		}
		env.Logf("groups in DOMAIN#%s: %v (%d items matched begins_with GROUP#)", short(d), ids, len(all))
	}

	for gi, g := range groups {
		meta, err := get("DOMAIN#"+g.domain, "GROUP#"+g.id+"#METADATA")
		if err != nil {
			return err
		}
		if err := FirstErr(Want("fullId", Str(meta, "fullId"), g.id+"@"+g.domain), Want("hostId", Str(meta, "hostId"), g.host)); err != nil {
			return err
		}
		nodes, err := query(&dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :p)"),
			ExpressionAttributeValues: Item{":pk": S("DOMAIN#" + g.domain), ":p": S("GROUP#" + g.id + "#NODE#")}})
		if err != nil {
			return err
		}
		// g1's prefix must not pick up g10's nodes.
		if err := Want("nodes of "+g.id+"@"+short(g.domain), len(nodes), nodesPerGroup); err != nil {
			return err
		}
		for _, nd := range nodes {
			if err := Want("node groupId", Str(nd, "groupId"), g.id); err != nil {
				return err
			}
		}
		id := nodeID(gi, 2)
		st, err := get("DOMAIN#"+g.domain, "GROUP#"+g.id+"#NODE#"+id)
		if err != nil {
			return err
		}
		want := sensors(20, len(id)).(*types.AttributeValueMemberL).Value
		data := List(st, "data")
		if err := FirstErr(Want("status timestamp", Str(st, "timestamp"), stamp(20)), Want("sensor entries", len(data), 2)); err != nil {
			return err
		}
		for i := range want {
			w, got := want[i].(*types.AttributeValueMemberM).Value, data[i].(*types.AttributeValueMemberM).Value
			if err := Want("sensor "+Str(w, "key"), Str(got, "value"), Str(w, "value")); err != nil {
				return err
			}
		}
		member, err := get("NODE#"+id, "METADATA")
		if err != nil {
			return err
		}
		if err := FirstErr(Want("membership group", Str(member, "groupId"), g.id), Want("membership domain", Str(member, "domain"), g.domain)); err != nil {
			return err
		}
	}
	env.Logf("per group: GetItem metadata (fullId), Query nodes begins_with GROUP#{id}#NODE# (%d each, g1 not mixing with g10), GetItem node status (latest sensors), GetItem NODE#/METADATA", nodesPerGroup)

	// Reverse lookup: which domains hold group abc123?
	for _, c := range []struct {
		id   string
		want []string
	}{{"abc123", []string{"DOMAIN#198.51.100.7", "DOMAIN#203.0.113.1"}}, {"lab", []string{"DOMAIN#" + longDomain}}, {"nope", nil}} {
		hits, err := query(&dynamodb.QueryInput{IndexName: aws.String("GroupIdIndex"), KeyConditionExpression: aws.String("gsi_pk = :g"),
			ExpressionAttributeValues: Item{":g": S("GROUP#" + c.id)}})
		if err != nil {
			return err
		}
		var got []string
		for _, h := range hits {
			got = append(got, Str(h, "gsi_sk"))
			if Str(h, "fullId") == "" {
				return fmt.Errorf("GroupIdIndex (ALL) item without fullId: %v", h)
			}
		}
		if err := Want("GroupIdIndex GROUP#"+c.id, strings.Join(got, ","), strings.Join(c.want, ",")); err != nil {
			return err
		}
		var shown []string
		for _, g := range got {
			shown = append(shown, short(g))
		}
		env.Logf("GroupIdIndex GROUP#%s -> %v", c.id, shown)
	}
	return nil
}

func short(s string) string {
	if r := []rune(s); len(r) > 24 {
		return string(r[:20]) + fmt.Sprintf("…(%d chars)", len(r))
	}
	return s
}
