package scaffold

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestWorkflowPinsKbook: the workflow installs the release that
// scaffolded the repository with kbook's action at the same tag (no Go,
// no go install); a development build, a go install of a commit or no
// version at all pins the newest release with the action at main.
func TestWorkflowPinsKbook(t *testing.T) {
	for _, tc := range []struct{ version, ref, want string }{
		{"v0.3.0", "v0.3.0", "v0.3.0"},
		{"v1.2.0-rc.1", "v1.2.0-rc.1", "v1.2.0-rc.1"},
		{"devel+3f2a1c9e0b1d-dirty", "main", "latest"},
		{"devel", "main", "latest"},
		{"v0.0.0-20261206074112-a50194d0e1c2", "main", "latest"},
		{"v0.3.0+dirty", "main", "latest"},
		{"", "main", "latest"},
	} {
		files, err := Files(Options{Title: "t", KbookVersion: tc.version})
		if err != nil {
			t.Fatal(err)
		}
		wf := files[".github/workflows/docs.yml"]
		var doc struct {
			Jobs map[string]struct {
				Steps []struct {
					Uses string            `yaml:"uses"`
					Run  string            `yaml:"run"`
					With map[string]string `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(wf, &doc); err != nil {
			t.Fatalf("%q: docs.yml: %v\n%s", tc.version, err, wf)
		}
		var uses []string
		for _, s := range doc.Jobs["build"].Steps {
			if strings.Contains(s.Run, "go install") || strings.HasPrefix(s.Uses, "actions/setup-go") {
				t.Errorf("%q: the workflow still builds kbook: %+v", tc.version, s)
			}
			if !strings.HasPrefix(s.Uses, "k0rdent/kbook@") {
				continue
			}
			uses = append(uses, s.Uses)
			if s.Uses != "k0rdent/kbook@"+tc.ref || s.With["version"] != tc.want {
				t.Errorf("%q: uses %s with version %q, want k0rdent/kbook@%s with version %q", tc.version, s.Uses, s.With["version"], tc.ref, tc.want)
			}
			for _, cmd := range []string{"kbook check runbooks/", "kbook build --all-versions --out public"} {
				if !strings.Contains(s.With["run"], cmd) {
					t.Errorf("%q: the action's run lacks %q: %q", tc.version, cmd, s.With["run"])
				}
			}
		}
		if len(uses) != 1 {
			t.Errorf("%q: %d steps use kbook's action, want 1:\n%s", tc.version, len(uses), wf)
		}
	}
}
