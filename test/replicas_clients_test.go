package test

import (
	"os"
	"os/exec"
	"testing"
)

// TestBoto3GlobalTables runs test/clients/python/test_boto3_global_tables.py
// against a Kura of four regions with authentication on (boto3 signs each
// request for its client's region) and the admin endpoints: a replica
// created, written in one region and read in the other, updated and
// deleted; an MRSC table of three replicas read strongly in another region
// and refusing a conflicting write. Skipped where python3 or boto3 is
// missing.
func TestBoto3GlobalTables(t *testing.T) {
	if exec.Command("python3", "-c", "import boto3").Run() != nil {
		t.Skip("python3 with boto3 not available")
	}
	k := startKura(t, append([]string{"--in-memory", "--regions", "us-east-1,eu-west-1,us-east-2,us-west-2", "--admin"}, clientCredentials...)...)
	cmd := exec.Command("python3", "-m", "unittest", "-v", "test_boto3_global_tables")
	cmd.Dir = "clients/python"
	cmd.Env = append(os.Environ(), "KURA_ENDPOINT="+k.endpoint, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("boto3 global tables failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
