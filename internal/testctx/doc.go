// Package testctx gives kbook's integration tests their context: one whose
// only time limit is go test's -timeout (less a grace period), never a
// duration typed into a test. A build or an API server that is slow on a
// loaded machine then makes a test slow, not red; a real hang still ends,
// named by the step that waited, before the test binary panics.
package testctx
