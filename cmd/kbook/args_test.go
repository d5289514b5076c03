package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestCompatArgs: a leading -v moves behind the command's own flags (it
// means --verbose), and -v alone still prints the version, with a note.
func TestCompatArgs(t *testing.T) {
	for _, tc := range []struct {
		name, note string
		in, want   []string
	}{
		{name: "no args", in: nil, want: nil},
		{name: "no -v first", in: []string{"run", "-v", "x.md"}, want: []string{"run", "-v", "x.md"}},
		{name: "-v alone", in: []string{"-v"}, want: []string{"--version"}, note: "-v for the version is deprecated"},
		{name: "-v before the command", in: []string{"-v", "run", "x.md"}, want: []string{"run", "x.md", "-v"}},
		{name: "-v before a --", in: []string{"-v", "run", "x.md", "--", "-p"}, want: []string{"run", "x.md", "-v", "--", "-p"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			in := slices.Clone(tc.in)
			got := compatArgs(in, &stderr)
			if !slices.Equal(got, tc.want) {
				t.Errorf("compatArgs(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Errorf("compatArgs changed its input: %q, was %q", in, tc.in)
			}
			if tc.note == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.note) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.note)
			}
		})
	}
}

// TestNormalizeArgs: go test's -run spellings become --run; nothing else
// changes.
func TestNormalizeArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"run", "-run", "Apply", "x.md"}, []string{"run", "--run", "Apply", "x.md"}},
		{[]string{"run", "-run=Apply/2", "x.md"}, []string{"run", "--run=Apply/2", "x.md"}},
		{[]string{"run", "--run=Apply", "-runner", "-p", "2"}, []string{"run", "--run=Apply", "-runner", "-p", "2"}},
		{[]string{"run", "-run="}, []string{"run", "-run="}},
	} {
		if got := normalizeArgs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("normalizeArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
