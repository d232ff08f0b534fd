package iam

import (
	"strings"
	"testing"
)

const acct = "123456789012"

func mustParse(t testing.TB, name, doc string) *Policy {
	t.Helper()
	p, err := Parse(name, []byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

func user(t testing.TB, docs ...string) *Principal {
	p := &Principal{ARN: "arn:aws:iam::" + acct + ":user/alice", Account: acct, UserName: "alice", UserID: "AIDAALICE"}
	for i, d := range docs {
		p.Policies = append(p.Policies, mustParse(t, "p"+string(rune('1'+i)), d))
	}
	return p
}

const table = "arn:aws:dynamodb:us-east-1:" + acct + ":table/T"

// The decision table: principals' policies × a resource policy × a
// request, and the decision AWS's evaluation logic gives.
func TestDecisionTable(t *testing.T) {
	allowGet := `{"Version":"2012-10-17","Statement":{"Sid":"G","Effect":"Allow","Action":"dynamodb:GetItem","Resource":"` + table + `"}}`
	allowAll := `{"Version":"2012-10-17","Statement":[{"Sid":"All","Effect":"Allow","Action":"dynamodb:*","Resource":"*"}]}`
	denyDelete := `{"Version":"2012-10-17","Statement":[{"Sid":"NoDel","Effect":"Deny","Action":["dynamodb:Delete*"],"Resource":"arn:aws:dynamodb:*:*:table/*"}]}`
	notAction := `{"Version":"2012-10-17","Statement":[{"Sid":"NA","Effect":"Allow","NotAction":"dynamodb:DeleteTable","Resource":"*"}]}`
	notResource := `{"Version":"2012-10-17","Statement":[{"Sid":"NR","Effect":"Allow","Action":"dynamodb:*","NotResource":"arn:aws:dynamodb:*:*:table/Secret*"}]}`
	question := `{"Version":"2012-10-17","Statement":[{"Sid":"Q","Effect":"Allow","Action":"dynamodb:GetIte?","Resource":"arn:aws:dynamodb:us-east-1:` + acct + `:table/?"}]}`
	leading := `{"Version":"2012-10-17","Statement":[{"Sid":"Rows","Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:PutItem"],"Resource":"` + table + `",
		"Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:username}"]}}}]}`
	attrs := `{"Version":"2012-10-17","Statement":[{"Sid":"Cols","Effect":"Allow","Action":"dynamodb:GetItem","Resource":"` + table + `",
		"Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["id","name"]},"StringEqualsIfExists":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES"}}}]}`
	ip := `{"Version":"2012-10-17","Statement":[{"Sid":"Net","Effect":"Allow","Action":"dynamodb:*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"Bool":{"aws:SecureTransport":"true"}}}]}`
	varResource := `{"Version":"2012-10-17","Statement":[{"Sid":"Own","Effect":"Allow","Action":"dynamodb:*","Resource":"arn:aws:dynamodb:*:*:table/${aws:username}-*"}]}`
	rpAllowAlice := `{"Version":"2012-10-17","Statement":[{"Sid":"RP","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + acct + `:user/alice"},"Action":"dynamodb:GetItem","Resource":"*"}]}`
	rpDenyAll := `{"Version":"2012-10-17","Statement":[{"Sid":"RPDeny","Effect":"Deny","Principal":"*","Action":"dynamodb:*","Resource":"*"}]}`
	rpAccount := `{"Version":"2012-10-17","Statement":[{"Sid":"Acct","Effect":"Allow","Principal":{"AWS":"` + acct + `"},"Action":"dynamodb:*","Resource":"*"}]}`

	type row struct {
		name     string
		policies []string
		resource string
		action   string
		res      string
		ctx      MapContext
		allowed  bool
		explicit bool
		inRes    bool
		sid      string
	}
	rows := []row{
		{"no policy", nil, "", "dynamodb:GetItem", table, nil, false, false, false, ""},
		{"allow", []string{allowGet}, "", "dynamodb:GetItem", table, nil, true, false, false, "G"},
		{"allow other action", []string{allowGet}, "", "dynamodb:PutItem", table, nil, false, false, false, ""},
		{"action case-insensitive", []string{allowGet}, "", "DynamoDB:getitem", table, nil, true, false, false, "G"},
		{"resource case-sensitive", []string{allowGet}, "", "dynamodb:GetItem", strings.ToLower(table), nil, false, false, false, ""},
		{"explicit deny wins", []string{allowAll, denyDelete}, "", "dynamodb:DeleteItem", table, nil, false, true, false, "NoDel"},
		{"deny does not cover", []string{allowAll, denyDelete}, "", "dynamodb:PutItem", table, nil, true, false, false, "All"},
		{"NotAction allows others", []string{notAction}, "", "dynamodb:Query", table, nil, true, false, false, "NA"},
		{"NotAction excludes", []string{notAction}, "", "dynamodb:DeleteTable", table, nil, false, false, false, ""},
		{"NotResource allows others", []string{notResource}, "", "dynamodb:GetItem", table, nil, true, false, false, "NR"},
		{"NotResource excludes", []string{notResource}, "", "dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:" + acct + ":table/Secrets", nil, false, false, false, ""},
		{"? wildcard", []string{question}, "", "dynamodb:GetItem", table, nil, true, false, false, "Q"},
		{"? is one character", []string{question}, "", "dynamodb:GetItem", table + "2", nil, false, false, false, ""},
		{"leading keys own", []string{leading}, "", "dynamodb:GetItem", table, MapContext{"dynamodb:leadingkeys": {"alice"}}, true, false, false, "Rows"},
		{"leading keys other", []string{leading}, "", "dynamodb:GetItem", table, MapContext{"dynamodb:leadingkeys": {"bob"}}, false, false, false, ""},
		{"leading keys mixed", []string{leading}, "", "dynamodb:PutItem", table, MapContext{"dynamodb:leadingkeys": {"alice", "bob"}}, false, false, false, ""},
		{"attributes subset", []string{attrs}, "", "dynamodb:GetItem", table, MapContext{"dynamodb:attributes": {"id"}, "dynamodb:select": {"SPECIFIC_ATTRIBUTES"}}, true, false, false, "Cols"},
		{"attributes beyond", []string{attrs}, "", "dynamodb:GetItem", table, MapContext{"dynamodb:attributes": {"id", "salary"}}, false, false, false, ""},
		{"IfExists absent", []string{attrs}, "", "dynamodb:GetItem", table, MapContext{"dynamodb:attributes": {"name"}}, true, false, false, "Cols"},
		{"IfExists present, wrong", []string{attrs}, "", "dynamodb:GetItem", table, MapContext{"dynamodb:attributes": {"name"}, "dynamodb:select": {"ALL_ATTRIBUTES"}}, false, false, false, ""},
		{"ip and tls", []string{ip}, "", "dynamodb:GetItem", table, MapContext{"aws:sourceip": {"10.1.2.3"}, "aws:securetransport": {"true"}}, true, false, false, "Net"},
		{"ip outside", []string{ip}, "", "dynamodb:GetItem", table, MapContext{"aws:sourceip": {"192.168.1.1"}, "aws:securetransport": {"true"}}, false, false, false, ""},
		{"variable in resource", []string{varResource}, "", "dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:" + acct + ":table/alice-notes", nil, true, false, false, "Own"},
		{"variable other", []string{varResource}, "", "dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:" + acct + ":table/bob-notes", nil, false, false, false, ""},
		{"resource policy only", nil, rpAllowAlice, "dynamodb:GetItem", table, nil, true, false, true, "RP"},
		{"resource policy other action", nil, rpAllowAlice, "dynamodb:PutItem", table, nil, false, false, false, ""},
		{"resource policy deny", []string{allowAll}, rpDenyAll, "dynamodb:GetItem", table, nil, false, true, true, "RPDeny"},
		{"account principal delegates", nil, rpAccount, "dynamodb:GetItem", table, nil, false, false, false, ""},
		{"account principal and identity", []string{allowGet}, rpAccount, "dynamodb:GetItem", table, nil, true, false, false, "G"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			var rp *Policy
			if r.resource != "" {
				rp = mustParse(t, "resource", r.resource)
			}
			d := Evaluate(&Request{Principal: user(t, r.policies...), Action: r.action, Resource: r.res, Context: r.ctx}, rp)
			if d.Allowed != r.allowed || d.ExplicitDeny != r.explicit || d.InResource != r.inRes || d.Sid != r.sid {
				t.Fatalf("got %+v, want allowed=%v explicit=%v inResource=%v sid=%q", d, r.allowed, r.explicit, r.inRes, r.sid)
			}
		})
	}
}

func TestRootIsAllowedEverything(t *testing.T) {
	d := Evaluate(&Request{Principal: &Principal{Root: true, Account: acct}, Action: "dynamodb:DeleteTable", Resource: table}, nil)
	if !d.Allowed {
		t.Fatal("root denied")
	}
}

func TestConditionOperators(t *testing.T) {
	cases := []struct {
		op, key string
		vals    string // JSON
		ctx     MapContext
		want    bool
	}{
		{"StringEquals", "k", `"a"`, MapContext{"k": {"a"}}, true},
		{"StringEquals", "k", `"a"`, nil, false},
		{"StringNotEquals", "k", `"a"`, nil, true},
		{"StringNotEquals", "k", `["a","b"]`, MapContext{"k": {"b"}}, false},
		{"StringEqualsIgnoreCase", "k", `"ABC"`, MapContext{"k": {"abc"}}, true},
		{"StringLike", "k", `"a*c"`, MapContext{"k": {"abbbc"}}, true},
		{"StringNotLike", "k", `"a*c"`, MapContext{"k": {"abbbd"}}, true},
		{"NumericLessThan", "k", `10`, MapContext{"k": {"9.5"}}, true},
		{"NumericGreaterThanEquals", "k", `"10"`, MapContext{"k": {"9"}}, false},
		{"NumericEquals", "k", `"x"`, MapContext{"k": {"1"}}, false},
		{"DateLessThan", "aws:CurrentTime", `"2030-01-01T00:00:00Z"`, MapContext{"aws:currenttime": {"2026-12-01T00:00:00Z"}}, true},
		{"DateGreaterThan", "aws:EpochTime", `"2030-01-01"`, MapContext{"aws:epochtime": {"1764547200"}}, false},
		{"Bool", "aws:SecureTransport", `false`, MapContext{"aws:securetransport": {"false"}}, true},
		{"IpAddress", "aws:SourceIp", `["203.0.113.0/24","::1"]`, MapContext{"aws:sourceip": {"::1"}}, true},
		{"NotIpAddress", "aws:SourceIp", `"203.0.113.0/24"`, MapContext{"aws:sourceip": {"203.0.113.9"}}, false},
		{"ArnLike", "aws:PrincipalArn", `"arn:aws:iam::*:user/a*"`, MapContext{"aws:principalarn": {"arn:aws:iam::1:user/alice"}}, true},
		{"ArnNotEquals", "aws:PrincipalArn", `"arn:aws:iam::1:user/alice"`, MapContext{"aws:principalarn": {"arn:aws:iam::1:user/alice"}}, false},
		{"Null", "k", `"true"`, nil, true},
		{"Null", "k", `"false"`, nil, false},
		{"StringEqualsIfExists", "k", `"a"`, nil, true},
		{"StringEqualsIfExists", "k", `"a"`, MapContext{"k": {"b"}}, false},
		{"ForAllValues:StringEquals", "k", `["a","b"]`, MapContext{"k": {"a", "b"}}, true},
		{"ForAllValues:StringEquals", "k", `["a"]`, nil, true},
		{"ForAnyValue:StringEquals", "k", `["a"]`, MapContext{"k": {"c", "a"}}, true},
		{"ForAnyValue:StringEquals", "k", `["a"]`, nil, false},
		{"ForAllValues:StringLike", "k", `["a*"]`, MapContext{"k": {"ab", "b"}}, false},
	}
	for _, c := range cases {
		doc := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"` + c.op + `":{"` + c.key + `":` + c.vals + `}}}}`
		p := mustParse(t, "p", doc)
		ctx := c.ctx
		if ctx == nil {
			ctx = MapContext{}
		}
		d := Evaluate(&Request{Principal: &Principal{ARN: "arn:aws:iam::1:user/alice", Policies: []*Policy{p}}, Action: "dynamodb:GetItem", Resource: table, Context: ctx}, nil)
		if d.Allowed != c.want {
			t.Errorf("%s %s %s with %v: allowed %v, want %v", c.op, c.key, c.vals, c.ctx, d.Allowed, c.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, doc := range []string{
		`[]`,
		`{"Version":"2012-10-17"}`,
		`{"Version":"2099-01-01","Statement":[]}`,
		`{"Statement":{"Effect":"Maybe","Action":"*","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","NotAction":"*","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringSorta":{"k":"v"}}}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"ForSomeValues:StringEquals":{"k":"v"}}}}`,
		`{"Statement":{"Effect":"Allow","Action":[],"Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Principal":"someone"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Bogus":1}}`,
	} {
		if _, err := Parse("p", []byte(doc)); err == nil {
			t.Errorf("%s parsed", doc)
		}
	}
}

func TestWildcard(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"", "", true}, {"a*", "a", true}, {"*a", "ba", true}, {"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false}, {"a?c", "abc", true}, {"a?c", "ac", false}, {"**", "x", true}, {"a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaa", false},
	} {
		if got := wildcard(c.p, c.s, false); got != c.want {
			t.Errorf("wildcard(%q, %q) = %v", c.p, c.s, got)
		}
	}
}
