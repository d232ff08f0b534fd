package engine

import (
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/postgres"
	"github.com/kura-db/kura/internal/wire"
)

// BenchmarkClusterPut: concurrent PutItems of distinct keys through one
// cluster-mode node, on PostgreSQL when KURA_TEST_POSTGRES names one, else
// on the memory store, to a table without a stream and to one with a
// stream (whose writers all pass through the stream's stored position:
// streams.BeginFor). cpu-us/op is this process's CPU per put.
func BenchmarkClusterPut(b *testing.B) {
	for _, stream := range []bool{false, true} {
		b.Run("stream="+strconv.FormatBool(stream), func(b *testing.B) {
			store := benchStore(b)
			defer store.Close()
			e, err := Open(store, Config{Cluster: true, TTLInterval: -1})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			in := ctlPPR("bp")
			if stream {
				in.StreamSpecification = &wire.StreamSpecification{StreamEnabled: dpBool(true), StreamViewType: "NEW_AND_OLD_IMAGES"}
			}
			if _, err := e.CreateTable(dpCtx, in); err != nil {
				b.Fatal(err)
			}
			var next atomic.Int64
			b.SetParallelism(8)
			cpu0 := processCPU()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					k := "k" + strconv.FormatInt(next.Add(1), 10)
					if _, err := e.PutItem(dpCtx, &wire.PutItemInput{TableName: dpStr("bp"),
						Item: attr.Item{"pk": dpS(k), "v": dpS("value")}}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
		})
	}
}

// benchStore is a fresh store: a namespace of KURA_TEST_POSTGRES's
// database, else memory.
func benchStore(b *testing.B) storage.Store {
	url := os.Getenv("KURA_TEST_POSTGRES")
	if url == "" {
		return memory.New()
	}
	c, err := postgres.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	s, err := c.SharedStore(fmt.Sprintf("bench-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return s
}

// processCPU is this process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
