package test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Authorization with --iam-file: a get-account-authorization-details
// document and a credentials file whose keys act as its users and roles.

const iamAccount = "000000000000" // Kura's default account

func iamARN(kind, name string) string { return "arn:aws:iam::" + iamAccount + ":" + kind + "/" + name }

func tableARN(name string) string {
	return "arn:aws:dynamodb:us-east-1:" + iamAccount + ":table/" + name
}

// iamDetails is the IAM file: alice may read and write only the rows of
// "Notes" whose partition key is her user name; bob may do anything but
// delete tables (an explicit deny); carol anything but Delete* (NotAction);
// frank may read only two attributes of Notes, Query it with Select COUNT
// or no Select (IfExists), and describe every table but Notes
// (NotResource); ops may use the operator endpoints (kura:Admin); nobody
// has no policy; the role app may only list tags (a table's resource-based
// policy grants it GetItem).
func iamDetails(nobodyPolicy string) string {
	return `{
 "UserDetailList": [
  {"UserName":"alice","UserId":"AIDAALICE","Arn":"` + iamARN("user", "alice") + `","GroupList":[],
   "UserPolicyList":[{"PolicyName":"own-rows","PolicyDocument":{"Version":"2012-10-17","Statement":[
     {"Sid":"OwnRows","Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:PutItem","dynamodb:Query"],
      "Resource":"` + tableARN("Notes") + `",
      "Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:username}"]}}}]}}]},
  {"UserName":"bob","UserId":"AIDABOB","Arn":"` + iamARN("user", "bob") + `","GroupList":["admins"]},
  {"UserName":"carol","UserId":"AIDACAROL","Arn":"` + iamARN("user", "carol") + `",
   "UserPolicyList":[{"PolicyName":"no-deletes","PolicyDocument":"%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%7B%22Effect%22%3A%22Allow%22%2C%22NotAction%22%3A%22dynamodb%3ADelete%2A%22%2C%22Resource%22%3A%22%2A%22%7D%7D"}]},
  {"UserName":"dave","UserId":"AIDADAVE","Arn":"` + iamARN("user", "dave") + `",
   "UserPolicyList":[{"PolicyName":"blue-tables","PolicyDocument":{"Version":"2012-10-17","Statement":{"Sid":"Blue","Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*",
     "Condition":{"StringEquals":{"aws:ResourceTag/team":"blue"}}}}}]},
  {"UserName":"erin","UserId":"AIDAERIN","Arn":"` + iamARN("user", "erin") + `",
   "UserPolicyList":[{"PolicyName":"open-tables","PolicyDocument":{"Version":"2012-10-17","Statement":[
     {"Sid":"List","Effect":"Allow","Action":"dynamodb:ListTables","Resource":"*"},
     {"Sid":"Open","Effect":"Allow","Action":"dynamodb:DescribeTable","Resource":"` + tableARN("open-*") + `"}]}}]},
  {"UserName":"frank","UserId":"AIDAFRANK","Arn":"` + iamARN("user", "frank") + `",
   "UserPolicyList":[{"PolicyName":"fine-grained","PolicyDocument":{"Version":"2012-10-17","Statement":[
     {"Sid":"TwoAttributes","Effect":"Allow","Action":"dynamodb:GetItem","Resource":"` + tableARN("Notes") + `",
      "Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["owner","text"]},"Null":{"dynamodb:Attributes":"false"}}},
     {"Sid":"CountOrDefault","Effect":"Allow","Action":"dynamodb:Query","Resource":"` + tableARN("Notes") + `",
      "Condition":{"StringEqualsIfExists":{"dynamodb:Select":"COUNT"}}},
     {"Sid":"AllButNotes","Effect":"Allow","Action":"dynamodb:DescribeTable","NotResource":"` + tableARN("Notes") + `"}]}}]},
  {"UserName":"ops","UserId":"AIDAOPS","Arn":"` + iamARN("user", "ops") + `",
   "UserPolicyList":[{"PolicyName":"operator","PolicyDocument":{"Version":"2012-10-17","Statement":{"Sid":"Ops","Effect":"Allow","Action":"kura:Admin","Resource":"*"}}}]},
  {"UserName":"nobody","UserId":"AIDANOBODY","Arn":"` + iamARN("user", "nobody") + `"` + nobodyPolicy + `}
 ],
 "GroupDetailList": [
  {"GroupName":"admins","AttachedManagedPolicies":[{"PolicyName":"AllButDrop","PolicyArn":"` + iamARN("policy", "AllButDrop") + `"}]}
 ],
 "RoleDetailList": [
  {"RoleName":"app","RoleId":"AROAAPP","Arn":"` + iamARN("role", "app") + `",
   "RolePolicyList":[{"PolicyName":"tags","PolicyDocument":{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:ListTagsOfResource","Resource":"*"}}}]}
 ],
 "Policies": [
  {"PolicyName":"AllButDrop","Arn":"` + iamARN("policy", "AllButDrop") + `","DefaultVersionId":"v1","PolicyVersionList":[
   {"VersionId":"v1","IsDefaultVersion":true,"Document":{"Version":"2012-10-17","Statement":[
    {"Sid":"All","Effect":"Allow","Action":"dynamodb:*","Resource":"*"},
    {"Sid":"NoDrop","Effect":"Deny","Action":"dynamodb:DeleteTable","Resource":"*"}]}}]}
 ]
}`
}

func startIAMKura(t *testing.T, extra ...string) (*kura, string) {
	t.Helper()
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds")
	iamFile := filepath.Join(dir, "iam.json")
	lines := "AKIDROOT:root-secret\nAKIDALICE:s:alice\nAKIDBOB:s:bob\nAKIDCAROL:s:carol\nAKIDNOBODY:s:nobody\nAKIDDAVE:s:dave\nAKIDERIN:s:erin\nAKIDOPS:s:ops\nAKIDFRANK:s:frank\nAKIDAPP:s:" + iamARN("role", "app") + "\n"
	if err := os.WriteFile(creds, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(iamFile, []byte(iamDetails("")), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--credentials-file", creds, "--iam-file", iamFile}, extra...)
	if !slices.Contains(extra, "--data-dir") {
		args = append(args, "--in-memory")
	}
	return startKura(t, args...), iamFile
}

func denied(who, action, resource, why string) string {
	return "User: " + who + " is not authorized to perform: dynamodb:" + action + " on resource: " + resource + " " + why
}

func noIdentityPolicy(action string) string {
	return "because no identity-based policy allows the dynamodb:" + action + " action"
}

func TestIAMAuthorization(t *testing.T) {
	k, _ := startIAMKura(t, "--log-requests", "--log-level", "info")
	root := clientAs(k, "AKIDROOT", "root-secret")
	as := func(key string) *dynamodb.Client { return clientAs(k, key, "s") }
	for _, name := range []string{"Notes", "Shared"} {
		if _, err := root.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("owner"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}}}); err != nil {
			t.Fatal(err)
		}
	}
	alice, bobARN := iamARN("user", "alice"), iamARN("user", "bob")
	notes := tableARN("Notes")

	// Per-user rows: alice reads and writes her own partition only.
	own := map[string]types.AttributeValue{"owner": S("alice"), "text": S("hi")}
	if _, err := as("AKIDALICE").PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Notes"), Item: own}); err != nil {
		t.Fatalf("alice writes her row: %v", err)
	}
	if out, err := as("AKIDALICE").GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("Notes"), Key: map[string]types.AttributeValue{"owner": S("alice")}}); err != nil || out.Item == nil {
		t.Fatalf("alice reads her row: %v %v", out, err)
	}
	if _, err := as("AKIDALICE").Query(bg, &dynamodb.QueryInput{TableName: aws.String("Notes"), KeyConditionExpression: aws.String("#o = :o"),
		ExpressionAttributeNames: map[string]string{"#o": "owner"}, ExpressionAttributeValues: map[string]types.AttributeValue{":o": S("alice")}}); err != nil {
		t.Fatalf("alice queries her partition: %v", err)
	}
	_, err := as("AKIDALICE").GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("Notes"), Key: map[string]types.AttributeValue{"owner": S("bob")}})
	wantAPIError(t, err, "AccessDeniedException", denied(alice, "GetItem", notes, noIdentityPolicy("GetItem")))
	_, err = as("AKIDALICE").Query(bg, &dynamodb.QueryInput{TableName: aws.String("Notes"), KeyConditionExpression: aws.String("#o = :o"),
		ExpressionAttributeNames: map[string]string{"#o": "owner"}, ExpressionAttributeValues: map[string]types.AttributeValue{":o": S("bob")}})
	wantAPIError(t, err, "AccessDeniedException", denied(alice, "Query", notes, noIdentityPolicy("Query")))
	_, err = as("AKIDALICE").Scan(bg, &dynamodb.ScanInput{TableName: aws.String("Notes")})
	wantAPIError(t, err, "AccessDeniedException", denied(alice, "Scan", notes, noIdentityPolicy("Scan")))

	// Explicit deny beats the Allow of the same policy.
	if _, err := as("AKIDBOB").DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String("Notes")}); err != nil {
		t.Fatalf("bob describes: %v", err)
	}
	_, err = as("AKIDBOB").DeleteTable(bg, &dynamodb.DeleteTableInput{TableName: aws.String("Notes")})
	wantAPIError(t, err, "AccessDeniedException", denied(bobARN, "DeleteTable", notes, "with an explicit deny in an identity-based policy"))

	// NotAction: everything but Delete*.
	if _, err := as("AKIDCAROL").ListTables(bg, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("carol lists: %v", err)
	}
	_, err = as("AKIDCAROL").DeleteItem(bg, &dynamodb.DeleteItemInput{TableName: aws.String("Notes"), Key: map[string]types.AttributeValue{"owner": S("alice")}})
	wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "carol"), "DeleteItem", notes, noIdentityPolicy("DeleteItem")))

	// No policy at all.
	_, err = as("AKIDNOBODY").ListTables(bg, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "nobody"), "ListTables", "*", noIdentityPolicy("ListTables")))

	// A role session allowed only by the table's resource-based policy.
	session := "arn:aws:sts::" + iamAccount + ":assumed-role/app/AKIDAPP"
	shared := tableARN("Shared")
	policy := `{"Version":"2012-10-17","Statement":[{"Sid":"AppReads","Effect":"Allow","Principal":{"AWS":"` + iamARN("role", "app") + `"},"Action":"dynamodb:GetItem","Resource":"` + shared + `"}]}`
	if _, err := root.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(shared), Policy: aws.String(policy)}); err != nil {
		t.Fatal(err)
	}
	if _, err := as("AKIDAPP").GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("Shared"), Key: map[string]types.AttributeValue{"owner": S("x")}}); err != nil {
		t.Fatalf("the role reads through the resource policy: %v", err)
	}
	_, err = as("AKIDAPP").PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Shared"), Item: map[string]types.AttributeValue{"owner": S("x")}})
	wantAPIError(t, err, "AccessDeniedException", denied(session, "PutItem", shared, noIdentityPolicy("PutItem")))

	// A resource policy's Deny stops even bob.
	deny := `{"Version":"2012-10-17","Statement":[{"Sid":"Freeze","Effect":"Deny","Principal":"*","Action":"dynamodb:PutItem","Resource":"*"}]}`
	if _, err := root.PutResourcePolicy(bg, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(notes), Policy: aws.String(deny)}); err != nil {
		t.Fatal(err)
	}
	_, err = as("AKIDBOB").PutItem(bg, &dynamodb.PutItemInput{TableName: aws.String("Notes"), Item: own})
	wantAPIError(t, err, "AccessDeniedException", denied(bobARN, "PutItem", notes, "with an explicit deny in a resource-based policy"))

	if log := k.log.String(); !strings.Contains(log, "msg=authorization") || !strings.Contains(log, "allowed=false") || !strings.Contains(log, "sid=NoDrop") {
		t.Fatalf("--log-requests does not record the decisions:\n%s", log)
	}
}

// A denied request tells nothing about the resource: the same refusal
// whether the table exists or not, and before any check of the item.
func TestIAMDenialRevealsNothing(t *testing.T) {
	k, _ := startIAMKura(t)
	root := clientAs(k, "AKIDROOT", "root-secret")
	if _, err := root.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String("Secret"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("owner"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	nobody := clientAs(k, "AKIDNOBODY", "s")
	for _, name := range []string{"Secret", "NoSuchTable"} {
		_, err := nobody.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"wrongkey": S("x")}})
		wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "nobody"), "GetItem", tableARN(name), noIdentityPolicy("GetItem")))
		_, err = nobody.DescribeTable(bg, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "nobody"), "DescribeTable", tableARN(name), noIdentityPolicy("DescribeTable")))
	}
}

// SIGHUP reloads the IAM file; a file that does not parse keeps the
// policies in force.
func TestIAMReload(t *testing.T) {
	k, iamFile := startIAMKura(t)
	nobody := clientAs(k, "AKIDNOBODY", "s")
	if _, err := nobody.ListTables(bg, &dynamodb.ListTablesInput{}); err == nil {
		t.Fatal("nobody may list tables before the reload")
	}
	grant := `,"UserPolicyList":[{"PolicyName":"list","PolicyDocument":{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:ListTables","Resource":"*"}}}]`
	if err := os.WriteFile(iamFile, []byte(iamDetails(grant)), 0o600); err != nil {
		t.Fatal(err)
	}
	k.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool { _, err := nobody.ListTables(bg, &dynamodb.ListTablesInput{}); return err == nil })
	if err := os.WriteFile(iamFile, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	k.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, func() bool { return strings.Contains(k.log.String(), "previous policies stay in force") })
	if _, err := nobody.ListTables(bg, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("a broken file replaced the policies: %v", err)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// With --iam-file the operator endpoints need kura:Admin (the root user
// has it; bob's dynamodb:* does not cover it), and /admin/iam/simulate
// answers whether a key would be allowed an action.
func TestIAMAdmin(t *testing.T) {
	k, _ := startIAMKura(t, "--admin")
	post := func(path, key, secret, body string) (int, string) {
		req, err := http.NewRequest("POST", k.endpoint+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		signAs(t, req, key, secret, []byte(body))
		return do(t, req)
	}
	if code, body := post("/admin/ttl/expire", "AKIDROOT", "root-secret", ""); code != 200 {
		t.Fatalf("root: %d %s", code, body)
	}
	code, body := post("/admin/ttl/expire", "AKIDBOB", "s", "")
	want := denied(iamARN("user", "bob"), "Admin", "*", "")
	want = strings.Replace(want, "dynamodb:Admin", "kura:Admin", 1) + "because no identity-based policy allows the kura:Admin action"
	if code != 400 || !strings.Contains(body, "AccessDeniedException") || !strings.Contains(body, want) {
		t.Fatalf("bob: %d %s\nwant %s", code, body, want)
	}
	sim := func(req string) map[string]any {
		code, body := post("/admin/iam/simulate", "AKIDROOT", "root-secret", req)
		if code != 200 {
			t.Fatalf("simulate %s: %d %s", req, code, body)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	got := sim(`{"AccessKeyId":"AKIDALICE","Action":"dynamodb:GetItem","Resource":"` + tableARN("Notes") + `","Context":{"dynamodb:LeadingKeys":["alice"]}}`)
	if got["Allowed"] != true || got["Sid"] != "OwnRows" || got["Principal"] != iamARN("user", "alice") {
		t.Fatalf("alice's own row: %v", got)
	}
	if got := sim(`{"AccessKeyId":"AKIDALICE","Action":"dynamodb:GetItem","Resource":"` + tableARN("Notes") + `","Context":{"dynamodb:LeadingKeys":["bob"]}}`); got["Allowed"] != false {
		t.Fatalf("bob's row: %v", got)
	}
	if got := sim(`{"AccessKeyId":"AKIDBOB","Action":"dynamodb:DeleteTable","Resource":"*"}`); got["ExplicitDeny"] != true || got["Sid"] != "NoDrop" {
		t.Fatalf("bob DeleteTable: %v", got)
	}
}

// The same decisions through boto3 (test/clients/python/iam_check.py):
// its error parsing sees DynamoDB's code, text and status.
func TestBoto3IAM(t *testing.T) {
	if exec.Command("python3", "-c", "import boto3").Run() != nil {
		t.Skip("python3 with boto3 not available")
	}
	k, _ := startIAMKura(t)
	cmd := exec.Command("python3", "iam_check.py")
	cmd.Dir = "clients/python"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("iam_check.py: %v\n%s", err, out)
	}
	type answer struct {
		Call, Code, Message string
		OK                  bool
		Status              int
	}
	want := map[string]answer{
		"alice put own":    {OK: true},
		"alice get other":  {Code: "AccessDeniedException", Status: 400, Message: denied(iamARN("user", "alice"), "GetItem", tableARN("Notes"), noIdentityPolicy("GetItem"))},
		"bob delete table": {Code: "AccessDeniedException", Status: 400, Message: denied(iamARN("user", "bob"), "DeleteTable", tableARN("Notes"), "with an explicit deny in an identity-based policy")},
		"bob describe":     {OK: true},
		// The rest of the decision table: attributes, IfExists,
		// NotResource, a resource-based policy only, an assumed-role
		// session.
		"frank get two attributes":    {OK: true},
		"frank get another attribute": {Code: "AccessDeniedException", Status: 400, Message: denied(iamARN("user", "frank"), "GetItem", tableARN("Notes"), noIdentityPolicy("GetItem"))},
		"frank query without select":  {OK: true},
		"frank query all attributes":  {Code: "AccessDeniedException", Status: 400, Message: denied(iamARN("user", "frank"), "Query", tableARN("Notes"), noIdentityPolicy("Query"))},
		"frank describe shared":       {OK: true},
		"frank describe notes":        {Code: "AccessDeniedException", Status: 400, Message: denied(iamARN("user", "frank"), "DescribeTable", tableARN("Notes"), noIdentityPolicy("DescribeTable"))},
		"app get shared":              {OK: true},
		"app put shared":              {Code: "AccessDeniedException", Status: 400, Message: denied("arn:aws:sts::"+iamAccount+":assumed-role/app/AKIDAPP", "PutItem", tableARN("Shared"), noIdentityPolicy("PutItem"))},
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("iam_check.py printed:\n%s", out)
	}
	for _, line := range lines {
		var got answer
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		w := want[got.Call]
		w.Call = got.Call
		if got != w {
			t.Errorf("%s:\n got  %+v\n want %+v", got.Call, got, w)
		}
	}
}

// aws:ResourceTag/ reads the table's tags.
func TestIAMResourceTags(t *testing.T) {
	k, _ := startIAMKura(t)
	root := clientAs(k, "AKIDROOT", "root-secret")
	for name, tags := range map[string][]types.Tag{"Blue": {{Key: aws.String("team"), Value: aws.String("blue")}}, "Plain": nil} {
		if _, err := root.CreateTable(bg, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest, Tags: tags,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("owner"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}}}); err != nil {
			t.Fatal(err)
		}
	}
	dave := clientAs(k, "AKIDDAVE", "s")
	key := map[string]types.AttributeValue{"owner": S("x")}
	if _, err := dave.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("Blue"), Key: key}); err != nil {
		t.Fatalf("a table tagged team=blue: %v", err)
	}
	_, err := dave.GetItem(bg, &dynamodb.GetItemInput{TableName: aws.String("Plain"), Key: key})
	wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "dave"), "GetItem", tableARN("Plain"), noIdentityPolicy("GetItem")))
}

// The web console marks the tables its key may not describe
// (test/clients/js/console-iam.mjs, jsdom).
func TestConsoleIAM(t *testing.T) {
	if _, err := os.Stat("clients/js/node_modules/jsdom"); err != nil {
		t.Skip("jsdom not installed (run npm ci in test/clients/js)")
	}
	k, _ := startIAMKura(t)
	cmd := exec.Command("node", "--test", "console-iam.mjs")
	cmd.Dir = "clients/js"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("console with --iam-file: %v\n%s", err, out)
	}
}

// Keys that take turns on one keep-alive connection each get their own
// principal's decision.
func TestIAMSharedConnection(t *testing.T) {
	k, _ := startIAMKura(t)
	one := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}}
	as := func(key, secret string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(k.endpoint), HTTPClient: one,
			Credentials: credentials.NewStaticCredentialsProvider(key, secret, ""), RetryMaxAttempts: 1})
	}
	root, nobody := as("AKIDROOT", "root-secret"), as("AKIDNOBODY", "s")
	for range 3 {
		if _, err := root.ListTables(bg, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("root: %v", err)
		}
		_, err := nobody.ListTables(bg, &dynamodb.ListTablesInput{})
		wantAPIError(t, err, "AccessDeniedException", denied(iamARN("user", "nobody"), "ListTables", "*", noIdentityPolicy("ListTables")))
	}
}
