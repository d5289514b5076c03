package site

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gohugoio/hugo/commands"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
)

// synthetic writes a docs repository of pages content pages in sections
// of 25 and runbooks runbooks of three steps, every page linking to its
// neighbour and to a runbook step.
func synthetic(tb testing.TB, dir string, pages, runbooks int) {
	tb.Helper()
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("kbook.yaml", "title: Synthetic docs\n")
	write("content/_index.md", "---\ntitle: Synthetic docs\n---\n\nHome.\n")
	for i := 0; i < pages; i++ {
		sec := i / 25
		if i%25 == 0 {
			write(fmt.Sprintf("content/s%02d/_index.md", sec), fmt.Sprintf("---\ntitle: Section %d\nweight: %d\n---\n\nSection %d.\n", sec, sec, sec))
		}
		next := fmt.Sprintf("p%04d.md", i+1)
		if (i+1)%25 == 0 || i+1 == pages {
			next = "_index.md"
		}
		rb := fmt.Sprintf("rb%03d", i%max(runbooks, 1))
		body := fmt.Sprintf("---\ntitle: Page %d\nweight: %d\ndescription: Synthetic page %d.\n---\n\n", i, i, i)
		for h := 0; h < 4; h++ {
			body += fmt.Sprintf("## Heading %d of page %d\n\nSome prose about clusters, templates and providers, with a [link](%s) and `inline code`.\nMore prose to make the page realistic in size and structure for the benchmark.\n\n", h, i, next)
			body += "```yaml\napiVersion: k0rdent.mirantis.com/v1beta1\nkind: ClusterDeployment\nmetadata:\n  name: dev\n```\n\n"
		}
		if runbooks > 0 {
			body += fmt.Sprintf("See [the runbook](../../runbooks/%s.md#step-2).\n", rb)
		}
		write(fmt.Sprintf("content/s%02d/p%04d.md", sec, i), body)
	}
	for r := 0; r < runbooks; r++ {
		write(fmt.Sprintf("runbooks/rb%03d.md", r), fmt.Sprintf("---\ntitle: Runbook %d\n---\n\n```text file=want.txt\nhello %d\n```\n\n## One\n\n```testscript\nexec echo hello %d\ncmp stdout want.txt\n```\n\n## Two\n\n```testscript\nenv X=%d\nexec sh -c 'echo $X'\nstdout %d\n```\n\n## Three\n\n```testscript\n! exec sh -c 'exit 2'\n```\n", r, r, r, r, r))
	}
}

func loadAndRun(tb testing.TB, dir string) (*Project, *report.Report) {
	tb.Helper()
	p, err := Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return p, runAll(tb, p)
}

// BenchmarkBuildVsHugo: kbook build (load, link check, generate, Hugo,
// install) against plain Hugo (its CLI, in-process) on the Hugo project
// kbook generates for the same 200-page docs repository.
func BenchmarkBuildVsHugo(b *testing.B) {
	dir := b.TempDir()
	synthetic(b, dir, 200, 20)
	p, rep := loadAndRun(b, dir)
	gen := filepath.Join(b.TempDir(), "project")
	v := []*Version{{Name: "next", Project: p, Results: rep}}
	if _, err := generate(gen, v, p.Config, map[string]any{"root": "/", "versions": []string{"next"}}); err != nil {
		b.Fatal(err)
	}
	var kb, hg time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		pl, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		if fs := CheckLinks(pl, ""); len(fs) > 0 {
			b.Fatalf("broken links in the synthetic tree: %v", fs[0])
		}
		if _, err := Render(context.Background(), []*Version{{Name: "next", Project: pl, Results: rep}}, Options{Out: filepath.Join(b.TempDir(), "public")}); err != nil {
			b.Fatal(err)
		}
		kb += time.Since(start)
		start = time.Now()
		if err := commands.Execute([]string{"--source", gen, "--config", filepath.Join(gen, "hugo.json"), "--destination", filepath.Join(b.TempDir(), "hugo"), "--quiet"}); err != nil {
			b.Fatal(err)
		}
		hg += time.Since(start)
	}
	b.ReportMetric(float64(kb.Milliseconds())/float64(b.N), "kbook-ms/op")
	b.ReportMetric(float64(hg.Milliseconds())/float64(b.N), "hugo-ms/op")
	b.ReportMetric(float64(kb)/float64(hg), "kbook/hugo")
}

// BenchmarkThousandPagesThreeVersions: a 1,000-page repository (40
// runbooks) built as three versions in one Hugo build.
func BenchmarkThousandPagesThreeVersions(b *testing.B) {
	var vs []*Version
	for _, name := range []string{"next", "v0.2", "v0.1"} {
		dir := filepath.Join(b.TempDir(), name)
		synthetic(b, dir, 1000, 40)
		p, rep := loadAndRun(b, dir)
		vs = append(vs, &Version{Name: name, Project: p, Results: rep})
	}
	b.ResetTimer()
	var pages int
	for i := 0; i < b.N; i++ {
		res, err := Render(context.Background(), vs, Options{Out: filepath.Join(b.TempDir(), "public")})
		if err != nil {
			b.Fatal(err)
		}
		pages = res.Pages
	}
	el := b.Elapsed()
	b.ReportMetric(float64(pages), "pages")
	b.ReportMetric(el.Seconds()/float64(b.N), "s/build")
	b.ReportMetric(float64(pages)/(el.Seconds()/float64(b.N)), "pages/s")
}

var assetRef = regexp.MustCompile(`(?:href|src)="([^"]+\.(?:css|js))"`)

// BenchmarkPageWeight reports the CSS and JavaScript a runbook page loads
// (raw and gzipped); Pagefind's own files load only when a reader searches.
func BenchmarkPageWeight(b *testing.B) {
	dir := b.TempDir()
	synthetic(b, dir, 10, 2)
	p, rep := loadAndRun(b, dir)
	out := filepath.Join(b.TempDir(), "public")
	if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p, Results: rep}}, Options{Out: out}); err != nil {
		b.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "next", "runbooks", "rb000", "index.html"))
	if err != nil {
		b.Fatal(err)
	}
	var raw, gz, css, js int
	for i := 0; i < b.N; i++ {
		raw, gz, css, js = 0, 0, 0, 0
		for _, m := range assetRef.FindAllSubmatch(page, -1) {
			data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(string(m[1]), "/"))))
			if err != nil {
				b.Fatal(err)
			}
			raw += len(data)
			if strings.HasSuffix(string(m[1]), ".css") {
				css += len(data)
			} else {
				js += len(data)
			}
			gz += gzipLen(data)
		}
	}
	b.ReportMetric(float64(css), "css-bytes")
	b.ReportMetric(float64(js), "js-bytes")
	b.ReportMetric(float64(raw), "css+js-bytes")
	b.ReportMetric(float64(gz), "css+js-gzip-bytes")
	b.ReportMetric(float64(len(page)), "html-bytes")
}

func gzipLen(data []byte) int {
	cw := &countWriter{}
	w := gzip.NewWriter(cw)
	_, _ = w.Write(data)
	_ = w.Close()
	return cw.n
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// BenchmarkHugoChild: the cost of building in a child process (a stuck
// Hugo build can then be killed, RunHugoChild) against in-process, on the
// same 200-page repository; the ratio is what isolation adds to a build.
func BenchmarkHugoChild(b *testing.B) {
	dir := b.TempDir()
	synthetic(b, dir, 200, 20)
	p, rep := loadAndRun(b, dir)
	reg, err := proc.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	var in, child time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range []struct {
			children ChildStarter
			d        *time.Duration
		}{{nil, &in}, {reg, &child}} {
			start := time.Now()
			if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p, Results: rep}}, Options{Out: filepath.Join(b.TempDir(), "public"), Children: c.children}); err != nil {
				b.Fatal(err)
			}
			*c.d += time.Since(start)
		}
	}
	b.ReportMetric(float64(in.Milliseconds())/float64(b.N), "inprocess-ms/op")
	b.ReportMetric(float64(child.Milliseconds())/float64(b.N), "child-ms/op")
	b.ReportMetric(float64(child)/float64(in), "child/inprocess")
}
