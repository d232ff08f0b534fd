package iam

import "testing"

// The checks that depend on the policy's resource, and the order of the
// others; the black-box test (test/resource_policy_test.go) asserts each
// text as DynamoDB answers it.
func TestCheckResourcePolicy(t *testing.T) {
	const prefix = "One or more parameter values were invalid: Invalid policy document: "
	doc := func(actions, resource string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::1:user/u"},"Action":` +
			actions + `,"Resource":"` + resource + `"}]}`
	}
	const stream = "arn:aws:dynamodb:us-east-1:1:table/T/stream/2026-01-01T00:00:00.000"
	for _, tc := range []struct {
		doc    string
		stream bool
		want   string
	}{
		{doc(`"dynamodb:GetRecords"`, stream), true, ""},
		{doc(`["dynamodb:Get*","dynamodb:describestream"]`, "*"), true, ""},
		{doc(`"dynamodb:Get*"`, "*"), false, ""},
		{doc(`"dynamodb:Q*"`, "arn:aws:dynamodb:us-east-1:1:table/T/index/*"), false, ""},
		{doc(`"dynamodb:ListStreams"`, stream), true, prefix + `The following action names are invalid: "dynamodb:ListStreams"`},
		{doc(`["dynamodb:Query","dynamodb:Nothing*","dynamodb:nothing*"]`, "*"), true, prefix + `The following action names are invalid: "dynamodb:Query", "dynamodb:Nothing*"`},
		{doc(`"dynamodb:GetItem"`, stream), false, prefix + `The relative-id "table/T/stream/2026-01-01T00:00:00.000" is invalid for ARN "` + stream + `"`},
		{doc(`"dynamodb:GetRecords"`, "arn:aws:dynamodb:us-east-1:1:table/T/index/I"), true, prefix + `The relative-id "table/T/index/I" is invalid for ARN "arn:aws:dynamodb:us-east-1:1:table/T/index/I"`},
		// Action names are checked before resources, Effect before the
		// other fields.
		{doc(`"dynamodb:GetItem"`, "arn:aws:dynamodb:us-east-1:1:table/T"), true, prefix + `The following action names are invalid: "dynamodb:GetItem"`},
		{`{"Statement":[{"Resource":"*"}]}`, false, prefix + "Missing required field Effect"},
		{"  {}\n", false, prefix + "Syntax error at position (1,5)"},
		{"{\n}", false, prefix + "Syntax error at position (2,2)"},
		{`%7B%7D`, false, prefix + "This policy contains invalid Json"},
	} {
		got := ""
		if err := CheckResourcePolicy([]byte(tc.doc), tc.stream); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckResourcePolicy(%s, stream %v):\n got  %q\n want %q", tc.doc, tc.stream, got, tc.want)
		}
	}
}
