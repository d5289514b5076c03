package runbook

import (
	"strconv"
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // "line rule" of each finding
	}{
		{"clean", "---\nrequires: [exec:kubectl]\n---\n```yaml file=a.yaml\n```\n\n```testscript\nexec kubectl apply -f a.yaml\n```\n", nil},
		{"shell block not run", "```sh\nkubectl get ns\n```\n\n```testscript\nexec echo\n```\n", []string{"1 shell-not-run"}},
		{"shell block norun", "```console norun\n$ kubectl get ns\n```\n\n```testscript\nexec echo\n```\n", nil},
		{"no steps", "# Just prose\n", []string{"1 no-steps"}},
		{"unused file", "```yaml file=unused.yaml\n```\n\n```testscript\nexec echo\n```\n", []string{"1 file-unused"}},
		{"file used by path", "```yaml file=dir/a.yaml\n```\n\n```testscript\nexists $WORK/dir/a.yaml\n```\n", nil},
		{"undeclared exec", "```testscript\nexec helm version\nexec helm list\n```\n", []string{"2 exec-undeclared"}},
		{"exec guarded by condition", "```testscript\n[exec:helm] exec helm version\n! exec false\n```\n", nil},
		{"exec after a skip guard", "```testscript\n[!exec:helm] skip\n```\n\n```testscript\nexec helm version\n```\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rb, err := Parse("x.md", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Lint(rb) {
				got = append(got, strconv.Itoa(f.Line)+" "+f.Rule)
				if !strings.HasPrefix(f.String(), "x.md:") {
					t.Errorf("finding %q does not start with the file", f)
				}
			}
			if strings.Join(got, ";") != strings.Join(tc.want, ";") {
				t.Errorf("Lint = %v, want %v", got, tc.want)
			}
		})
	}
}
