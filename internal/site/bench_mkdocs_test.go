package site

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// syntheticMkDocs writes an MkDocs-material project of pages pages in
// folders of 25, with a nav, each page as such projects write them:
// headings, prose with links to its neighbour, an admonition, a details
// block, content tabs, a table and highlighted code.
func syntheticMkDocs(tb testing.TB, dir string, pages int) {
	tb.Helper()
	write := func(rel, s string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	var nav strings.Builder
	nav.WriteString("nav:\n  - Home: index.md\n")
	for i := 0; i < pages; i++ {
		sec := i / 25
		if i%25 == 0 {
			fmt.Fprintf(&nav, "  - Section %d:\n", sec)
		}
		fmt.Fprintf(&nav, "      - Page %d: s%02d/p%04d.md\n", i, sec, i)
		next := fmt.Sprintf("p%04d.md", i+1)
		if (i+1)%25 == 0 || i+1 == pages {
			next = "../index.md"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\nSome prose about clusters, with a [link](%s), `inline code` and **bold** text.\n\n", i, next)
		for h := 0; h < 4; h++ {
			fmt.Fprintf(&b, "## Heading %d of page %d\n\nMore prose to make the page realistic in size and structure, about templates and providers, linking [home](../index.md#welcome).\n\n", h, i)
			b.WriteString("!!! note \"Before you start\"\n\n    An admonition with a list:\n\n    - one\n    - two\n\n")
			b.WriteString("=== \"Linux\"\n\n    ```bash\n    curl -sSLf https://get.example.com | sh\n    ```\n\n=== \"macOS\"\n\n    ```bash\n    brew install example\n    ```\n\n")
			b.WriteString("??? tip \"Details\"\n\n    Hidden text.\n\n")
			b.WriteString("| key | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n")
			b.WriteString("```yaml title=\"cluster.yaml\"\napiVersion: k0rdent.mirantis.com/v1beta1\nkind: ClusterDeployment\nmetadata:\n  name: dev\nspec:\n  template: aws-standalone-cp\n```\n\n")
		}
		write(fmt.Sprintf("docs/s%02d/p%04d.md", sec, i), b.String())
	}
	write("docs/index.md", "# Welcome\n\nThe synthetic home page.\n")
	write("mkdocs.yml", "site_name: Synthetic MkDocs\ntheme:\n  name: material\nmarkdown_extensions:\n  - admonition\n  - attr_list\n  - pymdownx.details\n  - pymdownx.highlight\n  - pymdownx.superfences\n  - pymdownx.tabbed:\n      alternate_style: true\n  - tables\n  - toc:\n      permalink: true\n"+nav.String())
}

// BenchmarkMkDocs500 builds a 500-page MkDocs-material project as kbook
// build does (load and translate, link check, Hugo, the written pages'
// check), Hugo in process so that one CPU profile holds it all:
//
//	go test -run '^$' -bench MkDocs500 -benchtime 3x -cpuprofile /tmp/cpu.out ./internal/site
//	go tool pprof -top -cum internal/site.test /tmp/cpu.out
//
// It reports the time of each phase per build.
func BenchmarkMkDocs500(b *testing.B) {
	dir := b.TempDir()
	syntheticMkDocs(b, dir, 500)
	var load, links, build time.Duration
	pages := 0
	for i := 0; i < b.N; i++ {
		start := time.Now()
		p, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		load += time.Since(start)
		start = time.Now()
		if fs := CheckLinks(p, ""); LinkError(fs) != nil {
			b.Fatal(LinkError(fs))
		}
		links += time.Since(start)
		start = time.Now()
		res, err := Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: filepath.Join(b.TempDir(), "public")})
		if err != nil {
			b.Fatal(err)
		}
		build += time.Since(start)
		pages = res.Pages
	}
	n := float64(b.N)
	b.ReportMetric(float64(pages), "pages")
	b.ReportMetric(load.Seconds()/n, "load-s")
	b.ReportMetric(links.Seconds()/n, "links-s")
	b.ReportMetric(build.Seconds()/n, "build-s")
}
