package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// DynamoDB Local's spellings: aliases where the meaning is Kura's, a
// one-line refusal naming the Kura way otherwise, never the whole usage.
func TestDynamoDBLocalFlags(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig([]string{"-inMemory", "-sharedDb", "-port", "8001", "-dbPath", "/var/ddb", "-region", "eu-west-1"}, none, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.InMemory || !c.SharedDB || c.Addr() != "127.0.0.1:8001" || c.DataDir != "/var/ddb" || c.Region != "eu-west-1" {
		t.Fatalf("config %+v", c)
	}
	if c, err := parseConfig([]string{"--shared-db=false", "-dbPath=/x", "--data-dir", "-inMemory"}, none, &bytes.Buffer{}); err != nil || c.DataDir != "-inMemory" || c.InMemory || c.SharedDB {
		t.Fatalf("a Kura flag's value taken for a flag: %+v %v", c, err)
	}
	if c, err := parseConfig([]string{"-sharedDb", "-dbPath", "/d", "-inMemory"}, none, &bytes.Buffer{}); err != nil || c.DataDir != "/d" || !c.InMemory {
		t.Fatalf("flags after -dbPath DIR: %+v %v", c, err)
	}
	for args, want := range map[string]string{
		"-delayTransientStatuses":  "-delayTransientStatuses is DynamoDB Local's flag; Kura's --create-delay DURATION keeps new tables and indexes CREATING that long (e.g. --create-delay 5s); DynamoDB Local's flag also delays other statuses, which Kura does not",
		"-optimizeDbBeforeStartup": "-optimizeDbBeforeStartup is DynamoDB Local's flag; Kura's store needs no optimising before it starts: leave the flag out",
		"-disableTelemetry":        "-disableTelemetry is DynamoDB Local's flag; Kura sends no telemetry: leave the flag out",
		"-inMemory=true":           "-inMemory is DynamoDB Local's flag and takes no value; Kura's is --in-memory",
		"-nonsense":                "flag provided but not defined: -nonsense (kura --help lists the flags)",
		"--port x":                 `invalid value "x" for flag -port: parse error (kura --help lists the flags)`,
	} {
		var stderr bytes.Buffer
		_, err := parseConfig(strings.Fields(args), none, &stderr)
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v\nwant %s", args, err, want)
		}
		if stderr.Len() > 0 {
			t.Errorf("%s: printed %q", args, stderr.String())
		}
	}
	// -cors is --cors's alias in a build that has --cors.
	_, err = parseConfig([]string{"-cors", "*"}, none, &bytes.Buffer{})
	if hasCORS := flagDefined("cors"); hasCORS && err != nil || !hasCORS && (err == nil || err.Error() != "-cors is DynamoDB Local's flag; its Kura equivalent --cors is not in this build") {
		t.Errorf("-cors: %v", err)
	}
	var help bytes.Buffer
	if _, err := parseConfig([]string{"-help"}, none, &help); !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.String(), "-data-dir") {
		t.Errorf("-help: %v, printed %q", err, help.String())
	}
}

// flagDefined reports whether this build's kura has the flag name.
func flagDefined(name string) bool {
	var out bytes.Buffer
	parseConfig([]string{"-help"}, func(string) string { return "" }, &out)
	return strings.Contains(out.String(), "\n  -"+name+" ") || strings.Contains(out.String(), "\n  -"+name+"\n")
}
