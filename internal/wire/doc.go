// Package wire holds the DynamoDB JSON 1.0 request and response shapes as Go
// structs. types_gen.go is generated from the official aws-sdk-go-v2 client
// so that member names and nesting match the API exactly; scalars are
// pointers so that an absent member differs from a zero one.
package wire

//go:generate go run ./gen
