package pebble_test

import (
	"testing"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/storage/storagetest"
)

func BenchmarkPebble(b *testing.B) {
	storagetest.Bench(b, func(b *testing.B) storage.Store {
		s, err := pebble.Open(b.TempDir(), pebble.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}
