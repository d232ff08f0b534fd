// Command replag makes the table a ddbbench run creates a global table
// and measures its replication lag under the run's load. It is a
// benchmark tool, not part of the server.
//
// It waits for the first table whose name starts with --prefix in
// --region, gives it a NEW_AND_OLD_IMAGES stream and a replica in each of
// --replicas (one at a time, each ACTIVE before the next), and then, for
// --probe-for after --probe-after, writes one probe item (a key outside
// ddbbench's key space) every --every in --region and reads it back in
// the first replica's region until the new version is there: the lag is
// the time from the write's answer to the first read that returned it,
// so it is exact to within one GetItem round trip. A probe not there
// after 5 s stops the probing (replication is not keeping up). The probe
// item is deleted at the end (ddbbench's put check counts the items). It
// prints one JSON line: the probes, lag p50/p90/p99/max in ms, and the
// writes queued per region at the start and end of the probing, with the
// first replica's backlog growth per second (/admin/replication/status;
// the server must run with --admin).
//
//	kura --regions us-east-1,eu-west-1 --admin ... &
//	go run ./bench/replag --endpoint http://127.0.0.1:8300 --replicas eu-west-1 &
//	ddbbench --endpoint http://127.0.0.1:8300 --workload put --concurrency 16 --duration 20s --server-pid $PID --json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func main() {
	endpoint := flag.String("endpoint", "", "Kura's URL")
	region := flag.String("region", "us-east-1", "the region ddbbench writes in")
	replicas := flag.String("replicas", "eu-west-1", "comma-separated regions to add replicas in")
	prefix := flag.String("prefix", "ddbbench_put_", "name prefix of the table to replicate")
	after := flag.Duration("probe-after", 4*time.Second, "wait after the replicas are ACTIVE (the preload and warm-up)")
	probeFor := flag.Duration("probe-for", 14*time.Second, "how long to probe")
	every := flag.Duration("every", 50*time.Millisecond, "time between probes")
	flag.Parse()
	if err := run(*endpoint, *region, strings.Split(*replicas, ","), *prefix, *after, *probeFor, *every); err != nil {
		fmt.Fprintln(os.Stderr, "replag:", err)
		os.Exit(1)
	}
}

func client(endpoint, region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: region, BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", ""), Retryer: aws.NopRetryer{}})
}

func run(endpoint, region string, replicas []string, prefix string, after, probeFor, every time.Duration) error {
	ctx := context.Background()
	src := client(endpoint, region)
	table, err := waitForTable(ctx, src, prefix)
	if err != nil {
		return err
	}
	if _, err := src.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &table,
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
		return err
	}
	for _, r := range replicas {
		if err := addReplica(ctx, src, table, r); err != nil {
			return err
		}
	}
	time.Sleep(after)
	before, err := status(endpoint)
	if err != nil {
		return err
	}
	start := time.Now()
	lags, lost, err := probe(ctx, src, client(endpoint, replicas[0]), table, probeFor, every)
	if err != nil {
		return err
	}
	backlog, err := status(endpoint)
	if err != nil {
		return err
	}
	slices.Sort(lags)
	secs := time.Since(start).Seconds()
	growth := float64(backlog[replicas[0]]-before[replicas[0]]) / secs
	out := map[string]any{"table": table, "replicas": replicas, "probes": len(lags), "probe_s": secs,
		"backlog_at_start": before, "backlog_at_end": backlog, "backlog_growth_per_s": growth}
	if lost {
		out["gave_up"] = fmt.Sprintf("a probe was not in %s after %s: probing stopped", replicas[0], giveUp)
	}
	for _, p := range []float64{50, 90, 99, 100} {
		out["lag_p"+strconv.Itoa(int(p))+"_ms"] = pct(lags, p)
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// waitForTable returns the first table named prefix... once it is ACTIVE.
func waitForTable(ctx context.Context, c *dynamodb.Client, prefix string) (string, error) {
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err != nil {
			continue // not up yet
		}
		for _, n := range out.TableNames {
			if strings.HasPrefix(n, prefix) && active(ctx, c, n, "") {
				return n, nil
			}
		}
	}
	return "", fmt.Errorf("no table %s* appeared", prefix)
}

// active reports whether table is ACTIVE (and its replica in region, if
// region is not "").
func active(ctx context.Context, c *dynamodb.Client, table, region string) bool {
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil || d.Table.TableStatus != types.TableStatusActive {
		return false
	}
	return region == "" || slices.ContainsFunc(d.Table.Replicas, func(r types.ReplicaDescription) bool {
		return aws.ToString(r.RegionName) == region && r.ReplicaStatus == types.ReplicaStatusActive
	})
}

func addReplica(ctx context.Context, c *dynamodb.Client, table, region string) error {
	for {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &table,
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: &region}}}})
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "ResourceInUse") {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	for deadline := time.Now().Add(2 * time.Minute); !active(ctx, c, table, region); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the replica in %s was not ACTIVE after 2 minutes", region)
		}
	}
	return nil
}

// giveUp is how long a probe waits for its write in the replica before
// probing stops (replication is not keeping up).
const giveUp = 5 * time.Second

// probe writes the probe item in src every interval for d and returns
// each write's lag to dst, and whether it gave up on one (not counted).
func probe(ctx context.Context, src, dst *dynamodb.Client, table string, d, every time.Duration) (lags []float64, lost bool, err error) {
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "replag#probe"}, "sk": &types.AttributeValueMemberS{Value: "p"}}
	defer func() {
		if _, derr := src.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: key}); err == nil {
			err = derr
		}
	}()
	for i, end := 1, time.Now().Add(d); time.Now().Before(end) && !lost; i++ {
		item := map[string]types.AttributeValue{"seq": &types.AttributeValueMemberN{Value: strconv.Itoa(i)}}
		for k, v := range key {
			item[k] = v
		}
		if _, err := src.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			return nil, false, err
		}
		acked := time.Now()
		for {
			out, err := dst.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key})
			if err != nil {
				return nil, false, err
			}
			if n, ok := out.Item["seq"].(*types.AttributeValueMemberN); ok && n.Value == strconv.Itoa(i) {
				lags = append(lags, float64(time.Since(acked).Microseconds())/1000)
				break
			}
			if time.Since(acked) > giveUp {
				lost = true
				break
			}
		}
		time.Sleep(every)
	}
	return lags, lost, nil
}

// status is the writes queued per region.
func status(endpoint string) (map[string]int, error) {
	resp, err := http.Post(endpoint+"/admin/replication/status", "application/json", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct{ Backlog map[string]int }
	return out.Backlog, json.NewDecoder(resp.Body).Decode(&out)
}

// pct is the p-th percentile of sorted xs (nearest rank).
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(float64(len(xs))*p/100+0.5) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}
