package release

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/docs/scaffold"
	"go.yaml.in/yaml/v3"
)

// action is the part of action.yml this test reads.
type action struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }   `yaml:"outputs"`
	Runs    struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]string `yaml:"with"`
}

func readAction(t *testing.T) action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// TestAction checks action.yml as far as it can be without GitHub's
// runner (none here): it is a composite action whose install step runs
// hack/install.sh with every variable the script reads and no other, the
// cache it restores is the one it saves (also after a failed command),
// its outputs are the ones the script writes, and the workflow kbook init
// docs writes passes it only inputs it has. Then it runs the install step
// and the command step as the runner would (bash -e, the step's
// environment, GITHUB_PATH and GITHUB_OUTPUT files) against a release
// host in process.
func TestAction(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q", a.Runs.Using)
	}
	steps := map[string]actionStep{}
	for _, s := range a.Runs.Steps {
		switch {
		case s.ID == "install":
			steps["install"] = s
		case strings.HasPrefix(s.Uses, "actions/cache/restore@"):
			steps["restore"] = s
		case strings.HasPrefix(s.Uses, "actions/cache/save@"):
			steps["save"] = s
		case s.Run == "${{ inputs.run }}":
			steps["run"] = s
		}
	}
	if len(steps) != 4 || len(a.Runs.Steps) != 4 {
		t.Fatalf("want the steps install, restore, run, save; found %v in %d", slices.Sorted(maps.Keys(steps)), len(a.Runs.Steps))
	}
	install, restore, run, save := steps["install"], steps["restore"], steps["run"], steps["save"]

	script, err := os.ReadFile(installScript)
	if err != nil {
		t.Fatal(err)
	}
	if install.Run != `sh "$GITHUB_ACTION_PATH/hack/install.sh"` {
		t.Errorf("install step runs %q", install.Run)
	}
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{(KBOOK_[A-Z0-9_]+)`).FindAllStringSubmatch(string(script), -1) {
		read[m[1]] = true
	}
	for k := range install.Env {
		if !read[k] {
			t.Errorf("the install step sets %s, which hack/install.sh does not read", k)
		}
	}
	for k := range read {
		if _, ok := install.Env[k]; !ok && k != "KBOOK_OS" && k != "KBOOK_ARCH" {
			t.Errorf("hack/install.sh reads %s, which the install step does not set", k)
		}
	}
	if restore.With["path"] != "~/.cache/kbook" || save.With["path"] != restore.With["path"] || save.With["key"] != restore.With["key"] ||
		!strings.Contains(restore.With["key"], "steps.install.outputs.version") {
		t.Errorf("restore %v and save %v differ, or are not of ~/.cache/kbook per kbook version", restore.With, save.With)
	}
	if !strings.Contains(save.If, "!cancelled()") || !strings.Contains(save.If, "steps.install.outcome == 'success'") {
		t.Errorf("save runs if %q: want it after a failed command too, not after a failed install", save.If)
	}
	for name, o := range a.Outputs {
		if o.Value != "${{ steps.install.outputs."+name+" }}" || !strings.Contains(string(script), name+"=") {
			t.Errorf("output %s = %q: not one hack/install.sh writes", name, o.Value)
		}
	}

	files, err := scaffold.Files(scaffold.Options{Title: "t", KbookVersion: "v0.3.0"})
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct{ Steps []actionStep } `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(files[".github/workflows/docs.yml"], &wf); err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, s := range wf.Jobs["build"].Steps {
		if !strings.HasPrefix(s.Uses, "k0rdent/kbook@") {
			continue
		}
		used++
		for k := range s.With {
			if _, ok := a.Inputs[k]; !ok {
				t.Errorf("kbook init docs' workflow passes %s, which action.yml has no input for", k)
			}
		}
	}
	if used != 1 {
		t.Errorf("kbook init docs' workflow uses the action %d times", used)
	}

	// The install and command steps, run as the runner runs them.
	root := t.TempDir()
	fakeRelease(t, root, "v1.0.0", "v1.0.0")
	host := newReleaseHost(t, root, "v1.0.0")
	repo, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	gh, temp := t.TempDir(), t.TempDir()
	expr := map[string]string{
		"${{ inputs.version != '' && inputs.version || github.action_ref }}": "v1.0.0",
		"${{ inputs.sha256 }}":            "",
		"${{ inputs.base-url }}":          host.URL,
		"${{ runner.temp }}/kbook-bin":    filepath.Join(temp, "kbook-bin"),
		"${{ inputs.working-directory }}": t.TempDir(),
		"${{ inputs.run }}":               "kbook version\nkbook version | grep -q 'v1.0.0' && echo ran in \"$PWD\"",
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GITHUB_ACTION_PATH=" + repo,
		"GITHUB_PATH=" + filepath.Join(gh, "path"), "GITHUB_OUTPUT=" + filepath.Join(gh, "output")}
	for k, v := range install.Env {
		val, ok := expr[v]
		if !ok {
			t.Fatalf("the install step's %s is %q, which this test cannot evaluate: add it to expr", k, v)
		}
		env = append(env, k+"="+val)
	}
	out, err := bashStep(install.Run, "", env)
	if err != nil {
		t.Fatalf("install step: %v\n%s", err, out)
	}
	path, _ := os.ReadFile(filepath.Join(gh, "path"))
	output, _ := os.ReadFile(filepath.Join(gh, "output"))
	if !strings.Contains(string(output), "version=v1.0.0\n") {
		t.Errorf("GITHUB_OUTPUT: %q", output)
	}
	// The runner puts GITHUB_PATH's lines before PATH in later steps.
	env[0] = "PATH=" + strings.TrimSpace(string(path)) + ":" + os.Getenv("PATH")
	wd := expr[run.WorkingDirectory]
	out, err = bashStep(expr[run.Run], wd, env)
	if err != nil || !strings.Contains(out, "kbook v1.0.0 (") || !strings.Contains(out, "ran in "+wd) {
		t.Errorf("command step: %v\n%s", err, out)
	}
}

// bashStep runs a step's script as GitHub's runner does for shell: bash.
func bashStep(script, dir string, env []string) (string, error) {
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
