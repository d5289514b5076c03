package site

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/testfile"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
)

// fixture copies testdata/docs into a temporary directory.
func fixture(t *testing.T) string {
	t.Helper()
	return testfile.Copy(t, "testdata/docs", "docs")
}

// runAll runs the project's runbooks for real with the runner, as Load
// read them (kbook.yaml's run.pages, macros), from the docs root as kbook
// build does through kbook run.
func runAll(t testing.TB, p *Project) *report.Report {
	t.Helper()
	r, err := runner.New(runner.Options{Parallel: 1, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rbs := make([]*runbook.Runbook, len(p.Runbooks))
	for i, rb := range p.Runbooks {
		c := *rb
		c.Path = filepath.Join(p.Dir, rb.Path)
		rbs[i] = &c
	}
	return r.Run(context.Background(), rbs)
}

func read(t *testing.T, file string) string {
	t.Helper()
	return testfile.Read(t, file)
}

func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	testfile.MustContain(t, what, s, wants...)
}

func TestBuildRunbookPage(t *testing.T) {
	dir := fixture(t)
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := runAll(t, p)
	if s := rep.Summary(); s.Passed != 1 {
		t.Fatalf("runbook did not pass: %+v %+v", s, rep.Runbooks[0])
	}
	out := filepath.Join(t.TempDir(), "public")
	res, err := Render(context.Background(), []*Version{{Name: "v0.1", Aliases: []string{"latest"}, Project: p, Results: rep}}, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages < 5 {
		t.Errorf("pages = %d", res.Pages)
	}
	page := read(t, filepath.Join(out, "v0.1", "runbooks", "hello", "index.html"))
	mustContain(t, "runbook page", page,
		`kb-badge-verified`, `>Verified</span>`,
		`id="step-1"`, `id="step-2"`,
		`<span class="kb-ps" aria-hidden="true">$ </span>echo hello`,
		`<span class="kb-out">hello</span>`,
		`output is exactly want.txt`,
		`<span class="kb-err">oops</span>`, `[exit status 3]`, `expected to fail`,
		`skipped: [exec:nonexistent-tool] not met`,
		`data-copy="echo hello"`,
		`<figcaption class="kb-file">`, `want.txt`,
		`Acme footer override`,
		`Edit this page`, `https://github.com/acme/docs/edit/main/runbooks/hello.md`,
	)
	// The comment is shown but never copied.
	if strings.Contains(page, `data-copy="# say it`) {
		t.Error("the copy button copies a comment")
	}
	var doc struct {
		Version  string         `json:"version"`
		Runbooks []Verification `json:"runbooks"`
	}
	if err := json.Unmarshal([]byte(read(t, filepath.Join(out, "v0.1", "verification.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "v0.1" || len(doc.Runbooks) != 1 || doc.Runbooks[0].Status != Verified || doc.Runbooks[0].StepsPassed != 2 {
		t.Errorf("verification.json = %+v", doc)
	}
	mustContain(t, "verification page", read(t, filepath.Join(out, "v0.1", "verification", "index.html")), "Hello runbook", "kb-badge-verified")
	mustContain(t, "root redirect", read(t, filepath.Join(out, "index.html")), `url=latest/`)
	mustContain(t, "alias", read(t, filepath.Join(out, "latest", "runbooks", "hello", "index.html")), `../../../v0.1/runbooks/hello/`)
	vs, err := ReadVersions(out)
	if err != nil || len(vs) != 1 || vs[0].Version != "v0.1" || vs[0].Aliases[0] != "latest" {
		t.Errorf("versions.json = %+v, %v", vs, err)
	}

	// A second version takes the alias; the first stays, with its page.
	if err := os.WriteFile(filepath.Join(dir, "runbooks", "hello.md"), []byte(strings.Replace(read(t, filepath.Join(dir, "runbooks", "hello.md")), "A runbook.", "A changed runbook.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p2, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(context.Background(), []*Version{{Name: "v0.2", Aliases: []string{"latest"}, Project: p2, Results: rep}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	vs, _ = ReadVersions(out)
	if len(vs) != 2 || vs[0].Version != "v0.2" || len(vs[1].Aliases) != 0 {
		t.Errorf("versions.json after v0.2 = %+v", vs)
	}
	changed := read(t, filepath.Join(out, "v0.2", "runbooks", "hello", "index.html"))
	mustContain(t, "changed runbook", changed, "kb-badge-unverified", "the runbook changed since its last result")
	if strings.Contains(changed, `<span class="kb-out">hello</span>`) {
		t.Error("a changed runbook shows output captured from another source")
	}
	mustContain(t, "old version", read(t, filepath.Join(out, "v0.1", "runbooks", "hello", "index.html")), "kb-badge-verified")
}

func TestBuildFailedRunbook(t *testing.T) {
	dir := fixture(t)
	src := strings.Replace(read(t, filepath.Join(dir, "runbooks", "hello.md")), "exec echo hello", "exec echo goodbye", 1)
	if err := os.WriteFile(filepath.Join(dir, "runbooks", "hello.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := runAll(t, p)
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p, Results: rep}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(out, "next", "runbooks", "hello", "index.html"))
	mustContain(t, "failed page", page, "kb-badge-failed", `<span class="kb-out">goodbye</span>`, `kb-check kb-o-failed`, `kb-step-skipped`, "Skipped: not run: an earlier step failed")
}

func TestBuildNeverRun(t *testing.T) {
	p, err := Load(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(out, "next", "runbooks", "hello", "index.html"))
	mustContain(t, "never-run page", page, "kb-badge-unverified", "never run", "echo hello")
	if strings.Contains(page, `class="kb-out"`) {
		t.Error("a page without a result shows output")
	}
}

func TestBuildBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"front matter", "runbooks/bad.md", "---\ntitle: [x\n---\n```testscript\nexec true\n```\n", "runbooks/bad.md:2:"},
		{"page front matter syntax", "content/bad.md", "---\ntitle: ok\ndescription: [x\n---\nbody\n", "content/bad.md:3: front matter: did not find expected ',' or ']'"},
		{"page front matter unclosed", "content/bad.md", "---\ntitle: ok\n", "content/bad.md:1: front matter opened with --- is never closed"},
		{"page weight", "content/bad.md", "---\ntitle: ok\nweight: heavy\n---\n", `content/bad.md:3: front matter: weight must be a whole number, got "heavy"`},
		{"page draft", "content/guide/bad.md", "---\ndraft: maybe\n---\n", `content/guide/bad.md:2: front matter: draft must be true or false, got "maybe"`},
		{"page title", "content/bad.md", "---\ntitle:\n  a: b\n---\n", `content/bad.md:3: front matter: title must be text`},
		{"page not a mapping", "content/bad.md", "---\n- a\n---\n", `content/bad.md:2: front matter: want key: value lines`},
		{"config", "kbook.yaml", "title: x\nbogus: 1\n", "kbook.yaml:2: field bogus not found"},
		{"collision", "content/runbooks/hello.md", "---\ntitle: x\n---\n", "page /runbooks/hello/ is also made by"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, tc.file)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestHugoTemplateError(t *testing.T) {
	dir := fixture(t)
	bad := filepath.Join(dir, "site", "layouts", "_partials", "footer.html")
	if err := os.WriteFile(bad, []byte("<footer>{{ .NoSuchField.X }}</footer>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: filepath.Join(t.TempDir(), "public")})
	var se *findings.InputError
	if err == nil || !asError(err, &se) || !strings.Contains(se.File, "site/layouts/_partials/footer.html") || se.Line != 1 {
		t.Fatalf("err = %#v", err)
	}
}

func asError(err error, target **findings.InputError) bool {
	e, ok := err.(*findings.InputError)
	if ok {
		*target = e
	}
	return ok
}

// TestBuildK0rdentEnvironment: a result recorded on a k0rdent plane
// states the release and controller versions on the badge, on the
// Verification page and in verification.json, besides the backend, the
// Kubernetes version and the APIs served.
func TestBuildK0rdentEnvironment(t *testing.T) {
	dir := fixture(t)
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := runAll(t, p)
	k := &report.K0rdent{Version: "v1.11.4", Release: "kcm-1-11-0", Mode: "controllers (local)",
		Components: []report.Component{{Name: "kcm", Version: "v1.11.4"}, {Name: "source-controller", Version: "v1.9.3"}}}
	// What target.Describe records on the local plane (its own test
	// checks that against a running plane).
	rep.Runbooks[0].Env = &report.Environment{Kbook: "test", Backend: "local", Server: "v1.34.1",
		APIs: []string{"cluster.x-k8s.io/v1beta2", "k0rdent.mirantis.com/v1beta1"}, K0rdent: k}
	out := t.TempDir()
	if _, err := Render(context.Background(), []*Version{{Name: "v0.1", Project: p, Results: rep}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "runbook page", read(t, filepath.Join(out, "v0.1", "runbooks", "hello", "index.html")),
		`<dt>Backend</dt><dd>local</dd>`, `<dt>Kubernetes</dt><dd>v1.34.1</dd>`,
		`<dt>k0rdent</dt><dd>v1.11.4 controllers (local), Release <code>kcm-1-11-0</code><br><small>kcm v1.11.4, source-controller v1.9.3</small>`,
		`k0rdent.mirantis.com/v1beta1`)
	mustContain(t, "verification page", read(t, filepath.Join(out, "v0.1", "verification", "index.html")),
		`k0rdent v1.11.4 controllers (local), Release kcm-1-11-0`)
	var doc struct {
		Runbooks []Verification `json:"runbooks"`
	}
	if err := json.Unmarshal([]byte(read(t, filepath.Join(out, "v0.1", "verification.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runbooks) != 1 || doc.Runbooks[0].K0rdent == nil || doc.Runbooks[0].K0rdent.Release != "kcm-1-11-0" ||
		len(doc.Runbooks[0].K0rdent.Components) != 2 || doc.Runbooks[0].Server != "v1.34.1" {
		t.Errorf("verification.json runbooks = %+v", doc.Runbooks)
	}
}

// TestPageURLIsHugos: every page is where Page.URL says Hugo writes it,
// section pages of folders with capitals included (Hugo writes
// content/Foo/_index.md to foo/), and a relative link from such a section
// page to its subsection resolves.
func TestPageURLIsHugos(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"content/_index.md":         "---\ntitle: Home\n---\n\nHome.\n",
		"content/Foo/_index.md":     "---\ntitle: Foo\n---\n\nSee [Bar](bar/) and [the page](page/).\n",
		"content/Foo/Page.md":       "---\ntitle: Page\n---\n\nA page.\n",
		"content/Foo/Bar/_index.md": "---\ntitle: Bar\n---\n\nBar.\n",
		"content/Baz/index.md":      "---\ntitle: Baz\n---\n\nBaz.\n",
	})
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fs := CheckLinks(p, ""); len(fs) > 0 {
		t.Errorf("links of a section page with capitals: %v", fs)
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"content/Foo/_index.md": "foo/", "content/Foo/Bar/_index.md": "foo/bar/", "content/Foo/Page.md": "foo/page/", "content/Baz/index.md": "baz/"}
	for _, pg := range p.Pages {
		u := pg.URL()
		if w, ok := want[pg.File]; ok && u != w {
			t.Errorf("%s: URL %q, want %q", pg.File, u, w)
		}
		if _, err := os.Stat(filepath.Join(out, "next", filepath.FromSlash(u), "index.html")); err != nil {
			t.Errorf("%s: Hugo wrote no /%s: %v", pg.File, u, err)
		}
	}
}
