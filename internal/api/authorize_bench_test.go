package api

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/engine"
	"github.com/kura-db/kura/internal/iam"
	"github.com/kura-db/kura/internal/storage/memory"
)

// The authorization benchmarks run GetItem and PutItem through the
// handler (decode, validate, authorize, engine) with no authorization and
// with a user whose policies hold 20 statements, once without conditions
// (decisions cached per principal and policy version) and once with a
// dynamodb:LeadingKeys condition on every statement (evaluated on every
// request). BENCHMARKS.md records the figures:
//
//	go test ./internal/api/ -run XXX -bench Authorize -benchmem

// benchPolicies is a user with 20 statements: 19 on other tables, the
// last allowing the bench table; cond is a Condition element for all of
// them ("" for none).
func benchPolicies(b *testing.B, cond string) context.Context {
	var sts []string
	for i := range 19 {
		sts = append(sts, fmt.Sprintf(`{"Sid":"S%d","Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:PutItem"],"Resource":"arn:aws:dynamodb:*:*:table/other%d"%s}`, i, i, cond))
	}
	sts = append(sts, `{"Sid":"Bench","Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:PutItem"],"Resource":"arn:aws:dynamodb:us-east-1:000000000000:table/bench"`+cond+`}`)
	doc := `{"UserDetailList":[{"UserName":"A#001","Arn":"arn:aws:iam::000000000000:user/u","UserPolicyList":[{"PolicyName":"p","PolicyDocument":{"Version":"2012-10-17","Statement":[` +
		strings.Join(sts, ",") + `]}}]}]}`
	file := filepath.Join(b.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		b.Fatal(err)
	}
	a, err := iam.New(file, "000000000000", map[string]string{"AKID": "A#001"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{authz: &Authorizer{IAM: a, Region: "us-east-1", Account: "000000000000"}}
	c, err := s.callerFor("AKID", &exchange{remote: "127.0.0.1:5"})
	if err != nil {
		b.Fatal(err)
	}
	return (&exchange{ctx: context.Background(), caller: c}).authorizing()
}

func benchAuthorize(b *testing.B, ctx context.Context, h handler, body func(i int) string) {
	eng, err := engine.Open(memory.New(), engine.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	if _, err := createTable(context.Background(), eng, []byte(`{"TableName":"bench","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)); err != nil {
		b.Fatal(err)
	}
	bodies := make([][]byte, 64)
	for i := range bodies {
		bodies[i] = []byte(body(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h(ctx, eng, bodies[i%len(bodies)]); err != nil {
			b.Fatal(err)
		}
	}
}

const leadingCond = `,"Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:username}"]}}`

func getBody(int) string { return `{"TableName":"bench","Key":{"pk":{"S":"A#001"}}}` }
func putBody(i int) string {
	return fmt.Sprintf(`{"TableName":"bench","Item":{"pk":{"S":"A#001"},"n":{"N":"%d"},"payload":{"S":"%s"}}}`, i, strings.Repeat("x", 1000))
}

// BenchmarkAuthorize runs GetItem and PutItem with no authorization, 20
// static statements and 20 statements conditioned on LeadingKeys.
func BenchmarkAuthorize(b *testing.B) {
	ops := []struct {
		name string
		h    handler
		body func(int) string
	}{{"GetItem", getItem, getBody}, {"PutItem", putItem, putBody}}
	for _, op := range ops {
		b.Run(op.name+"/none", func(b *testing.B) { benchAuthorize(b, context.Background(), op.h, op.body) })
		b.Run(op.name+"/20", func(b *testing.B) { benchAuthorize(b, benchPolicies(b, ""), op.h, op.body) })
		b.Run(op.name+"/20LeadingKeys", func(b *testing.B) { benchAuthorize(b, benchPolicies(b, leadingCond), op.h, op.body) })
	}
}
