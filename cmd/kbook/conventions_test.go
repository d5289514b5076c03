package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/k0rdent/kbook/internal/cli"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/template/scaffold"
)

// The conventions every command follows (issue 38 item 5), checked over
// the whole command tree in process: -o is the output format and refuses
// any other value with exit 2 and one error; - is stdout for every report
// file; exit codes 0 (fine), 1 (found or failed), 2 (bad input); the
// shell completes flag values.

// kbook runs a command line in process: its exit code, stdout and stderr.
func kbook(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = execute(t.Context(), args, &out, &errs)
	return code, out.String(), errs.String()
}

// flagsOf walks the command tree: each command's path (without "kbook ")
// and its flags that match.
func flagsOf(match func(*pflag.Flag) bool) map[string][]*pflag.Flag {
	m := map[string][]*pflag.Flag{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			if match(f) {
				path := strings.TrimPrefix(c.CommandPath(), "kbook ")
				m[path] = append(m[path], f)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd())
	return m
}

// withOutput are the commands that print a result and take -o for its
// format; TestOutputFlag fails when the tree has another or lacks one.
var withOutput = []string{
	"chain validate", "check", "cluster image", "cluster status",
	"provider conformance", "provider manifest", "provider validate",
	"status", "template manifest", "template render", "template validate",
	"upgrade apply", "upgrade check", "upgrade window", "version",
}

// TestOutputFlag: every command with -o accepts each format it lists, and
// refuses another with exit 2, nothing on stdout and one error naming the
// formats, before anything runs.
func TestOutputFlag(t *testing.T) {
	outputs := flagsOf(func(f *pflag.Flag) bool { return f.Name == "output" })
	var paths []string
	for path := range outputs {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	if !slices.Equal(paths, withOutput) {
		t.Errorf("commands with -o: %q, want %q", paths, withOutput)
	}
	for _, path := range paths {
		f := outputs[path][0]
		choices := cli.Choices(f)
		if f.Shorthand != "o" || len(choices) < 2 || f.DefValue != choices[0] {
			t.Errorf("%s: -o is -%s, choices %q, default %q: want -o, the choices, the first the default", path, f.Shorthand, choices, f.DefValue)
		}
		for _, v := range choices {
			if err := f.Value.Set(v); err != nil {
				t.Errorf("%s -o %s: %v", path, v, err)
			}
		}
		args := append(strings.Fields(path), "-o", "xml")
		code, stdout, stderr := kbook(t, args...)
		want := `Error: invalid argument "xml" for "-o, --output" flag: want ` + findings.OneOf(choices) + "\n" +
			"Run 'kbook " + path + " --help' for usage.\n"
		if code != findings.ExitBadInput || stdout != "" || stderr != want {
			t.Errorf("kbook %s -o xml: exit %d, stdout %q, stderr\n%s\nwant exit 2 and\n%s", path, code, stdout, stderr, want)
		}
	}
	// -o is the format there too: the output folder of build and import
	// mkdocs is --out.
	for _, path := range []string{"build", "import mkdocs"} {
		if f := flagsOf(func(f *pflag.Flag) bool { return f.Name == "out" })[path]; len(f) != 1 || f[0].Shorthand != "" {
			t.Errorf("%s: want --out without a shorthand", path)
		}
	}
}

// TestOutputFormats runs the commands that need no cluster with each
// format their -o lists: the exit code, and stdout in that format.
func TestOutputFormats(t *testing.T) {
	t.Setenv("KBOOK_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.md":  "# OK\n\n```testscript\nexec echo ok\n```\n",
		"bad.md": "# Bad\n\n```testscript\nkubctl get pods\n```\n",
	})
	examples, _ := filepath.Abs("../../examples")
	outputs := flagsOf(func(f *pflag.Flag) bool { return f.Name == "output" })
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"version"}, 0},
		{[]string{"check", filepath.Join(dir, "ok.md")}, 0},
		{[]string{"check", filepath.Join(dir, "bad.md")}, 1},
		{[]string{"template", "manifest", filepath.Join(examples, "templates/acme-docker"), "--repo", "r"}, 0},
		{[]string{"template", "render", filepath.Join(examples, "templates/acme-docker")}, 0},
		{[]string{"template", "validate", filepath.Join(examples, "templates/acme-docker"), "--k0rdent", "none"}, 0},
		{[]string{"provider", "manifest", filepath.Join(examples, "providers/inventory/chart"), "--repo", "r"}, 0},
		{[]string{"provider", "validate", filepath.Join(examples, "providers/inventory/infrastructure-components.yaml")}, 0},
	} {
		path := tc.args[0]
		if len(tc.args) > 1 && !strings.Contains(tc.args[1], "/") {
			path += " " + tc.args[1]
		}
		for _, format := range cli.Choices(outputs[path][0]) {
			code, stdout, stderr := kbook(t, append(tc.args, "-o", format)...)
			if code != tc.code {
				t.Errorf("kbook %s -o %s: exit %d, want %d; stderr:\n%s", strings.Join(tc.args, " "), format, code, tc.code, stderr)
			}
			if err := inFormat(format, stdout); err != nil {
				t.Errorf("kbook %s -o %s: %v; stdout:\n%s", strings.Join(tc.args, " "), format, err, stdout)
			}
		}
	}
}

// inFormat checks that out is a document in format.
func inFormat(format, out string) error {
	var v any
	switch format {
	case "json", "sarif":
		return json.Unmarshal([]byte(out), &v)
	case "yaml":
		if strings.HasPrefix(strings.TrimSpace(out), "{") {
			return errors.New("JSON, not YAML")
		}
		// Several documents (manifests) or one.
		for _, doc := range strings.Split(out, "\n---\n") {
			if err := sigsyaml.Unmarshal([]byte(doc), &v); err != nil {
				return err
			}
		}
		return nil
	}
	if out == "" || strings.HasPrefix(out, "{") {
		return fmt.Errorf("text output: %q", out)
	}
	return nil
}

// TestStdoutReports: - is stdout for every report file flag: the report
// alone on stdout, the summary on stderr, and no file named -.
func TestStdoutReports(t *testing.T) {
	t.Setenv("KBOOK_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, dir, map[string]string{"ok.md": "# OK\n\n```testscript\nexec echo ok\n```\n"})
	if code, _, stderr := kbook(t, "run", "--cluster", "none", "--json", "r.json", "ok.md"); code != 0 {
		t.Fatalf("kbook run: exit %d\n%s", code, stderr)
	}
	reports := flagsOf(func(f *pflag.Flag) bool { return strings.Contains(f.Usage, "- for stdout") })
	rows := map[string][]string{
		"run --json":           {"run", "--cluster", "none", "ok.md", "--json", "-"},
		"run --junit":          {"run", "--cluster", "none", "ok.md", "--junit", "-"},
		"report merge --json":  {"report", "merge", "r.json", "--json", "-"},
		"report merge --junit": {"report", "merge", "r.json", "--junit", "-"},
	}
	for path, flags := range reports {
		for _, f := range flags {
			if rows[path+" --"+f.Name] == nil {
				t.Errorf("kbook %s --%s takes - for stdout: add it to the table", path, f.Name)
			}
		}
	}
	for name, args := range rows {
		code, stdout, stderr := kbook(t, args...)
		if code != 0 {
			t.Errorf("kbook %s: exit %d\n%s", name, code, stderr)
		}
		var v any
		switch report := args[len(args)-2]; {
		case report == "--json" && json.Unmarshal([]byte(stdout), &v) != nil,
			report == "--junit" && !strings.HasPrefix(stdout, "<?xml") && !strings.HasPrefix(stdout, "<testsuites"):
			t.Errorf("kbook %s: stdout is not the report alone:\n%s", name, stdout)
		}
		if !strings.Contains(stderr, "kbook: 1 passed, 0 failed, 0 skipped\n") {
			t.Errorf("kbook %s: no summary on stderr:\n%s", name, stderr)
		}
		if _, err := os.Stat("-"); err == nil {
			t.Fatalf("kbook %s wrote a file named -", name)
		}
	}
}

// TestExitCodes: 0 when all is well, 1 when a check finds an error or a
// runbook fails, 2 for bad input (a bad flag, argument or file), with
// one error on stderr; the deprecated -o DIR of import mkdocs still works,
// with a note.
func TestExitCodes(t *testing.T) {
	t.Setenv("KBOOK_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, dir, map[string]string{
		"ok.md":            "# OK\n\n```testscript\nexec echo ok\n```\n",
		"fail.md":          "# Fail\n\n```testscript\nexec false\n```\n",
		"quote.md":         "# Quote\n\n```testscript\nexec echo 'open\n```\n",
		"mk/mkdocs.yml":    "site_name: Mk\n",
		"mk/docs/index.md": "# Mk\n",
	})
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"check", "ok.md"}, 0, ""},
		{[]string{"check", "quote.md"}, 2, "Error: quote.md:4: unterminated quoted argument"},
		{[]string{"check", "missing.md"}, 2, "Error: "},
		{[]string{"run", "--cluster", "none", "ok.md"}, 0, ""},
		{[]string{"run", "--cluster", "none", "fail.md"}, 1, ""},
		{[]string{"run", "--cluster", "none", "quote.md"}, 2, "Error: quote.md:4: unterminated quoted argument"},
		{[]string{"run", "--cluster", "nowhere", "ok.md"}, 2, "Error: "},
		{[]string{"run", "--no-such-flag"}, 2, "Error: unknown flag: --no-such-flag"},
		{[]string{"no-such-command"}, 2, "Error: unknown command \"no-such-command\""},
		{[]string{"version", "extra"}, 2, "Error: unknown command \"extra\""},
		{[]string{"import", "mkdocs", "-o", "imported", "mk"}, 0, cli.OutDirDeprecated + "\n"},
	} {
		code, _, stderr := kbook(t, tc.args...)
		if code != tc.code || !strings.HasPrefix(stderr, tc.stderr) || tc.code == 2 && strings.Count(stderr, "Error:") != 1 {
			t.Errorf("kbook %s: exit %d, stderr\n%s\nwant exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "imported", "kbook.yaml")); err != nil {
		t.Errorf("import mkdocs -o imported: %v", err)
	}
}

// TestCompleteFlagValues drives cobra's __complete as a shell does: each
// flag value kbook knows the choices of is completed with them, -o with
// the formats its flag accepts, and no file names.
func TestCompleteFlagValues(t *testing.T) {
	outputs := flagsOf(func(f *pflag.Flag) bool { return f.Name == "output" })
	rows := map[string][]string{
		"run --cluster":                {"auto", "local", "kind", "kubeconfig", "none"},
		"build --cluster":              {"auto", "local", "kind", "kubeconfig", "none"},
		"cluster up --cluster":         {"local", "kind", "kubeconfig"},
		"template init --provider":     scaffold.ProviderNames(),
		"template init --kind-image":   {"build"},
		"run --kind-image":             {"auto", "build"},
		"run --k0rdent":                controllers.K0rdentVersions(),
		"cluster assets --k0rdent":     controllers.K0rdentVersions(),
		"template validate --k0rdent":  append(controllers.K0rdentVersions(), "none"),
		"serve --assets-from":          assetsfrom.Names,
		"cluster assets --assets-from": assetsfrom.Names,
		"provider validate --target":   {"k0rdent", "capi"},
	}
	for path, flags := range outputs {
		rows[path+" --output"] = cli.Choices(flags[0])
	}
	for row, want := range rows {
		args := append([]string{"__complete"}, strings.Fields(row)...)
		code, stdout, _ := kbook(t, append(args, "")...)
		got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		directive := got[len(got)-1]
		if code != 0 || !slices.Equal(got[:len(got)-1], want) || directive != ":4" { // ShellCompDirectiveNoFileComp
			t.Errorf("kbook %s <TAB>: exit %d, %q, want %q and :4", row, code, got, want)
		}
	}
	// -o completes as --output does.
	if _, stdout, _ := kbook(t, "__complete", "template", "render", "-o", ""); stdout != "yaml\njson\n:4\n" {
		t.Errorf("kbook template render -o <TAB>: %q", stdout)
	}
}

// TestScaffoldNextHints: the command a scaffold prints after "next:" runs
// green as printed, in the folder the scaffold ran in (template init
// --extend wraps the acme-docker chart made first). Not run here: the
// hints of provider init --controller (make build compiles the provider,
// minutes) and init docs (kbook serve serves until stopped).
func TestScaffoldNextHints(t *testing.T) {
	t.Setenv("KBOOK_CACHE_DIR", t.TempDir())
	// --dependency-update reads Helm's settings: none of the user's.
	t.Setenv("HELM_REPOSITORY_CONFIG", filepath.Join(t.TempDir(), "repositories.yaml"))
	t.Setenv("HELM_REPOSITORY_CACHE", t.TempDir())
	t.Setenv("HELM_REGISTRY_CONFIG", filepath.Join(t.TempDir(), "config.json"))
	t.Chdir(t.TempDir())
	for _, init := range [][]string{
		{"template", "init", "acme-docker"},
		{"template", "init", "acme-k0s", "--provider", "k0smotron"},
		{"template", "init", "acme-wrap", "--extend", "acme-docker", "--registry", "registry.acme.io", "--label", "acme.io/team=platform"},
		{"provider", "init", "acme"},
	} {
		code, stdout, stderr := kbook(t, init...)
		_, next, ok := strings.Cut(stdout, "\nnext: ")
		if code != 0 || !ok {
			t.Errorf("kbook %s: exit %d, no next: hint\n%s%s", strings.Join(init, " "), code, stdout, stderr)
			continue
		}
		args := strings.Fields(next)
		if args[0] != "kbook" {
			t.Errorf("kbook %s: next: %q is not a kbook command", strings.Join(init, " "), next)
			continue
		}
		if code, stdout, stderr := kbook(t, args[1:]...); code != 0 {
			t.Errorf("kbook %s: next: %s: exit %d\n%s%s", strings.Join(init, " "), strings.TrimSpace(next), code, stdout, stderr)
		}
	}
}
