// Package test holds Kura's black-box tests: each test talks to a real Kura
// process on a loopback port through the official aws-sdk-go-v2 DynamoDB
// client, never a mock. TestMain builds cmd/kura once; most tests share one
// in-memory server, and tests that need their own (durability, restarts)
// start one with startKura.
package test
