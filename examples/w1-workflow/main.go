// Command w1-workflow runs seed 000 (document-processing workflow state in
// one table) against Kura: see examples/README.md.
package main

import (
	"github.com/kura-db/kura/examples/internal/kit"
	"github.com/kura-db/kura/examples/internal/w1"
)

func main() { kit.Main("w1-workflow", w1.Run) }
