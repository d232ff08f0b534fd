// Command e2e measures SearchVectors end to end through the AWS SDK for Go:
// it starts Kura in process (pkg/embed, in memory) or uses --endpoint,
// creates a table with a COSINE vector index, loads the anchors' clustered
// dataset (internal/vector/vecdata, same generator as vecbench) with
// BatchWriteItem at a fixed concurrency, waits until the index's ItemCount
// reaches n, then runs SearchVectors one at a time and reports latency
// percentiles and recall@k against the exact (brute-force) top-k.
//
//	go build -o /tmp/e2e ./bench/vector/e2e && /tmp/e2e -n 100000 -dim 1024 -conc 6 -passes 3 -settle 10s
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/kura-db/kura/internal/vector/vecdata"
	"github.com/kura-db/kura/pkg/embed"
)

func main() {
	endpoint := flag.String("endpoint", "", "Kura endpoint (default: start Kura in process, in memory)")
	n := flag.Int("n", 100000, "items to load")
	dim := flag.Int("dim", 1024, "dimensions")
	nq := flag.Int("queries", 1000, "SearchVectors calls (held-out queries)")
	clusters := flag.Int("clusters", 500, "Gaussian clusters")
	seed := flag.Uint64("seed", 1, "dataset seed")
	conc := flag.Int("conc", 6, "BatchWriteItem concurrency")
	topK := flag.Int("topk", 10, "TopK")
	table := flag.String("table", "vecbench", "table name")
	passes := flag.Int("passes", 1, "timed search passes over the queries")
	settle := flag.Duration("settle", 0, "pause between the load and the searches")
	flag.Parse()
	ctx := context.Background()

	var c *dynamodb.Client
	if *endpoint == "" {
		k, err := embed.New()
		if err != nil {
			die(err)
		}
		defer k.Close()
		c = k.Client
		fmt.Printf("kura: in process (pkg/embed, in memory) at %s, GOMAXPROCS %d\n", k.Endpoint, runtime.GOMAXPROCS(0))
	} else {
		c = dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(*endpoint),
			Credentials: credentials.NewStaticCredentialsProvider("bench", "bench", "")})
		fmt.Printf("kura: %s\n", *endpoint)
	}

	t0 := time.Now()
	ds := vecdata.Clustered(*n, *nq, *dim, *clusters, *seed)
	fmt.Printf("dataset: %d × %d, %d queries, %d clusters, seed %d (%.1fs)\n", *n, *dim, *nq, *clusters, *seed, time.Since(t0).Seconds())
	t0 = time.Now()
	truth := vecdata.GroundTruth(ds, *topK)
	fmt.Printf("brute-force top-%d: %.1fs\n", *topK, time.Since(t0).Seconds())

	const index = "emb-cos"
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(*table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes: []types.VectorIndex{{
			IndexName:        aws.String(index),
			VectorAttribute:  &types.VectorAttributeDefinition{AttributeName: aws.String("emb")},
			Dimensions:       aws.Int64(int64(*dim)),
			DistanceFunction: types.VectorDistanceFunctionCosine,
			Projection:       &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	if err != nil {
		die(err)
	}
	heap0 := heapInUse()

	// Load: BatchWriteItem, 25 items per call, conc workers.
	t0 = time.Now()
	var next, done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, *conc)
	for w := 0; w < *conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(25)) - 25
				if b >= *n {
					return
				}
				reqs := make([]types.WriteRequest, 0, 25)
				for i := b; i < min(b+25, *n); i++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
						"pk": &types.AttributeValueMemberS{Value: key(i)}, "emb": &types.AttributeValueMemberL{Value: vecList(ds.Vec(i))},
					}}})
				}
				items := map[string][]types.WriteRequest{*table: reqs}
				for len(items) > 0 {
					out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: items})
					if err != nil {
						errs <- err
						return
					}
					items = out.UnprocessedItems
				}
				if d := done.Add(int64(len(reqs))); d%10000 < 25 {
					fmt.Printf("  loaded %d (%.0f items/s)\n", d, float64(d)/time.Since(t0).Seconds())
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		die(err)
	default:
	}
	load := time.Since(t0)
	fmt.Printf("load: %d items, BatchWriteItem × 25, concurrency %d: %.1fs, %.0f items/s\n", *n, *conc, load.Seconds(), float64(*n)/load.Seconds())

	for {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(*table)})
		if err != nil {
			die(err)
		}
		if cnt := aws.ToInt64(d.Table.VectorIndexes[0].ItemCount); cnt >= int64(*n) {
			fmt.Printf("index ItemCount %d after %.1fs (status %s)\n", cnt, time.Since(t0).Seconds(), d.Table.VectorIndexes[0].IndexStatus)
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if *endpoint == "" {
		h := heapInUse() - heap0
		fmt.Printf("process heap growth over the load: %.0f MB (%.0f bytes/item: table items + vector index; raw f32 vectors %.0f MB)\n",
			float64(h)/1e6, float64(h)/float64(*n), float64(*n**dim*4)/1e6)
	}

	// Search: one at a time, warm-up then timed.
	qv := make([][]types.AttributeValue, ds.NQ())
	for q := range qv {
		qv[q] = vecList(ds.Query(q))
	}
	search := func(q int) ([]uint64, time.Duration) {
		t := time.Now()
		out, err := c.SearchVectors(ctx, &dynamodb.SearchVectorsInput{TableName: aws.String(*table), IndexName: aws.String(index),
			SearchVector: qv[q], TopK: aws.Int32(int32(*topK))})
		el := time.Since(t)
		if err != nil {
			die(err)
		}
		ids := make([]uint64, 0, len(out.SearchResults))
		for _, r := range out.SearchResults {
			s := r.Item["pk"].(*types.AttributeValueMemberS).Value
			id, err := strconv.ParseUint(s[1:], 10, 64)
			if err != nil {
				die(err)
			}
			ids = append(ids, id)
		}
		return ids, el
	}
	for q := 0; q < min(50, ds.NQ()); q++ {
		search(q)
	}
	if *settle > 0 {
		time.Sleep(*settle)
	}
	for p := 1; p <= *passes; p++ {
		lat := make([]time.Duration, 0, ds.NQ())
		sum := 0.0
		t0 = time.Now()
		for q := 0; q < ds.NQ(); q++ {
			ids, el := search(q)
			lat = append(lat, el)
			sum += vecdata.Recall(ids, truth[q], *topK)
		}
		total := time.Since(t0)
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
		fmt.Printf("pass %d: SearchVectors TopK %d, %d queries one at a time: recall@%d %.4f; latency ms p50 %.2f p90 %.2f p99 %.2f max %.2f; %.0f QPS\n",
			p, *topK, ds.NQ(), *topK, sum/float64(ds.NQ()), pct(0.5), pct(0.9), pct(0.99), pct(1), float64(ds.NQ())/total.Seconds())
	}
}

func key(i int) string { return fmt.Sprintf("v%07d", i) }

func vecList(v []float32) []types.AttributeValue {
	l := make([]types.AttributeValue, len(v))
	for i, f := range v {
		l[i] = &types.AttributeValueMemberN{Value: strconv.FormatFloat(float64(f), 'g', -1, 32)}
	}
	return l
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func die(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
