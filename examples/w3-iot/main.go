// Command w3-iot runs seed 003 (IoT mesh groups scoped by domain) against
// Kura: see examples/README.md.
package main

import (
	"github.com/kura-db/kura/examples/internal/kit"
	"github.com/kura-db/kura/examples/internal/w3"
)

func main() { kit.Main("w3-iot", w3.Run) }
