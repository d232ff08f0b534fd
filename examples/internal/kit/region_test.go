package kit

import "testing"

// The examples read the region as the SDKs and the CLI do, the README's
// AWS_DEFAULT_REGION included (they read only AWS_REGION before).
func TestRegionFromEnv(t *testing.T) {
	for env, want := range map[[2]string]string{
		{"", ""}:                    "us-east-1",
		{"", "eu-west-1"}:           "eu-west-1",
		{"ap-south-1", "eu-west-1"}: "ap-south-1",
	} {
		got := regionFromEnv(func(k string) string {
			return map[string]string{"AWS_REGION": env[0], "AWS_DEFAULT_REGION": env[1]}[k]
		})
		if got != want {
			t.Errorf("AWS_REGION=%q AWS_DEFAULT_REGION=%q: %s, want %s", env[0], env[1], got, want)
		}
	}
}
