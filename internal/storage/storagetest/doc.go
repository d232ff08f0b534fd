// Package storagetest is the conformance suite every storage.Store backend
// must pass. A backend's test calls Run with a function that opens a fresh,
// empty store:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Store { return memory.New() })
//	}
//
// Run closes each store it opens; open need not register a Close.
package storagetest
