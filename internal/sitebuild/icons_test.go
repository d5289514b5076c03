package sitebuild

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/k0rdent/kbook/internal/sitetools"
	"github.com/k0rdent/kbook/internal/testfile"
)

// npmTarball packs files under package/, as npm pack does, and returns
// it with its integrity.
func npmTarball(t *testing.T, files map[string]string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(content))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	d := sha512.Sum512(buf.Bytes())
	return buf.Bytes(), "sha512-" + base64.StdEncoding.EncodeToString(d[:])
}

// TestBuildFetchesIcons: an MkDocs project whose pages use the emoji
// extension's icons, on a machine without `make site-tools`, is built
// with the icons (fetched once from the npm registry, as mermaid is),
// not with their shortcodes as text; the next build takes them from the
// cache.
func TestBuildFetchesIcons(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home) // no ~/.cache/kbook/npm: no site-tools
	t.Setenv("KBOOK_CACHE_DIR", filepath.Join(home, "kbook-cache"))
	t.Setenv("KBOOK_SITE_TOOLS", "")
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M9 16.17"/></svg>`
	folders := map[string]string{"@mdi/svg": "svg/", "@fortawesome/fontawesome-free": "svgs/brands/", "@primer/octicons": "build/svg/", "simple-icons": "icons/"}
	tarballs := map[string][]byte{}
	var pkgs []sitetools.Package
	for _, p := range sitetools.IconPackages {
		tgz, sri := npmTarball(t, map[string]string{"package.json": "{}", folders[p.Name] + "check.svg": svg})
		tarballs[p.Name] = tgz
		p.Integrity = sri
		pkgs = append(pkgs, p)
	}
	saved := sitetools.IconPackages
	sitetools.IconPackages = pkgs
	t.Cleanup(func() { sitetools.IconPackages = saved })
	var gets atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range pkgs {
			meta := "/" + strings.Replace(p.Name, "/", "%2f", 1)
			switch r.URL.EscapedPath() {
			case meta, strings.ReplaceAll(meta, "%2f", "%2F"):
				doc := map[string]any{"versions": map[string]any{p.Version: map[string]any{"dist": map[string]any{
					"tarball": srv.URL + "/tgz/" + p.Name, "integrity": p.Integrity}}}}
				_ = json.NewEncoder(w).Encode(doc)
				return
			case "/tgz/" + p.Name:
				gets.Add(1)
				_, _ = w.Write(tarballs[p.Name])
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("npm_config_registry", srv.URL)

	dir := filepath.Join(t.TempDir(), "project")
	testfile.Write(t, dir, "mkdocs.yml", "site_name: Icons\nmarkdown_extensions:\n  - pymdownx.emoji\n")
	testfile.Write(t, dir, "docs/index.md", "# Icons\n\nDone :material-check: with :simple-check:.\n")
	// --site-tools off: nothing fetched, the shortcodes stay as text.
	off := filepath.Join(t.TempDir(), "public")
	if err := Build(context.Background(), Options{Dir: dir, OutDir: off, Version: "next", NoRun: true, NoSearch: true, SiteTools: sitetools.Off}); err != nil {
		t.Fatal(err)
	}
	if page, err := os.ReadFile(filepath.Join(off, "next", "index.html")); err != nil || !strings.Contains(string(page), ":material-check:") || gets.Load() != 0 {
		t.Errorf("--site-tools off: %d tarballs fetched (want 0), shortcode kept %v (%v)", gets.Load(), strings.Contains(string(page), ":material-check:"), err)
	}
	for i := 0; i < 2; i++ {
		out := filepath.Join(t.TempDir(), "public")
		if err := Build(context.Background(), Options{Dir: dir, OutDir: out, Version: "next", NoRun: true, NoSearch: true}); err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(filepath.Join(out, "next", "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(page), `<span class="twemoji"><svg`); n != 2 || strings.Contains(string(page), ":material-check:") {
			t.Errorf("build %d: %d icons drawn, want 2 and no shortcode left:\n%s", i+1, n, page)
		}
	}
	if n := gets.Load(); n != int32(len(pkgs)) {
		t.Errorf("%d tarballs fetched over two builds, want %d (once each)", n, len(pkgs))
	}
}
