package runbook

import (
	"errors"
	"slices"
	"testing"
)

// TestWords: script lines split as go-internal's testscript splits them
// (TestScript.parse), so that kbook check rejects what testscript would
// stop at, and accepts what it runs.
func TestWords(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"# a comment", nil},
		{"exec echo hi", []string{"exec", "echo", "hi"}},
		{"exec\techo  hi\r", []string{"exec", "echo", "hi"}},
		{"exec echo hi # not an argument", []string{"exec", "echo", "hi"}},
		{"exec echo a#b", []string{"exec", "echo", "a"}},
		{"exec echo 'a b'", []string{"exec", "echo", "a b"}},
		{"exec echo 'a # b'", []string{"exec", "echo", "a # b"}},
		{"exec echo x'a b'y", []string{"exec", "echo", "xa by"}},
		{"exec echo 'it''s'", []string{"exec", "echo", "it's"}},
		{"exec echo ''", []string{"exec", "echo", ""}},
		// Only ' quotes: " is an ordinary character.
		{`exec echo "a b"`, []string{"exec", "echo", `"a`, `b"`}},
		{`exec echo "never closed`, []string{"exec", "echo", `"never`, "closed"}},
		{"'exec' true", []string{"exec", "true"}},
		{"[!net] ! exec false", []string{"[!net]", "!", "exec", "false"}},
		// No expansion: the runner does that at run time.
		{"exec echo $HOME '$WORK'", []string{"exec", "echo", "$HOME", "$WORK"}},
	} {
		got, err := Words(tc.line)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
	for _, line := range []string{"exec echo 'never closed", "exec echo 'a''", "'", "exec echo ok 'a'b'"} {
		if got, err := Words(line); !errors.Is(err, ErrUnterminatedQuote) {
			t.Errorf("Words(%q) = %q, %v; want ErrUnterminatedQuote", line, got, err)
		}
	}
}
