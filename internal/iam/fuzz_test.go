package iam

import (
	"context"
	"testing"
)

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// FuzzPolicy parses arbitrary documents and evaluates whatever parses: no
// panic, Evaluate is deterministic, and a document PutResourcePolicy's
// check accepts parses.
func FuzzPolicy(f *testing.F) {
	f.Add(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`, "dynamodb:GetItem", table, "alice")
	f.Add(`{"Statement":[{"Effect":"Deny","NotAction":"a?*","NotResource":["${aws:username}*"],"Condition":{"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["${aws:username, 'x'}"]}}}]}`, "a", "b", "*")
	f.Add(`{"Statement":{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":"*","Condition":{"NumericLessThanIfExists":{"n":[1,"2"]},"DateGreaterThan":{"aws:CurrentTime":"2020-01-01"},"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"Null":{"x":true}}}}`, "x", "y", "z")
	f.Fuzz(func(t *testing.T, doc, action, resource, value string) {
		p, err := Parse("fuzz", []byte(doc))
		for _, stream := range []bool{false, true} {
			if CheckResourcePolicy([]byte(doc), stream) == nil && err != nil {
				t.Fatalf("accepted as a resource-based policy but does not parse: %v", err)
			}
		}
		if err != nil {
			return
		}
		ctx := MapContext{"dynamodb:leadingkeys": {value}, "n": {value}, "aws:sourceip": {value}, "aws:currenttime": {value}}
		pr := &Principal{ARN: "arn:aws:iam::1:user/" + value, Account: "1", UserName: value, Policies: []*Policy{p}}
		r := &Request{Principal: pr, Action: action, Resource: resource, Context: ctx}
		d1 := Evaluate(r, p)
		d2 := Evaluate(r, p)
		if d1 != d2 {
			t.Fatalf("not deterministic: %+v %+v", d1, d2)
		}
		if d1.Allowed && d1.ExplicitDeny {
			t.Fatalf("allowed by an explicit deny: %+v", d1)
		}
	})
}

// FuzzWildcard checks the matcher, and a compiled pattern, against a
// plain recursive one.
func FuzzWildcard(f *testing.F) {
	f.Add("a*b?c", "axxbyc")
	f.Add("*", "")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 12 || len(s) > 24 {
			return // the reference is exponential
		}
		want := slowMatch(pattern, s)
		if got := wildcard(pattern, s, false); got != want {
			t.Fatalf("wildcard(%q, %q) = %v, want %v", pattern, s, got, want)
		}
		p := compile(pattern)
		if got := p.match(s, false); got != want {
			t.Fatalf("compiled %q matching %q = %v, want %v", pattern, s, got, want)
		}
	})
}

func slowMatch(p, s string) bool {
	if p == "" {
		return s == ""
	}
	switch p[0] {
	case '*':
		return slowMatch(p[1:], s) || (s != "" && slowMatch(p, s[1:]))
	case '?':
		return s != "" && slowMatch(p[1:], s[1:])
	}
	return s != "" && s[0] == p[0] && slowMatch(p[1:], s[1:])
}
