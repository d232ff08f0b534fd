package memory_test

import (
	"testing"

	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/storagetest"
)

func BenchmarkMemory(b *testing.B) {
	storagetest.Bench(b, func(*testing.B) storage.Store { return memory.New() })
}
