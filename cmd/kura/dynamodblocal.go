package main

import (
	"flag"
	"fmt"
	"strings"
)

// localFlag is what Kura makes of one of DynamoDB Local's command-line
// flags: an alias of a Kura flag with the same meaning (kura, and value
// for one that takes no argument there), or a refusal naming what to do
// instead.
type localFlag struct {
	kura   string // the Kura flag it stands for
	value  string // the value it sets, for DynamoDB Local's flags without one
	refuse string // why it is refused, and the Kura way
}

// localFlags are DynamoDB Local's flags (its -help, version 2.x) whose
// spelling is not also Kura's; -port is Kura's too. Refused are those
// whose meaning differs: a refusal says what to use instead rather than
// accept a flag and do something else.
var localFlags = map[string]localFlag{
	"inMemory": {kura: "in-memory", value: "true"},
	"sharedDb": {kura: "shared-db", value: "true"},
	"dbPath":   {kura: "data-dir"},
	// An alias when this build has --cors (the browser hardening adds it);
	// refused naming it otherwise.
	"cors":                    {kura: "cors"},
	"delayTransientStatuses":  {refuse: "Kura's --create-delay DURATION keeps new tables and indexes CREATING that long (e.g. --create-delay 5s); DynamoDB Local's flag also delays other statuses, which Kura does not"},
	"optimizeDbBeforeStartup": {refuse: "Kura's store needs no optimising before it starts: leave the flag out"},
	"disableTelemetry":        {refuse: "Kura sends no telemetry: leave the flag out"},
}

// translateLocalFlags rewrites DynamoDB Local's spellings in args into
// Kura's (-inMemory → --in-memory, -dbPath DIR → --data-dir DIR), and
// refuses the ones Kura has no equivalent for, naming what to use. The
// values of Kura's own flags are left alone.
func translateLocalFlags(args []string, fs *flag.FlagSet) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			out = append(out, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil {
			out = append(out, a)
			if !hasValue && !isBoolFlag(f) && i+1 < len(args) {
				i++
				out = append(out, args[i]) // its value, whatever it looks like
			}
			continue
		}
		lf, ok := localFlags[name]
		if !ok {
			out = append(out, a) // the flag package says it is unknown
			continue
		}
		if lf.refuse != "" {
			return nil, fmt.Errorf("-%s is DynamoDB Local's flag; %s", name, lf.refuse)
		}
		if fs.Lookup(lf.kura) == nil {
			return nil, fmt.Errorf("-%s is DynamoDB Local's flag; its Kura equivalent --%s is not in this build", name, lf.kura)
		}
		switch {
		case lf.value != "" && hasValue:
			return nil, fmt.Errorf("-%s is DynamoDB Local's flag and takes no value; Kura's is --%s", name, lf.kura)
		case lf.value != "":
			out = append(out, "--"+lf.kura+"="+lf.value)
		case hasValue:
			out = append(out, "--"+lf.kura+"="+value)
		default:
			out = append(out, "--"+lf.kura)
			if i+1 < len(args) {
				i++
				out = append(out, args[i]) // its value
			}
		}
	}
	return out, nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
