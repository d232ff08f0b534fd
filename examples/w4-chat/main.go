// Command w4-chat runs seed 004 (chat history with a sparse GSI, TTL and a
// stream-fed search index) against Kura: see examples/README.md.
package main

import (
	"github.com/kura-db/kura/examples/internal/kit"
	"github.com/kura-db/kura/examples/internal/w4"
)

func main() { kit.Main("w4-chat", w4.Run) }
