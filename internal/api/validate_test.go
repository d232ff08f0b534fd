package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/attr"
)

// Texts are Amazon DynamoDB's (us-east-1, newest wording; see
// shared/dynamodb-captures). The probe id is in each case name.
func TestValidationTexts(t *testing.T) {
	long := strings.Repeat("a", 256)
	rvBare := "Failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATE_NEW, NONE]"
	emptyTable := "1 validation error detected: Value at 'TableName' failed to satisfy constraint: Member must have length greater than or equal to 1"
	cases := []struct{ name, op, body, want string }{
		{"s_put_table_null", "PutItem", `{"Item":{}}`,
			"1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"},
		{"s_put_table_empty", "PutItem", `{"TableName":"","Item":{}}`, emptyTable},
		{"s_put_table_long", "PutItem", `{"TableName":"` + long + `","Item":{}}`,
			"1 validation error detected: Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"s_put_table_badchars", "PutItem", `{"TableName":"bad table!@#","Item":{}}`,
			"1 validation error detected: Value 'bad table!@#' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"s_ct_table_short", "CreateTable", `{"TableName":"ab","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`,
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"c_ct_3keys", "CreateTable", `{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"},{"AttributeName":"extra","KeyType":"RANGE"}]}`,
			"1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), KeySchemaElement(attributeName=extra, keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"},
		{"o_put_empty_table_empty_item", "PutItem", `{"TableName":"","Item":{}}`, emptyTable},
		{"o_put_empty_table_bad_rv", "PutItem", `{"TableName":"","Item":{},"ReturnValues":"INVALID"}`, emptyTable},
		{"o_put_three_bad_enums", "PutItem", `{"TableName":"tbl","Item":{},"ReturnValues":"INVALID","ReturnConsumedCapacity":"INVALID","ReturnItemCollectionMetrics":"INVALID"}`,
			"3 validation errors detected: Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " + rvBare + "; Value 'INVALID' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"},
		{"sse_type_lowercase_create", "CreateTable", `{"TableName":"tbl","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"SSESpecification":{"Enabled":true,"SSEType":"kms"}}`,
			"1 validation error detected: Value 'kms' at 'sSESpecification.sSEType' failed to satisfy constraint: Member must satisfy enum value set: [AES256, KMS]"},
		{"sse_type_lowercase_update", "UpdateTable", `{"TableName":"tbl","SSESpecification":{"Enabled":true,"SSEType":"kms"}}`,
			"1 validation error detected: Value 'kms' at 'sSESpecification.sSEType' failed to satisfy constraint: Member must satisfy enum value set: [AES256, KMS]"},
		{"empty_enum_billing", "CreateTable", `{"TableName":"tbl","BillingMode":"","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`,
			"1 validation error detected: Value '' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"},
		{"empty_enum_view_type", "UpdateTable", `{"TableName":"tbl","StreamSpecification":{"StreamEnabled":true,"StreamViewType":""}}`,
			"1 validation error detected: Value '' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [OLD_IMAGE, KEYS_ONLY, NEW_AND_OLD_IMAGES, NEW_IMAGE]"},
		{"empty_enum_attribute_type", "UpdateTable", `{"TableName":"tbl","DeletionProtectionEnabled":true,"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":""}]}`,
			"1 validation error detected: Value '' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]"},
		{"empty_kms_key", "CreateTable", `{"TableName":"tbl","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"SSESpecification":{"Enabled":true,"SSEType":"KMS","KMSMasterKeyId":""}}`,
			"1 validation error detected: Value '' at 'sSESpecification.kMSMasterKeyId' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"o_del_empty_table", "DeleteItem", `{"TableName":"","Key":{}}`, emptyTable},
		{"o_del_two_bad_enums", "DeleteItem", `{"TableName":"tbl","Key":{},"ReturnValues":"INVALID","ReturnConsumedCapacity":"INVALID"}`,
			"2 validation errors detected: Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " + rvBare},
		{"o_upd_empty_table", "UpdateItem", `{"TableName":"","Key":{}}`, emptyTable},
		{"o_upd_two_bad_enums", "UpdateItem", `{"TableName":"tbl","Key":{},"ReturnValues":"INVALID","ReturnConsumedCapacity":"INVALID"}`,
			"1 validation error detected: " + rvBare},
		{"o_bg_empty_requestitems", "BatchGetItem", `{"RequestItems":{}}`,
			"The requestItems parameter is required for BatchGetItem"},
		{"c_bw_over25", "BatchWriteItem", batchWrite("tbl", 26),
			"1 validation error detected: Value '{tbl=[" + writeEchoes(26) + "]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"},

		// Constraints from the API reference, in Kura's order.
		{"get_key_null", "GetItem", `{"TableName":"tbl"}`,
			"1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null"},
		{"get_null_both", "GetItem", `{"ReturnConsumedCapacity":"X"}`,
			"3 validation errors detected: Value 'X' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value null at 'tableName' failed to satisfy constraint: Member must not be null; Value null at 'key' failed to satisfy constraint: Member must not be null"},
		{"list_limit", "ListTables", `{"Limit":101,"ExclusiveStartTableName":"a;"}`,
			"3 validation errors detected: Value 'a;' at 'exclusiveStartTableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a;' at 'exclusiveStartTableName' failed to satisfy constraint: Member must have length greater than or equal to 3; Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"},
		{"query_limit_select", "Query", `{"TableName":"tbl","Limit":0,"Select":"SOME","IndexName":"ix"}`,
			"3 validation errors detected: Value 'SOME' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]; Value 'ix' at 'indexName' failed to satisfy constraint: Member must have length greater than or equal to 3; Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"scan_segments", "Scan", `{"TableName":"tbl","Segment":-1,"TotalSegments":1000001}`,
			"2 validation errors detected: Value at 'Segment' failed to satisfy constraint: Member must have value greater than or equal to 0; Value at 'TotalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000"},
		{"ct_enums", "CreateTable", `{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"X"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASHY"}],"BillingMode":"FREE"}`,
			"3 validation errors detected: Value 'X' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]; Value 'HASHY' at 'keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]; Value 'FREE' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"},
		// Live DynamoDB (October 2026, a public catalogue of probes).
		{"ct_stream_view_lower", "CreateTable", `{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"new_image"}}`,
			"1 validation error detected: Value 'new_image' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [OLD_IMAGE, KEYS_ONLY, NEW_AND_OLD_IMAGES, NEW_IMAGE]"},
		// Legacy conditions: the operator is required and one of DynamoDB's
		// (its order of the set, as dynalite's tests record it).
		{"query_keycond_null_op", "Query", `{"TableName":"tbl","KeyConditions":{"a":{"AttributeValueList":[{"S":"x"}]}}}`,
			"1 validation error detected: Value null at 'keyConditions.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null"},
		{"scan_filter_bad_op", "Scan", `{"TableName":"tbl","ScanFilter":{"x":{"ComparisonOperator":"BAR"}}}`,
			"1 validation error detected: Value 'BAR' at 'scanFilter.x.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		{"put_expected_bad_op", "PutItem", `{"TableName":"tbl","Item":{"a":{"S":"x"}},"Expected":{"c":{"ComparisonOperator":"FOO","AttributeValueList":[{"S":"x"}]}}}`,
			"1 validation error detected: Value 'FOO' at 'expected.c.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		// Batch request items, as a suite run against DynamoDB (2026) records.
		{"bg_bad_name_and_rcc", "BatchGetItem", `{"RequestItems":{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}},"ReturnConsumedCapacity":"BOGUS"}`,
			`2 validation errors detected: Value '{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]; Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]`},
		{"bg_empty_keys", "BatchGetItem", `{"RequestItems":{"tbl":{"Keys":[]}}}`,
			"1 validation error detected: Value at 'RequestItems.tbl.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"bw_bad_name_and_rcc", "BatchWriteItem", `{"RequestItems":{"bad!name":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]},"ReturnConsumedCapacity":"BOGUS"}`,
			"1 validation error detected: Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"},
		{"bw_empty", "BatchWriteItem", `{"RequestItems":{}}`, "The requestItems parameter is required for BatchWriteItem"},
		{"ct_no_table_name", "CreateTable", `{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`,
			"The parameter 'TableName' is required but was not present in the request"},
		{"ct_gsi_before_lsi", "CreateTable", `{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST","LocalSecondaryIndexes":[{"IndexName":"aa","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],"GlobalSecondaryIndexes":[{"IndexName":"zz","KeySchema":[{"AttributeName":"sk","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}`,
			"2 validation errors detected: Value 'zz' at 'globalSecondaryIndexes.1.member.indexName' failed to satisfy constraint: Member must have length greater than or equal to 3; Value 'aa' at 'localSecondaryIndexes.1.member.indexName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"ct_nulls", "CreateTable", `{"TableName":"tbl"}`,
			"2 validation errors detected: Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null; Value null at 'keySchema' failed to satisfy constraint: Member must not be null"},
		{"bw_null", "BatchWriteItem", `{}`,
			"1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must not be null"},
		{"ucb_null", "UpdateContinuousBackups", `{"TableName":"tbl"}`,
			"1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: Member must not be null"},
		{"tag_null", "TagResource", `{}`,
			"2 validation errors detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null; Value null at 'tags' failed to satisfy constraint: Member must not be null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := any(new(attr.Value)).(json.Unmarshaler); !ok && strings.Contains(c.body, `"S"`) {
				t.Skip("attr.Value has no JSON decoder yet")
			}
			h := routes[c.op]
			_, err := h(t.Context(), nil, []byte(c.body))
			if err == nil {
				t.Fatal("no error")
			}
			if got := err.Error(); got != "ValidationException: "+c.want {
				t.Fatalf("\n got %s\nwant ValidationException: %s", got, c.want)
			}
		})
	}
}

func batchWrite(table string, n int) string {
	reqs := make([]any, n)
	for i := range reqs {
		reqs[i] = map[string]any{"PutRequest": map[string]any{"Item": map[string]any{"pk": map[string]string{"S": fmt.Sprintf("bw-%d", i)}}}}
	}
	b, _ := json.Marshal(map[string]any{"RequestItems": map[string]any{table: reqs}})
	return string(b)
}

func writeEchoes(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("WriteRequest(putRequest=PutRequest(item={pk=AttributeValue(s=bw-%d, n=null, b=null, iNT=null, dECIMAL=null, dOUBLE=null, sS=null, nS=null, bS=null, iNTSET=null, dECIMALSET=null, dOUBLESET=null, m=null, l=null, nULL=null, bOOL=null)}, workloadProfileName=null), deleteRequest=null)", i)
	}
	return strings.Join(parts, ", ")
}

func TestHasEmptyMember(t *testing.T) {
	for body, want := range map[string]bool{
		`{"TableName":"tbl","Item":{"pk":{"S":""}}}`:                       false,
		`{"TableName":"tbl","Item":{"pk":{"S" : ""},"l":{"SS":["a",""]}}}`: false,
		`{"TableName":"tbl","ReturnValues":""}`:                            true,
		`{"TableName":"tbl","Item":{"pk":{"S":""}},"Select" : ""}`:         true,
		`{"TableName":"tbl"}`:                                              false,
	} {
		if got := hasEmptyMember([]byte(body)); got != want {
			t.Errorf("hasEmptyMember(%s) = %v, want %v", body, got, want)
		}
	}
}
