package iam

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// authDetailsDoc is a get-account-authorization-details document in the
// shape the API prints: an inline policy URL-encoded, a group's managed
// policy with two versions (v2 the default), a role.
func authDetailsDoc() string {
	inline := url.QueryEscape(`{"Version":"2012-10-17","Statement":[{"Sid":"Inline","Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}]}`)
	return `{
 "UserDetailList": [
  {"Path":"/","UserName":"alice","UserId":"AIDAALICE","Arn":"arn:aws:iam::` + acct + `:user/alice",
   "GroupList":["readers"],"Tags":[{"Key":"team","Value":"blue"}],
   "UserPolicyList":[{"PolicyName":"own","PolicyDocument":"` + inline + `"}],
   "AttachedManagedPolicies":[]},
  {"UserName":"bob","UserId":"AIDABOB","Arn":"arn:aws:iam::` + acct + `:user/bob","GroupList":[],"AttachedManagedPolicies":[{"PolicyName":"NoDelete","PolicyArn":"arn:aws:iam::` + acct + `:policy/NoDelete"}]}
 ],
 "GroupDetailList": [
  {"GroupName":"readers","GroupId":"AGPA1","Arn":"arn:aws:iam::` + acct + `:group/readers","GroupPolicyList":[],
   "AttachedManagedPolicies":[{"PolicyName":"Read","PolicyArn":"arn:aws:iam::` + acct + `:policy/Read"}]}
 ],
 "RoleDetailList": [
  {"RoleName":"app","RoleId":"AROAAPP","Arn":"arn:aws:iam::` + acct + `:role/app",
   "RolePolicyList":[{"PolicyName":"all","PolicyDocument":{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}}],
   "AttachedManagedPolicies":[]}
 ],
 "Policies": [
  {"PolicyName":"Read","Arn":"arn:aws:iam::` + acct + `:policy/Read","DefaultVersionId":"v2","PolicyVersionList":[
    {"VersionId":"v1","IsDefaultVersion":false,"Document":{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}},
    {"VersionId":"v2","IsDefaultVersion":true,"Document":{"Version":"2012-10-17","Statement":{"Sid":"Q","Effect":"Allow","Action":"dynamodb:Query","Resource":"*"}}}]},
  {"PolicyName":"NoDelete","Arn":"arn:aws:iam::` + acct + `:policy/NoDelete","DefaultVersionId":"v1","PolicyVersionList":[
    {"VersionId":"v1","IsDefaultVersion":true,"Document":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},{"Sid":"D","Effect":"Deny","Action":"dynamodb:DeleteTable","Resource":"*"}]}}]}
 ]
}`
}

func TestAccount(t *testing.T) {
	a, err := ParseAccount(acct, []byte(authDetailsDoc()))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(p *Principal, action string) Decision {
		return Evaluate(&Request{Principal: p, Action: action, Resource: table, Context: MapContext{}}, nil)
	}
	alice, err := a.Resolve("alice", "K")
	if err != nil {
		t.Fatal(err)
	}
	if d := decide(alice, "dynamodb:GetItem"); !d.Allowed || d.Policy != "own" || d.Sid != "Inline" {
		t.Fatalf("alice GetItem (inline, URL-encoded): %+v", d)
	}
	if d := decide(alice, "dynamodb:Query"); !d.Allowed || d.Sid != "Q" {
		t.Fatalf("alice Query (group's managed policy, default version): %+v", d)
	}
	if d := decide(alice, "dynamodb:PutItem"); d.Allowed {
		t.Fatalf("alice PutItem (only in a non-default version): %+v", d)
	}
	if v, _ := WithPrincipal(alice, nil).Get("aws:PrincipalTag/team"); len(v) != 1 || v[0] != "blue" {
		t.Fatalf("aws:PrincipalTag/team = %v", v)
	}
	bob, _ := a.Resolve("bob", "K")
	if d := decide(bob, "dynamodb:DeleteTable"); d.Allowed || !d.ExplicitDeny {
		t.Fatalf("bob DeleteTable: %+v", d)
	}
	app, err := a.Resolve("arn:aws:iam::"+acct+":role/app", "AKIDAPP")
	if err != nil {
		t.Fatal(err)
	}
	if app.ARN != "arn:aws:sts::"+acct+":assumed-role/app/AKIDAPP" || app.UserID != "AROAAPP:AKIDAPP" {
		t.Fatalf("role session: %+v", app)
	}
	if v, _ := WithPrincipal(app, nil).Get("aws:PrincipalArn"); v[0] != "arn:aws:iam::"+acct+":role/app" {
		t.Fatalf("aws:PrincipalArn of a session = %v", v)
	}
	sess, err := a.Resolve("arn:aws:sts::"+acct+":assumed-role/app/build", "K")
	if err != nil || sess.ARN != "arn:aws:sts::"+acct+":assumed-role/app/build" {
		t.Fatalf("named session: %+v %v", sess, err)
	}
	if !decide(app, "dynamodb:DeleteTable").Allowed {
		t.Fatal("role denied")
	}
	for _, name := range []string{"carol", "arn:aws:iam::" + acct + ":role/none", "arn:aws:sts::" + acct + ":assumed-role/app"} {
		if _, err := a.Resolve(name, "K"); err == nil {
			t.Errorf("%s resolved", name)
		}
	}
	if root, _ := a.Resolve("", "K"); !root.Root {
		t.Fatal("no principal is not root")
	}
}

func TestAccountRefuses(t *testing.T) {
	for _, doc := range []string{
		`[]`,
		`{"UserDetailList":[{"UserName":"u","AttachedManagedPolicies":[{"PolicyArn":"arn:aws:iam::aws:policy/Missing"}]}]}`,
		`{"UserDetailList":[{"UserName":"u","GroupList":["nogroup"]}]}`,
		`{"UserDetailList":[{"UserName":"u","UserPolicyList":[{"PolicyName":"bad","PolicyDocument":"%7B"}]}]}`,
	} {
		if _, err := ParseAccount(acct, []byte(doc)); err == nil {
			t.Errorf("%s loaded", doc)
		}
	}
}

// A reload that fails keeps the policies in force; one that succeeds
// replaces them (and the cached decisions) under a new version.
func TestAuthorizerReload(t *testing.T) {
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(authDetailsDoc()), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := New(file, acct, map[string]string{"AKIDALICE": "alice", "AKIDGHOST": "ghost"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Principal("AKIDGHOST"); err == nil {
		t.Fatal("a key for a user not in the file has a principal")
	}
	if p, _ := a.Principal("AKIDROOT"); !p.Root {
		t.Fatal("a key without a principal is not root")
	}
	get := func() bool {
		p, err := a.Principal("AKIDALICE")
		if err != nil {
			t.Fatal(err)
		}
		return a.Decide(&Request{Principal: p, Action: "dynamodb:GetItem", Resource: table, Context: MapContext{}}, nil).Allowed
	}
	first := get()
	second := get() // from the cache
	if !first || !second {
		t.Fatal("alice GetItem denied")
	}
	os.WriteFile(file, []byte("{not json"), 0o600)
	if a.Reload() == nil || a.Version() != 1 || !get() {
		t.Fatal("a bad file replaced the policies")
	}
	os.WriteFile(file, []byte(`{"UserDetailList":[{"UserName":"alice","Arn":"arn:aws:iam::`+acct+`:user/alice"}]}`), 0o600)
	if err := a.Reload(); err != nil || a.Version() != 2 || get() {
		t.Fatalf("reload: %v version %d", err, a.Version())
	}
	// Watch picks up a change of the file by itself.
	ctx, cancel := contextWithCancel()
	defer cancel()
	go a.Watch(ctx, 10*time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	os.WriteFile(file, []byte(authDetailsDoc()), 0o600)
	for deadline := time.Now().Add(5 * time.Second); a.Version() < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the change was not picked up")
		}
	}
	if !get() {
		t.Fatal("alice GetItem denied after the watched reload")
	}
}
