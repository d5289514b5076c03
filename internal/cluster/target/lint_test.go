package target

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/runbook"
)

// TestLint: the pass and fail fixtures of cluster-undeclared, and the
// kubectl and helm lines that do or do not talk to a cluster.
func TestLint(t *testing.T) {
	for _, tc := range []struct {
		file string
		want string // "line rule", or ""
	}{
		{"fail.md", "8 " + RuleClusterUndeclared}, // the first line that needs one, once
		{"pass.md", ""},
		{"client-only.md", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rbs, err := runbook.Load([]string{filepath.Join("testdata", "lint", tc.file)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Lint(rbs[0]) {
				got = append(got, strconv.Itoa(f.Line)+" "+f.Rule)
				if !strings.Contains(f.Message, "requires: [cluster]") || !strings.HasSuffix(f.File, tc.file) {
					t.Errorf("finding %s: want the file and the fix", f)
				}
			}
			if strings.Join(got, ";") != tc.want {
				t.Errorf("Lint = %v, want %q", got, tc.want)
			}
		})
	}
	for line, want := range map[string]string{
		"exec kubectl apply -f x.yaml":                   "kubectl apply",
		"! exec kubectl get ns missing":                  "kubectl get",
		"[exec:kubectl] exec kubectl --context k get ns": "kubectl get",
		"exec kubectl version --client":                  "",
		"exec kubectl get --help":                        "",
		"exec helm install acme ./chart":                 "helm install",
		"exec helm -n x list":                            "helm list",
		"exec helm template acme ./chart":                "",
		"exec echo kubectl get ns":                       "",
		"stdout kubectl":                                 "",
	} {
		if got := clusterCommand(line); got != want {
			t.Errorf("clusterCommand(%q) = %q, want %q", line, got, want)
		}
	}
}
