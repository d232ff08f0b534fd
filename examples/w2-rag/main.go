// Command w2-rag runs seed 002 (RAG chunks with vector search, three
// layouts) against Kura: see examples/README.md.
package main

import (
	"github.com/kura-db/kura/examples/internal/kit"
	"github.com/kura-db/kura/examples/internal/w2"
)

func main() { kit.Main("w2-rag", w2.Run) }
