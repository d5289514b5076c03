package docsrepo

import (
	"regexp"
	"testing"
)

// TestMayHold: the word asked first never hides a match of the
// expressions that find a page's runbook steps and run: shell.
func TestMayHold(t *testing.T) {
	for _, src := range []string{
		"# Page\n\n```testscript\nexec true\n```\n",
		"# Page\n\n> ~~~ testscript\n",
		"  ````testscript x\n",
		"```bash\necho testscript\n```\n",
		"---\nrun: shell\n---\n# P\n",
		"---\nrun: 'shell'  \n---\n",
		"run: shells\n",
		"# No steps\n\nPlain prose.\n",
		"",
	} {
		for word, re := range map[string]*regexp.Regexp{"testscript": testscriptFence, "run:": runShellFront} {
			if got, want := mayHold([]byte(src), word, re), re.MatchString(src); got != want {
				t.Errorf("%q, %s: %v, want %v", src, word, got, want)
			}
		}
	}
}
