package test

import (
	"cmp"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// clientCredentials switches authentication on for the other clients'
// runs: every request they sign (with the key and secret "local") is
// checked, so each client's own SigV4 signer is tested against Kura's.
var clientCredentials = []string{"--credentials", "local:local"}

// TestBoto3 runs the seed workload flows written for Python's boto3
// (test/clients/python) against a real Kura (throughput enforced, for its
// throttling check; the flows' tables are on demand). boto3 is part of Kura's
// machine image; the test is skipped where python3 or boto3 is missing.
func TestBoto3(t *testing.T) {
	if exec.Command("python3", "-c", "import boto3").Run() != nil {
		t.Skip("python3 with boto3 not available")
	}
	k := startKura(t, append([]string{"--in-memory", "--admin", "--enforce-throughput", "--burst-capacity", "1s"}, clientCredentials...)...)
	cmd := exec.Command("python3", "-m", "unittest", "-v", "test_boto3")
	cmd.Dir = "clients/python"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("boto3 flows failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// awsCLI runs `aws dynamodb ...` against endpoint and returns its stdout.
func awsCLI(t *testing.T, endpoint string, args ...string) string {
	t.Helper()
	full := append([]string{"dynamodb", "--endpoint-url", endpoint, "--region", "us-east-1", "--output", "json"}, args...)
	cmd := exec.Command("aws", full...)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_PAGER=")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("aws %v: %v\n%s%s", args, err, out, stderr)
	}
	return string(out)
}

// TestAWSCLI drives Kura with the AWS CLI the way the seed applications'
// authors did (create-table with a GSI and a stream, put-item, query,
// get-item with --projection-expression, describe-table, a resource
// policy) and compares the output with what DynamoDB prints.
func TestAWSCLI(t *testing.T) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws CLI not available")
	}
	k := startKura(t, append([]string{"--in-memory"}, clientCredentials...)...)
	out := awsCLI(t, k.endpoint, "create-table", "--table-name", "ChatMessages",
		"--attribute-definitions", "AttributeName=conversation_id,AttributeType=S",
		"AttributeName=timestamp,AttributeType=S", "AttributeName=gsi_pk_user,AttributeType=S",
		"--key-schema", "AttributeName=conversation_id,KeyType=HASH", "AttributeName=timestamp,KeyType=RANGE",
		"--billing-mode", "PAY_PER_REQUEST",
		"--global-secondary-indexes", `[{"IndexName":"UserConversationsIndex","KeySchema":[{"AttributeName":"gsi_pk_user","KeyType":"HASH"},{"AttributeName":"timestamp","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["conversation_id","message_content"]}}]`,
		"--stream-specification", "StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES")
	for _, want := range []string{`"TableName": "ChatMessages"`, `"IndexName": "UserConversationsIndex"`, `"StreamViewType": "NEW_AND_OLD_IMAGES"`, `"TableArn": "arn:aws:dynamodb:us-east-1:000000000000:table/ChatMessages"`} {
		if !strings.Contains(out, want) {
			t.Fatalf("create-table output lacks %s:\n%s", want, out)
		}
	}
	awsCLI(t, k.endpoint, "put-item", "--table-name", "ChatMessages", "--item",
		`{"conversation_id":{"S":"c1"},"timestamp":{"S":"2025-11-05T10:00:00Z"},"gsi_pk_user":{"S":"U456"},"message_content":{"S":"こんにちは"},"metadata":{"M":{"rag_sources":{"L":[{"S":"doc-1"}]}}}}`)
	out = awsCLI(t, k.endpoint, "query", "--table-name", "ChatMessages",
		"--key-condition-expression", "conversation_id = :c",
		"--expression-attribute-values", `{":c":{"S":"c1"}}`)
	if !strings.Contains(out, `"Count": 1`) || !strings.Contains(out, `"ScannedCount": 1`) || !strings.Contains(out, "こんにちは") {
		t.Fatalf("query output:\n%s", out)
	}
	out = awsCLI(t, k.endpoint, "get-item", "--table-name", "ChatMessages",
		"--key", `{"conversation_id":{"S":"c1"},"timestamp":{"S":"2025-11-05T10:00:00Z"}}`,
		"--projection-expression", "message_content", "--query", "Item.message_content.S", "--output", "text")
	if strings.TrimSpace(out) != "こんにちは" {
		t.Fatalf("get-item --query text: %q", out)
	}
	out = awsCLI(t, k.endpoint, "update-time-to-live", "--table-name", "ChatMessages",
		"--time-to-live-specification", "Enabled=true,AttributeName=ttl")
	if !strings.Contains(out, `"Enabled": true`) || !strings.Contains(out, `"AttributeName": "ttl"`) {
		t.Fatalf("update-time-to-live output:\n%s", out)
	}
	out = awsCLI(t, k.endpoint, "describe-time-to-live", "--table-name", "ChatMessages", "--query", "TimeToLiveDescription.TimeToLiveStatus", "--output", "text")
	if strings.TrimSpace(out) != "ENABLED" {
		t.Fatalf("describe-time-to-live: %q", out)
	}
	out = awsCLI(t, k.endpoint, "describe-table", "--table-name", "ChatMessages", "--query", "Table.[TableStatus,ItemCount]", "--output", "text")
	if strings.Fields(out)[0] != "ACTIVE" {
		t.Fatalf("describe-table: %q", out)
	}
	// A resource-based policy, as an IaC script attaches one.
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/ChatMessages"
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:user/app"},"Action":"dynamodb:Query","Resource":"*"}]}`
	rev := strings.TrimSpace(awsCLI(t, k.endpoint, "put-resource-policy", "--resource-arn", arn, "--policy", policy, "--query", "RevisionId", "--output", "text"))
	out = awsCLI(t, k.endpoint, "get-resource-policy", "--resource-arn", arn, "--query", "[RevisionId,Policy]", "--output", "text")
	if got := strings.Fields(out); len(got) != 2 || got[0] != rev || got[1] != policy {
		t.Fatalf("get-resource-policy: %q (revision %q)", out, rev)
	}
}

// TestJavaScriptSDK runs the seed workload flows written for the AWS SDK for
// JavaScript v3 (test/clients/js, versions pinned in its lock file) against a
// real Kura, and the web console's tests (its client and signer in Node, its
// page in jsdom, all against the same Kura, which enforces throughput for
// throttle.test.js; the other files' tables are on demand or never
// written), and the S3 client's flows (s3.test.js) against Kura's S3 API. .ci/run installs the packages with `npm ci`; the test is
// skipped where node or the packages are missing.
func TestJavaScriptSDK(t *testing.T) {
	if _, err := os.Stat("clients/js/node_modules/@aws-sdk/client-dynamodb"); err != nil {
		t.Skip("JavaScript SDK not installed (run npm ci in test/clients/js)")
	}
	// --s3-dir for s3.test.js (the S3 API on the endpoint).
	k := startKura(t, append([]string{"--in-memory", "--enforce-throughput", "--burst-capacity", "1s", "--s3-dir", t.TempDir()}, clientCredentials...)...)
	cmd := exec.Command("node", "--test")
	cmd.Dir = "clients/js"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("JavaScript SDK flows failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestConsoleBrowser drives the web console in headless Chromium
// (test/clients/js/console-browser.mjs): under the Content-Security-Policy
// Kura serves it with, signing with the browser's WebCrypto, every feature
// used as a user uses it, a screenshot of each state. Skipped where
// Chromium or playwright-core is missing, unless KURA_REQUIRE_BROWSER is
// set (.ci/run installs Chromium and sets it).
func TestConsoleBrowser(t *testing.T) {
	browser := cmp.Or(os.Getenv("KURA_CHROMIUM"), "/usr/bin/chromium")
	_, errBrowser := os.Stat(browser)
	_, errDriver := os.Stat("clients/js/node_modules/playwright-core")
	if err := cmp.Or(errBrowser, errDriver); err != nil {
		if os.Getenv("KURA_REQUIRE_BROWSER") != "" {
			t.Fatalf("KURA_REQUIRE_BROWSER is set but the browser test cannot run: %v", err)
		}
		t.Skipf("no browser test: %v (install Debian's chromium and run npm ci in test/clients/js)", err)
	}
	k := startKura(t, append([]string{"--in-memory"}, clientCredentials...)...)
	cmd := exec.Command("node", "--test", "console-browser.mjs")
	cmd.Dir = "clients/js"
	// The screenshots of each page state: KURA_SCREENSHOTS, or a new
	// folder in the temp folder (named in the output).
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint, "KURA_CHROMIUM="+browser)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("console in Chromium failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestConsolePerKey drives the web console's page (jsdom) against a Kura
// with a database per access key and region, authentication off, and new
// tables CREATING for a second (test/clients/js/console-perkey.mjs).
func TestConsolePerKey(t *testing.T) {
	if _, err := os.Stat("clients/js/node_modules/jsdom"); err != nil {
		t.Skip("jsdom not installed (run npm ci in test/clients/js)")
	}
	k := startKura(t, "--in-memory", "--shared-db=false", "--create-delay", "1s")
	cmd := exec.Command("node", "--test", "console-perkey.mjs")
	cmd.Dir = "clients/js"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("console against per-key databases failed: %v\n%s", err, out)
	}
}

// TestConsoleRegions drives the web console's page (jsdom) against a Kura
// serving two regions: its region picker shows each one's tables
// (test/clients/js/console-regions.mjs).
func TestConsoleRegions(t *testing.T) {
	if _, err := os.Stat("clients/js/node_modules/jsdom"); err != nil {
		t.Skip("jsdom not installed (run npm ci in test/clients/js)")
	}
	k := startKura(t, "--in-memory", "--regions", "us-east-1,eu-west-1")
	cmd := exec.Command("node", "--test", "console-regions.mjs")
	cmd.Dir = "clients/js"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("console against two regions failed: %v\n%s", err, out)
	}
}
