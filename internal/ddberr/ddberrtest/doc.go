// Package ddberrtest is the tests' check of a DynamoDB error: its
// __type and exact message, as the error catalogue (package ddberr)
// builds them.
//
// State in memory: none; it only reads the errors it is given.
package ddberrtest
