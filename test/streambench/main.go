// Command streambench measures the server CPU time per PutItem with a
// DynamoDB Stream on and off: it creates a table (with the stream view type
// given, or none), preloads a key space, then overwrites random keys with
// closed-loop workers (like ddbbench's put workload) and samples the server
// process's CPU time (utime+stime from /proc/PID/stat) over the measured
// window.
//
//	go run ./test/streambench --endpoint http://127.0.0.1:8000 --server-pid PID \
//	    [--stream NEW_AND_OLD_IMAGES] [--concurrency 16] [--duration 15s]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func main() {
	endpoint := flag.String("endpoint", "http://127.0.0.1:8000", "Kura endpoint")
	pid := flag.Int("server-pid", 0, "server process ID (required)")
	stream := flag.String("stream", "", "stream view type, empty for no stream")
	conc := flag.Int("concurrency", 16, "closed-loop workers")
	dur := flag.Duration("duration", 15*time.Second, "measured duration")
	items := flag.Int("items", 10000, "key space (preloaded)")
	valueBytes := flag.Int("value-bytes", 1000, "payload size")
	flag.Parse()
	if *pid <= 0 {
		fmt.Fprintln(os.Stderr, "--server-pid is required")
		os.Exit(2)
	}
	ctx := context.Background()
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: endpoint,
		Credentials: credentials.NewStaticCredentialsProvider("x", "y", "")})
	table := fmt.Sprintf("streambench_%d", time.Now().UnixNano())
	in := &dynamodb.CreateTableInput{TableName: &table, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}
	if *stream != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(*stream)}
	}
	if _, err := c.CreateTable(ctx, in); err != nil {
		fail(err)
	}
	defer c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &table})
	put := func(rng *rand.Rand, k int) error {
		payload := make([]byte, *valueBytes)
		for i := range payload {
			payload[i] = 'a' + byte(rng.IntN(26))
		}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("k%07d", k)},
			"v":  &types.AttributeValueMemberS{Value: string(payload)},
		}})
		return err
	}
	var wg sync.WaitGroup
	for w := 0; w < *conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for k := w; k < *items; k += *conc {
				if err := put(rng, k); err != nil {
					fail(err)
				}
			}
		}(w)
	}
	wg.Wait()

	var n atomic.Int64
	stop := time.Now().Add(*dur)
	cpu0 := cpuSeconds(*pid)
	t0 := time.Now()
	for w := 0; w < *conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 2))
			for time.Now().Before(stop) {
				if err := put(rng, rng.IntN(*items)); err != nil {
					fail(err)
				}
				n.Add(1)
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(t0).Seconds()
	cpu := cpuSeconds(*pid) - cpu0
	out := map[string]any{
		"stream": *stream, "puts": n.Load(), "seconds": elapsed, "puts_per_sec": float64(n.Load()) / elapsed,
		"server_cpu_seconds": cpu, "server_cpu_us_per_put": cpu / float64(n.Load()) * 1e6,
		"concurrency": *conc, "value_bytes": *valueBytes,
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

// cpuSeconds is utime+stime of a process (its own threads, /proc/PID/stat).
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		fail(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "streambench:", err)
	os.Exit(1)
}
