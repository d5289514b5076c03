package run

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/testfile"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/report"
)

// TestRunBadInput: every bad option is one InputError naming it, before
// anything runs.
func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	rb := filepath.Join(dir, "a.md")
	if err := os.WriteFile(rb, []byte("# A\n\n```testscript\nexec true\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := Options{Paths: []string{rb}, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"parallel", func(o *Options) { o.Parallel = -1 }, "--parallel -1"},
		{"timeout", func(o *Options) { o.Timeout = 0 }, "--timeout 0s"},
		{"progress", func(o *Options) { o.Progress = "fancy" }, `--progress "fancy"`},
		{"env key", func(o *Options) { o.Env = []string{"=x"} }, `--env "=x"`},
		{"env unset", func(o *Options) { o.Env = []string{"KBOOK_RUN_TEST_UNSET"} }, "KBOOK_RUN_TEST_UNSET is not set"},
		{"same report", func(o *Options) { o.JSON, o.JUnit = filepath.Join(dir, "r"), filepath.Join(dir, "r") }, "one report would overwrite the other"},
		{"both reports to stdout", func(o *Options) { o.JSON, o.JUnit = "-", "-" }, "one report can go to stdout"},
		{"unterminated quote", func(o *Options) {
			o.Paths = []string{write(t, dir, "q.md", "# Q\n\n```testscript\nexec echo 'open\n```\n")}
		}, "q.md:4: unterminated quoted argument"},
		{"report dir", func(o *Options) { o.JSON = filepath.Join(dir, "no", "r.json") }, "does not exist"},
		{"shard", func(o *Options) { o.Shard = "3/2" }, "3/2"},
		{"missing runbook", func(o *Options) { o.Paths = []string{filepath.Join(dir, "none.md")} }, "none.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.edit(&o)
			rep, err := Run(context.Background(), o)
			if err == nil || !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want an input error containing %q", err, tc.want)
			}
			if rep != nil {
				t.Errorf("a report beside bad input")
			}
		})
	}
}

// TestRunPassesEnv: --env KEY passes kbook's own value; KEY=VALUE is kept.
func TestRunPassesEnv(t *testing.T) {
	t.Setenv("KBOOK_RUN_TEST", "from-host")
	got, err := passEnv([]string{"KBOOK_RUN_TEST", "B=2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"KBOOK_RUN_TEST=from-host", "B=2"}; !slices.Equal(got, want) {
		t.Errorf("env %q, want %q", got, want)
	}
}

// TestRunReport: a run writes the summary and its JSON report, failures
// in the report, not as an error.
func TestRunReport(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"ok.md": "exec true", "bad.md": "exec false"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# T\n\n```testscript\n"+body+"\n```\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	js := filepath.Join(t.TempDir(), "r.json")
	rep, err := Run(context.Background(), Options{Paths: []string{dir}, Parallel: 1, Timeout: time.Minute, NoCache: true,
		Cluster: Cluster{None: true}, JSON: js, IOStreams: log.IOStreams{Out: &out}})
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Summary(); s.Failed != 1 || s.Passed != 1 {
		t.Errorf("summary %+v, want 1 passed, 1 failed", s)
	}
	if _, err := os.Stat(js); err != nil {
		t.Errorf("JSON report: %v", err)
	}
	if out.Len() == 0 {
		t.Errorf("no summary printed")
	}
}

// TestRunShellPages: kbook.yaml's run.pages opts a page in without editing
// it; its shell blocks run, and a syntax error is bad input at its line
// before anything runs. A page it does not list is no runbook.
func TestRunShellPages(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		return testfile.Write(t, dir, name, content)
	}
	write("kbook.yaml", "run:\n  pages: [docs/guide/**/*.md]\n")
	page := write("docs/guide/intro/page.md", "# Intro\n\n```bash\nX=1\n```\n\n```sh\necho $((X+1))\n```\n\n```console\n2\n```\n")
	other := write("docs/other.md", "# Other\n\n```bash\necho hi\n```\n")
	var out bytes.Buffer
	base := Options{Paths: []string{page}, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}, IOStreams: log.IOStreams{Out: &out}}
	rep, err := Run(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Summary(); s.Passed != 1 || len(rep.Runbooks[0].Steps) != 2 {
		t.Fatalf("summary %+v\n%s", s, out.String())
	}
	if !strings.Contains(out.String(), "page.md:7: sh block passed (exit 0, output matched: shape)") {
		t.Errorf("the terminal does not show the block's result at its line:\n%s", out.String())
	}

	o := base
	o.Paths = []string{other}
	if _, err := Run(context.Background(), o); err == nil || !findings.IsInput(err) || !strings.Contains(err.Error(), "run.pages in kbook.yaml") {
		t.Errorf("a page kbook.yaml does not list: %v", err)
	}

	write("docs/guide/broken.md", "# Broken\n\n```bash\necho 'never closed\n```\n")
	o.Paths = []string{filepath.Join(dir, "docs", "guide", "broken.md")}
	if _, err := Run(context.Background(), o); err == nil || !findings.IsInput(err) || !strings.Contains(err.Error(), "broken.md:4: bash syntax") {
		t.Errorf("a syntax error: %v", err)
	}

	write("kbook.yaml", "run:\n  pages: [../elsewhere.md]\n")
	o.Paths = []string{page}
	if _, err := Run(context.Background(), o); err == nil || !findings.IsInput(err) || !strings.Contains(err.Error(), "run.pages") {
		t.Errorf("a glob outside the repository: %v", err)
	}
}

// write writes a file below dir and returns its path.
func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	return testfile.Write(t, dir, name, content)
}

// TestRunReportToStdout: --json - writes the report to Out, alone there
// (progress and the summary go to ErrOut), and no file named "-".
func TestRunReportToStdout(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, dir, "ok.md", "# T\n\n```testscript\nexec true\n```\n")
	var out, stdout bytes.Buffer
	if _, err := Run(context.Background(), Options{Paths: []string{"ok.md"}, Parallel: 1, Timeout: time.Minute, NoCache: true,
		Cluster: Cluster{None: true}, JSON: "-", IOStreams: log.IOStreams{Out: &stdout, ErrOut: &out}}); err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Runbooks) != 1 {
		t.Errorf("stdout is not the JSON report: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(out.String(), "kbook: 1 passed") {
		t.Errorf("the summary is not on ErrOut: %q", out.String())
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file named "-" was written`)
	}
}

// TestRunReadsKbookYAML: kbook run reads kbook.yaml as kbook check and
// build do: with no path, the runbooks folder it names; a misspelt key is
// bad input at its line (package check's TestCheckReadsKbookYAML is the
// same for kbook check).
func TestRunReadsKbookYAML(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, dir, "kbook.yaml", "title: t\nrunbooks: books\n")
	write(t, dir, "books/a.md", "# A\n\n```testscript\nexec true\n```\n")
	var out bytes.Buffer
	base := Options{Parallel: 1, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}, IOStreams: log.IOStreams{Out: &out}}
	rep, err := Run(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runbooks) != 1 || rep.Runbooks[0].Path != filepath.Join("books", "a.md") || rep.Runbooks[0].Status != report.Passed {
		t.Fatalf("runbooks %+v\n%s", rep.Runbooks, out.String())
	}

	write(t, dir, "kbook.yaml", "title: t\nrunbooks: books\nrun:\n  crdz: [crds]\n")
	for name, paths := range map[string][]string{"no path": nil, "a path": {filepath.Join("books", "a.md")}} {
		o := base
		o.Paths = paths
		_, err := Run(context.Background(), o)
		if !findings.IsInput(err) || !strings.HasPrefix(err.Error(), "kbook.yaml:4: field crdz not found in run (known: crds, pages, overlay)") {
			t.Errorf("run, %s: %v, want bad input at kbook.yaml:4", name, err)
		}
	}
}

// TestProjectCRDs: kbook.yaml's run.crds are the CRDs of a cluster kbook
// starts or reuses, unless --crds names others; --k0rdent brings its
// release's, and kbook installs nothing unasked into a --kubeconfig
// cluster.
func TestProjectCRDs(t *testing.T) {
	root := t.TempDir()
	write(t, root, "crds/a.yaml", "")
	crds := []string{"crds", "missing"}
	local := cluster.Options{Backend: cluster.Local}
	for _, tc := range []struct {
		name string
		c    Cluster
		want []string
	}{
		{"local", Cluster{Options: local}, []string{filepath.Join(root, "crds")}},
		{"kind", Cluster{Options: cluster.Options{Backend: cluster.Kind}}, []string{filepath.Join(root, "crds")}},
		{"reused", Cluster{Reuse: "default"}, []string{filepath.Join(root, "crds")}},
		{"--crds", Cluster{Options: cluster.Options{Backend: cluster.Local, CRDs: []string{"given"}}}, []string{"given"}},
		{"--k0rdent", Cluster{Options: cluster.Options{Backend: cluster.Local, K0rdent: "v1.11.4"}}, nil},
		{"kubeconfig", Cluster{Options: cluster.Options{Backend: cluster.Kubeconfig}}, nil},
		{"none", Cluster{None: true}, nil},
	} {
		if got := projectCRDs(tc.c, root, crds); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRunOverlay: the docs root's kbook.overlay.yaml applies to its pages
// without editing them; a rule that matches nothing, or a bad overlay, is
// bad input at the overlay's line before anything runs.
func TestRunOverlay(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kbook.yaml", "run:\n  pages: [docs/*.md]\n")
	page := write(t, dir, "docs/page.md", "# Cloud\n\n```bash\naws-kbook-none s3 ls\n```\n\n```bash\necho ok\n```\n")
	ov := "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\nrules:\n  - page: docs/page.md\n    command: ^aws\n    skip: needs an AWS account\n"
	write(t, dir, "kbook.overlay.yaml", ov)
	var out bytes.Buffer
	base := Options{Paths: []string{page}, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}, IOStreams: log.IOStreams{Out: &out}}
	rep, err := Run(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "page.md:3: bash block skipped: needs an AWS account ("+filepath.Join(dir, "kbook.overlay.yaml")+":4)") ||
		rep.Runbooks[0].Shell == nil || rep.Runbooks[0].Shell.String() != "partially verified: 1 of 2 ran; 0 provided by kbook; 1 skipped; 0 failed" {
		t.Errorf("the overlay's skip is not the block's result:\n%s", out.String())
	}

	for name, tc := range map[string]struct{ overlay, want string }{
		"matches nothing": {strings.Replace(ov, "^aws", "^gcloud", 1), "kbook.overlay.yaml:4: the rule matches nothing"},
		"bad":             {strings.Replace(ov, "skip:", "skipp:", 1), `kbook.overlay.yaml:6: rule: unknown key "skipp"`},
	} {
		write(t, dir, "kbook.overlay.yaml", tc.overlay)
		rep, err := Run(context.Background(), base)
		if rep != nil || !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want bad input with %q", name, err, tc.want)
		}
	}
}

// TestRunOverlayPages: docs kbook does not own (no kbook.yaml, no front
// matter saying run: shell) run their shell blocks when an --overlay kept
// elsewhere lists them under pages; a block that does not parse is then
// no error when a rule skips it, and one at its line when none does.
func TestRunOverlayPages(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "mkdocs.yml", "site_name: theirs\n")
	page := write(t, dir, "docs/guide.md", "# Guide\n\n```bash\necho 'never closed\n```\n\n```bash\necho ok\n```\n\n```bash\ncat <credentialsFile>\n```\n")
	ours := t.TempDir()
	head := "apiVersion: kbook.k0rdent.io/v1alpha1\nkind: DocsOverlay\npages: [docs/guide.md]\nrules:\n"
	var out bytes.Buffer
	o := Options{Paths: []string{page}, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}, IOStreams: log.IOStreams{Out: &out},
		Overlays: []string{write(t, ours, "skip.yaml", head+"  - page: docs/guide.md\n    block: 1\n    skip: broken on the page\n")}}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "guide.md:11: bash block skipped: needs a human: fill in <credentialsFile>\n") ||
		rep.Runbooks[0].Shell == nil || rep.Runbooks[0].Shell.String() != "partially verified: 1 of 3 ran; 0 provided by kbook; 2 skipped; 0 failed" {
		t.Errorf("the overlay's pages and skip, and the placeholder:\n%s", out.String())
	}
	o.Overlays = []string{write(t, ours, "env.yaml", head+"  - page: docs/guide.md\n    block: 2\n    env: {A: b}\n")}
	if rep, err := Run(context.Background(), o); rep != nil || !findings.IsInput(err) || !strings.Contains(err.Error(), "guide.md:4: bash syntax") {
		t.Errorf("a syntax error no rule skips: %v", err)
	}
	o.Overlays = []string{write(t, ours, "gone.yaml", strings.Replace(head, "docs/guide.md]", "docs/guide.md, docs/moved.md]", 1)+"  - page: docs/guide.md\n    block: 1\n    skip: x\n")}
	if rep, err := Run(context.Background(), o); rep != nil || !findings.IsInput(err) || !strings.Contains(err.Error(), "gone.yaml:3: pages: docs/moved.md matches no page") {
		t.Errorf("a page the overlay lists that is gone: %v", err)
	}
}

// TestRunShellPageMacros: an MkDocs project's macros ({{ var }} from
// mkdocs.yml's extra and kbook.yaml's variables, with the plugin's own
// delimiters) are rendered in a shell page's blocks before they run, in
// its commands and in the expected output after them, and every line
// keeps its number: a block's result and a syntax error below a macro are
// at the page's lines. A project without the plugin renders none.
func TestRunShellPageMacros(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "mkdocs.yml", "site_name: T\nplugins:\n  - macros:\n      j2_variable_start_string: \"{{{\"\n      j2_variable_end_string: \"}}}\"\nextra:\n  release: v1.2.3\n  product: {name: Acme}\n")
	write(t, dir, "kbook.yaml", "run:\n  pages: [docs/*.md]\nvariables:\n  greeting: hello\n")
	page := write(t, dir, "docs/page.md", "# Install {{{ product.name }}}\n\n"+
		"```bash\n"+
		"VERSION={{{ release }}}\n"+
		"echo \"{{{ greeting }}} {{{ product.name }}} $VERSION\"\n"+
		"```\n\n"+
		"```console\n{{{ greeting }}} {{{ product.name }}} v1.2.3\n```\n\n"+
		"```sh\necho {{{ unknown }}}\n```\n")
	var out bytes.Buffer
	base := Options{Paths: []string{page}, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}, IOStreams: log.IOStreams{Out: &out}}
	rep, err := Run(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Summary(); s.Passed != 1 {
		t.Fatalf("summary %+v\n%s", s, out.String())
	}
	for _, want := range []string{"page.md:3: bash block passed (exit 0, output matched: shape)", "page.md:12: sh block passed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the terminal does not say %q:\n%s", want, out.String())
		}
	}
	// on_undefined: keep, the plugin's default: an unknown name stays as written
	var got strings.Builder
	for _, c := range rep.Runbooks[0].Steps[1].Commands {
		got.WriteString(c.Stdout)
	}
	if !strings.Contains(got.String(), "{{{ unknown }}}") {
		t.Errorf("an undefined macro is not kept as written: %q", got.String())
	}

	write(t, dir, "docs/page.md", "# Broken\n\n```bash\necho {{{ release }}}\necho 'never closed\n```\n")
	if _, err := Run(context.Background(), base); err == nil || !findings.IsInput(err) || !strings.Contains(err.Error(), "page.md:5: bash syntax") {
		t.Errorf("a syntax error below a macro: %v", err)
	}

	write(t, dir, "mkdocs.yml", "site_name: T\nextra:\n  release: v1.2.3\n")
	write(t, dir, "docs/page.md", "# No plugin\n\n```bash\necho '{{{ release }}}'\n```\n\n```console\n{{{ release }}}\n```\n")
	out.Reset()
	if rep, err := Run(context.Background(), base); err != nil || rep.Summary().Passed != 1 {
		t.Errorf("without the macros plugin the page's text is what runs: %v\n%s", err, out.String())
	}
}

// TestRunMacroErrorOnOtherPage: kbook run of an MkDocs project whose page
// that is no runbook has a macro error (strict macros, an undefined
// variable) runs the runbook pages and passes: it finds them on their
// source and never translates the other page (issue 40).
func TestRunMacroErrorOnOtherPage(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "mkdocs.yml", "site_name: Macros\nplugins:\n  - macros:\n      on_undefined: strict\n      on_error_fail: true\n")
	write(t, dir, "kbook.yaml", "run:\n  pages: [docs/listed.md]\n")
	write(t, dir, "docs/index.md", "# Home\n")
	write(t, dir, "docs/bad.md", "# Bad\n\nValue: {{ no_such_variable }}\n")
	write(t, dir, "docs/listed.md", "# Listed\n\n```bash\necho listed\n```\n")
	write(t, dir, "docs/book.md", "# Book\n\n```testscript\nexec true\n```\n")
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Paths: []string{dir}, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}, IOStreams: log.IOStreams{Out: &out}})
	if err != nil {
		t.Fatalf("kbook run: %v", err)
	}
	if s := rep.Summary(); s.Passed != 2 || s.Failed != 0 {
		t.Errorf("summary %+v, want the 2 runbook pages passed\n%s", s, out.String())
	}
}
