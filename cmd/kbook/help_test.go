package main

import (
	"testing"

	"github.com/k0rdent/kbook/internal/clidocs"
)

// TestHelpTexts: every command has its help file in internal/clidocs/help
// (its one-line description, and the long text and examples of --help and
// the CLI reference pages), every help file names a command, and all of
// them render.
func TestHelpTexts(t *testing.T) {
	if err := clidocs.Describe(newRootCmd()); err != nil {
		t.Error(err)
	}
}
