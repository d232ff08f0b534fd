package arns

import "testing"

var scope = Scope{Region: "us-east-1", AccountID: "000000000000"}

// TestParse: a table's ARN and its stream's in this region are read; any
// other is refused in DynamoDB's words and exception.
func TestParse(t *testing.T) {
	const tbl = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"
	for _, tc := range []struct {
		arn, typ, msg string
		want          Resource
	}{
		{arn: tbl, want: Resource{Table: "tbl", Account: "000000000000"}},
		{arn: tbl + "/stream/2024-01-01T00:00:00.000", want: Resource{Table: "tbl", Sub: "stream/2024-01-01T00:00:00.000", Account: "000000000000"}},
		{arn: "arn:aws:dynamodb:us-east-1:111111111111:table/tbl", want: Resource{Table: "tbl", Account: "111111111111"}},
		{arn: "table/tbl", typ: "ValidationException", msg: "One or more parameter values were invalid: ARNs must start with 'arn:': table/tbl"},
		{arn: "arn:aws:dynamodb:us-east-1", typ: "ValidationException", msg: "Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:us-east-1"},
		{arn: "arn:aws:s3:us-east-1:000000000000:table/tbl", typ: "ValidationException", msg: "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: arn:aws:s3:us-east-1:000000000000:table/tbl"},
		{arn: tbl + "/backup/01", typ: "ValidationException", msg: "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: " + tbl + "/backup/01"},
		{arn: tbl + "/index/gsi", typ: "ValidationException", msg: "One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: " + tbl + "/index/gsi"},
		{arn: "arn:aws:dynamodb:eu-west-1:000000000000:table/tbl", typ: "ValidationException", msg: "Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:eu-west-1:000000000000:table/tbl"},
		{arn: "arn:aws:dynamodb:us-east-1:000000000000:table/t", typ: "ValidationException", msg: "Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:us-east-1:000000000000:table/t"},
	} {
		got, err := scope.Parse(tc.arn)
		if tc.typ == "" {
			if err != nil || got != tc.want {
				t.Errorf("Parse(%s) = %+v, %v; want %+v", tc.arn, got, err, tc.want)
			}
			continue
		}
		if err == nil || err.Type != tc.typ || err.Message != tc.msg {
			t.Errorf("Parse(%s) = %v; want %s %q", tc.arn, err, tc.typ, tc.msg)
		}
	}
	if _, err := scope.ParseTable(tbl + "/stream/x"); err == nil || err.Type != "ResourceNotFoundException" ||
		err.Message != "Requested resource not found: ResourceArn: "+tbl+"/stream/x not found" {
		t.Errorf("ParseTable of a stream ARN: %v", err)
	}
}

// TestAuthorize: another account's ARN is refused in IAM's cross-account
// words; this account's, or a string that is not an ARN, is left to the
// operation.
func TestAuthorize(t *testing.T) {
	other := "arn:aws:dynamodb:us-east-1:111111111111:table/tbl"
	err := scope.Authorize("TagResource", other)
	if err == nil || err.Type != "AccessDeniedException" || err.Message != "User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:TagResource on resource: "+other+" because no resource-based policy allows the dynamodb:TagResource action" {
		t.Fatalf("Authorize(other account) = %v", err)
	}
	for _, arn := range []string{"arn:aws:dynamodb:us-east-1:000000000000:table/tbl", "table/tbl", "arn:aws:dynamodb"} {
		if err := scope.Authorize("TagResource", arn); err != nil {
			t.Errorf("Authorize(%s) = %v", arn, err)
		}
	}
	if err := scope.AccessDenied("ListTagsOfResource", "r", false); err.Message != "User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:ListTagsOfResource on resource: r" {
		t.Errorf("AccessDenied without the reason: %v", err)
	}
}

// TestValidTableName: 3 to 255 of [a-zA-Z0-9_.-].
func TestValidTableName(t *testing.T) {
	long := make([]byte, 256)
	for i := range long {
		long[i] = 'a'
	}
	for s, want := range map[string]bool{"abc": true, "a-b_c.d": true, "ab": false, "a b": false, string(long): false, string(long[:255]): true} {
		if ValidTableName(s) != want {
			t.Errorf("ValidTableName(%q) != %v", s, want)
		}
	}
}
