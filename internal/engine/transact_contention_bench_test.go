package engine

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/storage"
	"github.com/kura-db/kura/internal/storage/memory"
	"github.com/kura-db/kura/internal/storage/pebble"
	"github.com/kura-db/kura/internal/wire"
)

// BenchmarkTransactGetUnderWrites measures how many TransactGetItems of
// two items are cancelled (TransactionConflict) while 4 goroutines keep
// writing those two items in TransactWriteItems (pausing writerPause
// between two), on each store (Pebble
// with durable commits, as Kura runs by default). It reports the share of
// reads cancelled and the write transactions per second of the same run:
//
//	go test ./internal/engine/ -run '^$' -bench TransactGetUnderWrites -benchtime 2s
func BenchmarkTransactGetUnderWrites(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchTxGetUnderWrites(b, memory.New(), false) })
	b.Run("pebble", func(b *testing.B) {
		s, err := pebble.Open(b.TempDir(), pebble.Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchTxGetUnderWrites(b, s, true)
	})
}

// writerPause is each writer's pause between two transactions: a client's
// own work and round trip, without which four writers hold the items all
// the time on any store.
const writerPause = 500 * time.Microsecond

func benchTxGetUnderWrites(b *testing.B, store storage.Store, durable bool) {
	e, err := Open(store, Config{Sync: durable})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close(); store.Close() })
	dpTable(b, e, "t", "pk:S")
	for _, k := range []string{"a", "b"} {
		dpPut(b, e, "t", attr.Item{"pk": dpS(k), "n": dpN("0")})
	}
	update := func(k string) wire.TransactWriteItem {
		return wire.TransactWriteItem{Update: &wire.Update{TableName: dpStr("t"), Key: attr.Item{"pk": dpS(k)},
			UpdateExpression: dpStr("ADD n :one"), ExpressionAttributeValues: attr.Item{":one": dpN("1")}}}
	}
	write := &wire.TransactWriteItemsInput{TransactItems: []wire.TransactWriteItem{update("a"), update("b")}}
	read := &wire.TransactGetItemsInput{TransactItems: []wire.TransactGetItem{
		{Get: &wire.Get{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("a")}}},
		{Get: &wire.Get{TableName: dpStr("t"), Key: attr.Item{"pk": dpS("b")}}},
	}}

	stop := make(chan struct{})
	var writes atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, err := e.TransactWriteItems(dpCtx, write)
				var de *ddberr.Error
				switch {
				case err == nil:
					writes.Add(1)
				case errors.As(err, &de) && de.Type == "TransactionCanceledException":
					// another writer holds the items
				default:
					b.Error(err)
					return
				}
				time.Sleep(writerPause)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // the writers get going
	var cancelled int
	b.ResetTimer()
	start, w0 := time.Now(), writes.Load()
	for i := 0; i < b.N; i++ {
		out, err := e.TransactGetItems(dpCtx, read)
		var de *ddberr.Error
		switch {
		case err == nil:
			if a, bb := out.Responses[0].Item["n"].Str, out.Responses[1].Item["n"].Str; a != bb {
				b.Fatalf("a transaction read half a write: n = %s and %s", a, bb)
			}
		case errors.As(err, &de) && de.Type == "TransactionCanceledException":
			cancelled++
		default:
			b.Fatal(err)
		}
	}
	elapsed, nw := time.Since(start), writes.Load()-w0
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(100*float64(cancelled)/float64(b.N), "%cancelled")
	b.ReportMetric(float64(nw)/elapsed.Seconds(), "writes/s")
}
