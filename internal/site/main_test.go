package site

import (
	"os"
	"testing"
)

// TestMain lets this test binary be the child a Hugo build runs in
// (RunHugoChild), as kbook's main does.
func TestMain(m *testing.M) {
	RunHugoChild()
	os.Exit(m.Run())
}
