package clidocs

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestDescribe: a command's words come from its help file (the Long and
// Example verbatim, templates rendered); a command without a file and a
// file without a command are errors naming them, and the others are
// described anyway.
func TestDescribe(t *testing.T) {
	root := &cobra.Command{Use: "tool"}
	run := &cobra.Command{Use: "run", Run: func(*cobra.Command, []string) {}}
	x := &cobra.Command{Use: "x", Run: func(*cobra.Command, []string) {}}
	missing := &cobra.Command{Use: "missing", Run: func(*cobra.Command, []string) {}}
	root.AddCommand(run, x, missing)
	root.InitDefaultHelpCmd() // cobra's own: no file needed
	err := describe(root, os.DirFS("testdata"), "help", map[string]string{"Count": "2"})
	if err == nil {
		t.Fatal("no error for a command without help and a stray file")
	}
	for _, want := range []string{`command "tool missing" has no help text`, `help/tool_gone.md: no command "tool gone"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "bad_noheading") == false {
		t.Errorf("error %q does not name the stray bad_noheading.md", err)
	}
	for _, tc := range []struct {
		c                    *cobra.Command
		short, long, example string
	}{
		{root, "The tool", "The tool does things.\n\nIt has 2 commands.", "  tool run\n\n  # indented comment stays\n  tool run -v"},
		{run, "Run things", "", ""},
		{x, "Only examples", "", "  tool x"},
	} {
		if tc.c.Short != tc.short || tc.c.Long != tc.long || tc.c.Example != tc.example {
			t.Errorf("%s: got %q, %q, %q; want %q, %q, %q", tc.c.CommandPath(), tc.c.Short, tc.c.Long, tc.c.Example, tc.short, tc.long, tc.example)
		}
	}
}

func TestParseHelp(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no heading", "Run things\n", "line 1"},
		{"empty heading", "# \n", "line 1"},
		{"no blank line", "# Run\nLong text\n", "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, _, err := parseHelp(tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestHelpValues: every value the help files name renders (a missing one
// is an error, missingkey=error), and none is empty.
func TestHelpValues(t *testing.T) {
	for k, v := range helpValues() {
		if strings.TrimSpace(v) == "" {
			t.Errorf("help value %s is empty", k)
		}
	}
}
