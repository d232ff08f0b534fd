package pebble_test

import (
	"testing"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := pebble.Open(t.TempDir(), pebble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestConformanceInMemory(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := pebble.Open("mem", pebble.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
