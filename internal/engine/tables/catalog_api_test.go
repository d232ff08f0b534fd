package tables

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

func TestCreateName(t *testing.T) {
	for raw, want := range map[string]string{
		"plain": "plain",
		"arn:aws:dynamodb:us-east-1:000000000000:table/fromARN": "fromARN",
		"arn:aws:dynamodb:eu-west-1:111122223333:table/a.b-c_d": "a.b-c_d",
	} {
		if got, err := CreateName(raw); err != nil || got != want {
			t.Errorf("CreateName(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{
		"arn:aws:dynamodb:us-east-1:000000000000:table/ab",             // too short
		"arn:aws:dynamodb:us-east-1:000000000000:table/bad!name",       // a character outside the pattern
		"arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/label", // not a table ARN
		"arn:aws:s3:::bucket",
	} {
		_, err := CreateName(raw)
		var de *ddberr.Error
		want := "1 validation error detected: Value '" + raw + "' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
		if !errors.As(err, &de) || de.Type != "ValidationException" || de.Message != want {
			t.Errorf("CreateName(%q): %v, want %q", raw, err, want)
		}
	}
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{
		"abc": true, "ab": false, strings.Repeat("a", 255): true, strings.Repeat("a", 256): false,
		"A-z_0.9": true, "a b": false, "tbl/x": false, "": false,
	} {
		if ValidName(s) != want {
			t.Errorf("ValidName(%q) = %v, want %v", s, !want, want)
		}
	}
}

func TestListPage(t *testing.T) {
	var names []string
	for _, c := range "qwertyuiopasdfghjklzxcvbnm" {
		names = append(names, string(c)+"tbl")
	}
	all := slices.Sorted(slices.Values(names))
	page := func(in *wire.ListTablesInput) ([]string, string) {
		out := ListPage(names, in)
		return out.TableNames, wire.Deref(out.LastEvaluatedTableName)
	}
	if got, last := page(&wire.ListTablesInput{}); !slices.Equal(got, all) || last != "" {
		t.Fatalf("everything: %q, last %q", got, last)
	}
	if got, last := page(&wire.ListTablesInput{Limit: wire.Ptr[int32](5)}); !slices.Equal(got, all[:5]) || last != all[4] {
		t.Fatalf("first 5: %q, last %q", got, last)
	}
	if got, last := page(&wire.ListTablesInput{Limit: wire.Ptr[int32](5), ExclusiveStartTableName: wire.Ptr(all[4])}); !slices.Equal(got, all[5:10]) || last != all[9] {
		t.Fatalf("next 5: %q, last %q", got, last)
	}
	if got, last := page(&wire.ListTablesInput{Limit: wire.Ptr[int32](6), ExclusiveStartTableName: wire.Ptr(all[19])}); !slices.Equal(got, all[20:]) || last != "" {
		t.Fatalf("the last 6 (exactly what remains): %q, last %q", got, last)
	}
	if got, _ := page(&wire.ListTablesInput{ExclusiveStartTableName: wire.Ptr("zzz")}); got == nil || len(got) != 0 {
		t.Fatalf("after the last name: %#v, want an empty list (not null)", got)
	}
	if !slices.Equal(names[:3], []string{"qtbl", "wtbl", "etbl"}) {
		t.Fatal("ListPage reordered its argument")
	}
	var many []string
	for i := range 150 {
		many = append(many, strings.Repeat("x", i+3))
	}
	if out := ListPage(many, &wire.ListTablesInput{Limit: wire.Ptr[int32](500)}); len(out.TableNames) != MaxListTables || out.LastEvaluatedTableName == nil {
		t.Fatalf("a limit above the maximum: %d names, last %v", len(out.TableNames), out.LastEvaluatedTableName)
	}
}

func TestLimitsAndEndpoints(t *testing.T) {
	l := Limits()
	if *l.AccountMaxReadCapacityUnits != 80000 || *l.AccountMaxWriteCapacityUnits != 80000 ||
		*l.TableMaxReadCapacityUnits != 40000 || *l.TableMaxWriteCapacityUnits != 40000 {
		t.Fatalf("limits: %+v", l)
	}
	ep := Account{Region: "eu-central-1"}.Endpoints()
	if len(ep.Endpoints) != 1 || *ep.Endpoints[0].Address != "dynamodb.eu-central-1.amazonaws.com" || *ep.Endpoints[0].CachePeriodInMinutes != 1440 {
		t.Fatalf("endpoints: %+v", ep.Endpoints)
	}
}
