package api

import (
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// TestFractionalIntegers: an integer member given a fractional or
// exponent-written number takes its integer part, truncated toward zero
// (DynamoDB takes a vector index's Dimensions of 6.7 as 6); one whose
// integer part does not fit keeps the deserialiser's refusal, and
// SearchVectors refuses any fraction.
func TestFractionalIntegers(t *testing.T) {
	var lt wire.ListTablesInput
	for body, want := range map[string]int32{
		`{"Limit":1.5}`:    1,
		`{"Limit":99.99}`:  99,
		`{"Limit":-0.5}`:   0,
		`{"Limit":-2.7}`:   -2,
		`{"Limit":1e0}`:    1,
		`{"Limit":2.5e1}`:  25,
		`{"Limit":5e-400}`: 0,
		`{"Limit":2147483647.999999999999999999999999999999999999999999999999999999999999999999999999999999}`: 2147483647,
	} {
		lt = wire.ListTablesInput{}
		if err := decode([]byte(body), &lt); err != nil || lt.Limit == nil || *lt.Limit != want {
			t.Errorf("%s: Limit %v, err %v; want %d", body, lt.Limit, err, want)
		}
	}

	var ct wire.CreateTableInput
	body := `{"TableName":"t","ProvisionedThroughput":{"ReadCapacityUnits":5.9,"WriteCapacityUnits":6.5e0},` +
		`"VectorIndexes":[{"IndexName":"vix","Dimensions":6.7}]}`
	if err := decode([]byte(body), &ct); err != nil {
		t.Fatal(err)
	}
	if pt := ct.ProvisionedThroughput; *pt.ReadCapacityUnits != 5 || *pt.WriteCapacityUnits != 6 ||
		*ct.VectorIndexes[0].Dimensions != 6 || *ct.TableName != "t" || *ct.VectorIndexes[0].IndexName != "vix" {
		t.Errorf("decoded %+v", ct)
	}

	// A request carries at most 32 of them, and a large body fewer.
	many := `{"TableName":"t","GlobalSecondaryIndexes":[` + strings.Repeat(`{"IndexName":"g","ProvisionedThroughput":{"ReadCapacityUnits":1.5}},`, 32) + `{}]}`
	if err := decode([]byte(many), &ct); err != nil {
		t.Errorf("32 fractions: %v", err)
	}
	if err := decode([]byte(strings.Replace(many, `{}]`, `{"ProvisionedThroughput":{"ReadCapacityUnits":1.5}}]`, 1)), &ct); err == nil {
		t.Error("33 fractions taken")
	}
	big := `{"TableName":"t","Tags":[{"Key":"` + strings.Repeat("k", 9<<20) + `"}],"ProvisionedThroughput":{"ReadCapacityUnits":1.5}}`
	if err := decode([]byte(big), &ct); err == nil {
		t.Error("a fraction in a 9 MB body decoded again")
	}

	for _, c := range []struct {
		body string
		in   any
		msg  string
	}{
		{`{"Limit":2147483648.5}`, &wire.ListTablesInput{}, "DECIMAL_VALUE cannot be converted to Integer"},
		{`{"Limit":1e10}`, &wire.ListTablesInput{}, "NUMBER_VALUE cannot be converted to Integer"},
		{`{"Limit":1e1000000000}`, &wire.ListTablesInput{}, "DECIMAL_VALUE cannot be converted to Integer"},
		{`{"TableName":"t","TopK":1.5}`, &wire.SearchVectorsInput{}, "DECIMAL_VALUE cannot be converted to Integer"},
	} {
		err := decode([]byte(c.body), c.in)
		de, ok := err.(*ddberr.Error)
		if !ok || de.Type != "SerializationException" || de.Message != c.msg {
			t.Errorf("%s: %v; want SerializationException %q", c.body, err, c.msg)
		}
	}
}
