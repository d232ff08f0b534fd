package auth

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/kura-db/kura/internal/ddberr"
)

func basic(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }

func TestCheckBasic(t *testing.T) {
	v := NewVerifier("us-east-1", []Credential{
		{AccessKeyID: "AKID", Secret: "s3cret"},
		{AccessKeyID: "TOKENKEY", Secret: "x", SessionToken: "tok"},
	}, nil)
	const invalid = "UnrecognizedClientException: The security token included in the request is invalid."
	for _, tc := range []struct{ header, id, err string }{
		{basic("AKID:s3cret"), "AKID", ""},
		{basic("AKID:s3cre"), "", invalid},
		{basic("AKID:s3cret2"), "", invalid},
		{basic("AKID:"), "", invalid},
		{basic("NOPE:s3cret"), "", invalid},
		{basic("NOPE:"), "", invalid},
		{basic("AKIDs3cret"), "", invalid},
		{basic("TOKENKEY:x"), "", invalid},
		{"Basic !!!", "", invalid},
		{"", "", "MissingAuthenticationTokenException: Request is missing Authentication Token"},
		{"Bearer AKID", "", "MissingAuthenticationTokenException: Request is missing Authentication Token"},
	} {
		id, err := v.CheckBasic(tc.header)
		got := ""
		var de *ddberr.Error
		if errors.As(err, &de) {
			got = de.Type + ": " + de.Message
		} else if err != nil {
			got = err.Error()
		}
		if id != tc.id || got != tc.err {
			t.Errorf("CheckBasic(%q) = %q, %q; want %q, %q", tc.header, id, got, tc.id, tc.err)
		}
	}
}
