package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestCompat: a leading -v moves behind the command's own flags (it
// means --verbose), and -v alone still prints the version, with a note.
func TestCompat(t *testing.T) {
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
			got := compat(in, &stderr)
			if !slices.Equal(got, tc.want) {
				t.Errorf("compat(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Errorf("compat changed its input: %q, was %q", in, tc.in)
			}
			if tc.note == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.note) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.note)
			}
		})
	}
}

// TestNormalize: go test's -run spellings become --run; nothing else
// changes.
func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"run", "-run", "Apply", "x.md"}, []string{"run", "--run", "Apply", "x.md"}},
		{[]string{"run", "-run=Apply/2", "x.md"}, []string{"run", "--run=Apply/2", "x.md"}},
		{[]string{"run", "--run=Apply", "-runner", "-p", "2"}, []string{"run", "--run=Apply", "-runner", "-p", "2"}},
		{[]string{"run", "-run="}, []string{"run", "-run="}},
	} {
		if got := normalize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestOutDir: -o of build and import mkdocs is --out, with a note; -o of
// another command, and an argument after "--", stay as they are.
func TestOutDir(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
		note     bool
	}{
		{[]string{"build", "-o", "site", "docs"}, []string{"build", "--out", "site", "docs"}, true},
		{[]string{"build", "-osite"}, []string{"build", "--out=site"}, true},
		{[]string{"import", "mkdocs", "-o=x", "src"}, []string{"import", "mkdocs", "--out=x", "src"}, true},
		{[]string{"build", "--out", "site", "--", "-o"}, []string{"build", "--out", "site", "--", "-o"}, false},
		{[]string{"import", "-o", "x"}, []string{"import", "-o", "x"}, false},
		{[]string{"check", "-o", "json"}, []string{"check", "-o", "json"}, false},
		{[]string{"-v", "build", "-o", "x"}, []string{"build", "--out", "x", "-v"}, true},
	} {
		var stderr bytes.Buffer
		in := slices.Clone(tc.in)
		if got := Args(in, &stderr); !slices.Equal(got, tc.want) {
			t.Errorf("Args(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("Args changed its input: %q, was %q", in, tc.in)
		}
		if note := strings.Contains(stderr.String(), "-o as the output folder is deprecated: use --out"); note != tc.note {
			t.Errorf("Args(%q): stderr %q, want the note: %v", tc.in, stderr.String(), tc.note)
		}
	}
}
