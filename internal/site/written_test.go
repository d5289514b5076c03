package site

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
)

var (
	hrefSrc  = regexp.MustCompile(`\s(?:href|src)="([^"]*)"`)
	baseHref = regexp.MustCompile(`<base href="([^"]*)">`)
)

// unresolved walks the written site below out, served at the path root,
// and returns every internal href and src (as "page -> target") that does
// not resolve to a written file, resolving each as a browser does: from
// the page's URL, or its <base>. A 404 page, whose <base> is the deploy
// path, is left out unless it is served there (deployed).
func unresolved(t *testing.T, out, root string, deployed bool) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		if path.Base(rel) == "404.html" && !deployed {
			return nil
		}
		base := root + strings.TrimPrefix(path.Dir(filepath.ToSlash(rel))+"/", "./")
		data, _ := os.ReadFile(p)
		if m := baseHref.FindSubmatch(data); m != nil {
			base = html.UnescapeString(string(m[1]))
		}
		for _, m := range hrefSrc.FindAllStringSubmatch(string(data), -1) {
			u, err := url.Parse(html.UnescapeString(m[1]))
			if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
				continue
			}
			target := u.Path
			if !strings.HasPrefix(target, "/") {
				target = path.Join(base, target)
			}
			target, ok := strings.CutPrefix(target, root)
			if !ok {
				bad = append(bad, rel+" -> "+m[1]+" (outside the base path)")
				continue
			}
			if target == "versions.json" || strings.HasPrefix(target, "pagefind/") {
				continue
			}
			f := filepath.Join(out, filepath.FromSlash(target))
			if fi, err := os.Stat(f); err == nil && fi.IsDir() {
				f = filepath.Join(f, "index.html")
			}
			if _, err := os.Stat(f); err != nil {
				bad = append(bad, rel+" -> "+m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestWrittenLinksResolve: every internal link and image a page is written
// with resolves in the built site - Markdown and raw HTML, to pages (as
// .md files, from index.md pages too) and to files beside the source -
// from every depth, with and without a base URL's path and aliases, the
// same output served at the root and under another path (issue 38 item
// 3: every URL is relative to its page). The deploy URL is only in what
// must be absolute: the canonical link, the sitemap, the 404 page's base.
func TestWrittenLinksResolve(t *testing.T) {
	for _, tc := range []struct {
		name, baseURL string
		aliases       []string
	}{{"host-relative", "", nil}, {"base path and alias", "https://acme.example/docs/", []string{"latest"}}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "docs")
			if err := os.CopyFS(dir, os.DirFS("testdata/links")); err != nil {
				t.Fatal(err)
			}
			p, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if fs := CheckLinks(p, ""); len(fs) > 0 {
				t.Fatalf("the fixture's links do not check: %v", fs)
			}
			out := filepath.Join(t.TempDir(), "public")
			if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p, Aliases: tc.aliases}}, Options{Out: out, BaseURL: tc.baseURL}); err != nil {
				t.Fatal(err)
			}
			deploy := relRoot(strings.TrimSuffix(tc.baseURL, "/") + "/")
			for _, root := range []string{"/", "/project/", deploy} {
				if bad := unresolved(t, out, root, root == deploy); len(bad) > 0 {
					t.Fatalf("served at %s, %d links of the written site do not resolve:\n%s", root, len(bad), strings.Join(bad, "\n"))
				}
			}
			runtime := read(t, filepath.Join(out, "next", "runtime", "index.html"))
			mustContain(t, "runtime", runtime, `src="../../next/img/x.png"`)
			verification := read(t, filepath.Join(out, "next", "verification", "index.html"))
			mustContain(t, "verification", verification, `href="../../next/verification.json"`)
			mustContain(t, "404", read(t, filepath.Join(out, "404.html")), `<base href="&#47;`+strings.TrimPrefix(deploy, "/")+`next/">`)
			sitemap := read(t, filepath.Join(out, "next", "sitemap.xml"))
			if tc.baseURL == "" {
				if strings.Contains(runtime, `rel="canonical"`) {
					t.Error("runtime: a canonical link without a deploy URL")
				}
				mustContain(t, "sitemap", sitemap, "<loc>/next/runtime/</loc>")
				return
			}
			canonical := `<link rel="canonical" href="https://acme.example/docs/next/runtime/"`
			if tc.aliases != nil {
				canonical = `<link rel="canonical" href="https://acme.example/docs/latest/runtime/"`
			}
			mustContain(t, "runtime", runtime, canonical)
			mustContain(t, "sitemap", sitemap, "<loc>https://acme.example/docs/next/runtime/</loc>")
		})
	}
}

// TestWrittenLinkPolicy: a link of the written site that does not resolve
// is an error at its source file:line by default; at warn it is reported
// as a finding line (file:line: warning: ...) and the site is still
// written; strict makes the warning an error.
func TestWrittenLinkPolicy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	if err := os.CopyFS(dir, os.DirFS("testdata/links")); err != nil {
		t.Fatal(err)
	}
	// Raw HTML the Markdown checker does not read.
	page := filepath.Join(dir, "content", "a", "index.md")
	src := read(t, page) + "\n<img src=\"missing.png\" alt=\"gone\">\n"
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		policy docsrepo.LinkPolicy
		fails  bool
	}{{"default", docsrepo.LinkPolicy{}, true}, {"warn", docsrepo.LinkPolicy{NotFound: "warn"}, false}, {"strict", docsrepo.LinkPolicy{NotFound: "warn", Strict: true}, true}, {"ignore", docsrepo.LinkPolicy{NotFound: "ignore"}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			p.Config.Links = tc.policy
			out := filepath.Join(t.TempDir(), "public")
			log := &recordLog{}
			_, err = Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: out, Logger: log})
			var se *findings.InputError
			switch {
			case tc.fails && (!asError(err, &se) || se.File != "content/a/index.md" || se.Line != 10 || !strings.Contains(se.Err.Error(), "missing.png")):
				t.Fatalf("err = %v, want content/a/index.md:10 missing.png", err)
			case !tc.fails && err != nil:
				t.Fatal(err)
			case !tc.fails:
				if _, err := os.Stat(filepath.Join(out, "next", "a", "index.html")); err != nil {
					t.Fatal("the site was not written")
				}
				// A finding's line says its severity: logged as it
				// is, not as a warning about a warning.
				if warned := strings.Contains(strings.Join(log.info, "\n"), "content/a/index.md:10: warning: "); warned != (tc.policy.NotFound == "warn") || len(log.warn) > 0 {
					t.Fatalf("lines = %q, warnings = %q", log.info, log.warn)
				}
			}
		})
	}
}

type recordLog struct{ warn, info []string }

func (l *recordLog) Warn(m string) { l.warn = append(l.warn, m) }
func (l *recordLog) Infof(format string, args ...any) {
	l.info = append(l.info, fmt.Sprintf(format, args...))
}

// TestNextURLAttr: the scanner finds the values the regular expression
// it replaced finds, on the HTML that tells them apart (case, word
// boundaries, attributes of other elements, a value holding >, an
// unclosed quote).
func TestNextURLAttr(t *testing.T) {
	re := regexp.MustCompile(`(?i)<(?:a|img|source|link|script|iframe|video|audio|track|embed)\b[^>]*?\s(?:href|src)="([^"]*)"`)
	for _, in := range []string{
		`<p><a href="x/">x</a> <IMG class=i SRC="i.png"> <abbr title="t" href="no"> <a1 href="no"></p>`,
		`<link rel=stylesheet href="a.css"><script src="s.js"></script><div href="no"><span src="no">`,
		"<a\tclass=\"c\"\nhref=\"multi\nline\">x</a><a data-href=\"no\" href=\"yes\">",
		`<a title="a > b" href="after-gt">`, `<a href="unclosed>`, `<a href=unquoted>`,
		`<video><source src="v.mp4"><track src="t.vtt"></video><iframe src="f.html"></iframe><embed src="e.svg"><audio src="a.ogg">`,
		`&lt;a href="code"&gt;`, `<a_b href="no">`, `<`, `<a`, `<a href="`, `<img src="one" src="two">`,
	} {
		var want, got []string
		for _, m := range re.FindAllStringSubmatch(in, -1) {
			want = append(want, m[1])
		}
		for i := 0; ; {
			vs, ve, ok := nextURLAttr([]byte(in), i)
			if !ok {
				break
			}
			got = append(got, in[vs:ve])
			i = ve + 1
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: found %q, the regular expression %q", in, got, want)
		}
	}
}

// TestIDsOf: the scanner finds the ids the regular expression it
// replaced finds.
func TestIDsOf(t *testing.T) {
	re := regexp.MustCompile(`\sid="([^"]+)"`)
	for _, in := range []string{
		`<h2 id="install">Install</h2><p data-id="no" id="">x</p><span\tid="tab">`,
		`id="first" <a id="a"id="b" pid="c" id="unclosed`, `<div id=""id="x">`, ``, `id="`,
	} {
		var want []string
		for _, m := range re.FindAllStringSubmatch(in, -1) {
			want = append(want, m[1])
		}
		if got := idsOf([]byte(in)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: found %q, the regular expression %q", in, got, want)
		}
	}
}
