package examples_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/kura-db/kura/examples/internal/kit"
	"github.com/kura-db/kura/examples/internal/w1"
	"github.com/kura-db/kura/examples/internal/w2"
	"github.com/kura-db/kura/examples/internal/w3"
	"github.com/kura-db/kura/examples/internal/w4"
	"github.com/kura-db/kura/pkg/embed"
)

// TestExamples runs each seed application against its own in-process Kura
// (with the admin endpoints, for TTL expiry), as the programs do without
// --endpoint.
func TestExamples(t *testing.T) {
	for _, ex := range []struct {
		name string
		run  func(context.Context, *kit.Env) error
	}{
		{"w1-workflow", w1.Run},
		{"w2-rag", w2.Run},
		{"w3-iot", w3.Run},
		{"w4-chat", w4.Run},
	} {
		t.Run(ex.name, func(t *testing.T) {
			k := embed.Start(t, embed.WithAdmin())
			var out bytes.Buffer
			env := kit.NewEnv(k.Client, k.Streams, k.Endpoint, &out)
			err := ex.run(t.Context(), env)
			if derr := env.DropTables(context.Background()); derr != nil && err == nil {
				err = derr
			}
			t.Log("\n" + out.String())
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
