package mkdocs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// Files are what MkDocs builds from docs_dir.
type Files struct {
	// Pages are the Markdown pages, docs-relative and slash-separated,
	// sorted.
	Pages []string
	// Assets are the other files (images, downloads, CSS), served as they are.
	Assets []string
	// ThemeFiles are the static files of theme.custom_dir (a logo, a
	// favicon, a stylesheet: not its templates, Python, Markdown or
	// hidden files), custom_dir-relative and served at that path, as
	// MkDocs serves a theme's files; a file of docs_dir at the same path
	// wins.
	ThemeFiles []string
	// Shadowed are the pages left out because another page is served
	// at their URL (x.md beside x/README.md), each to that page.
	Shadowed map[string]string
	// Warnings are files skipped with a reason (a dangling symlink, a
	// README.md beside an index.md, a nav entry naming no page).
	Warnings []Warning

	navFileWarned bool
}

// Excluded reports whether MkDocs leaves the docs-relative file out:
// exclude_docs, the exclude plugin, the theme's custom_dir, or with the
// same-dir plugin site_dir.
func (p *Project) Excluded(rel string) bool {
	if p.SameDir {
		if p.SiteDir != "" && (rel == p.SiteDir || strings.HasPrefix(rel, p.SiteDir+"/")) {
			return true
		}
	}
	if d := p.customDirInDocs(); d != "" && (rel == d || strings.HasPrefix(rel, d+"/")) {
		return true
	}
	return p.exclude != nil && p.exclude.excluded(rel)
}

// sameDirSkips reports whether the same-dir plugin leaves out a file of
// docs_dir: at its top, what is not a page, a script, a stylesheet or
// CNAME (mkdocs.yml, the project's README's neighbours).
func (p *Project) sameDirSkips(rel string) bool {
	if !p.SameDir || strings.Contains(rel, "/") || rel == "CNAME" {
		return false
	}
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown", ".js", ".css":
		return false
	}
	return true
}

// customDirInDocs is custom_dir relative to docs_dir when it lies inside it.
func (p *Project) customDirInDocs() string {
	if p.CustomDir == "" {
		return ""
	}
	if p.DocsDir == "." {
		return p.CustomDir
	}
	if rel, ok := strings.CutPrefix(p.CustomDir, p.DocsDir+"/"); ok {
		return rel
	}
	return ""
}

// Files lists docs_dir as MkDocs would build it.
func (p *Project) Files() (*Files, error) {
	root := filepath.Join(p.Dir, filepath.FromSlash(p.DocsDir))
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		return nil, findings.Inputf(p.File, p.Line("docs_dir"), "docs_dir %s: no such folder", p.DocsDir)
	}
	out := &Files{}
	err = filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if file == root {
			return nil
		}
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p.Excluded(rel) || p.exclude.excluded(rel+"/x") && p.exclude.excluded(rel+"/x.md") {
				return filepath.SkipDir
			}
			return nil
		}
		p.navPluginFile(rel, out)
		if p.Excluded(rel) || p.sameDirSkips(rel) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			st, err := os.Stat(file)
			if err != nil {
				target, _ := os.Readlink(file)
				out.Warnings = append(out.Warnings, Warning{File: path.Join(p.DocsDir, rel), Msg: fmt.Sprintf("symbolic link to %s, which does not exist: skipped", target)})
				return nil
			}
			if st.IsDir() {
				return nil
			}
		}
		if isMarkdown(rel) {
			if target, ok := checkedOutLink(file, root); ok {
				out.Warnings = append(out.Warnings, Warning{File: path.Join(p.DocsDir, rel), Msg: fmt.Sprintf("a symbolic link to %s checked out as a file (git without symlinks), and its target is not in docs_dir: skipped", target)})
				return nil
			}
			out.Pages = append(out.Pages, rel)
		} else {
			out.Assets = append(out.Assets, rel)
		}
		return nil
	})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("read docs_dir %s: %w", p.DocsDir, err)
		}
		return nil, err
	}
	// A folder's index.md wins over its README.md, as in MkDocs.
	have := map[string]bool{}
	for _, pg := range out.Pages {
		have[pg] = true
	}
	pages := out.Pages[:0]
	for _, pg := range out.Pages {
		dir, base := path.Split(pg)
		if strings.EqualFold(base, "README.md") && have[dir+"index.md"] {
			out.Warnings = append(out.Warnings, Warning{File: path.Join(p.DocsDir, pg), Msg: "skipped: " + dir + "index.md is the section page of the folder"})
			continue
		}
		pages = append(pages, pg)
	}
	out.Pages = pages
	out.Pages = out.conflicts(p.DocsDir)
	if p.Nav != nil {
		p.expandNav(out.Pages)
	}
	for _, it := range p.NavPages() {
		if !have[it.Page] && p.Validation.Nav.NotFound == "warn" {
			out.Warnings = append(out.Warnings, Warning{File: p.File, Line: it.Line, Msg: fmt.Sprintf("nav: %s is not a page of docs_dir %s", it.Page, p.DocsDir)})
		}
	}
	sort.Strings(out.Pages)
	sort.Strings(out.Assets)
	out.ThemeFiles = p.themeFiles(out)
	return out, nil
}

// themeFiles lists custom_dir's static files as MkDocs's
// Files.add_files_from_theme does, leaving out those docs_dir has.
func (p *Project) themeFiles(f *Files) []string {
	if p.CustomDir == "" {
		return nil
	}
	taken := map[string]bool{}
	for _, rel := range append(append([]string(nil), f.Pages...), f.Assets...) {
		taken[rel] = true
	}
	root := filepath.Join(p.Dir, filepath.FromSlash(p.CustomDir))
	var out []string
	_ = filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil || file == root {
			return nil // no custom_dir: MkDocs's config check says so
		}
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !themeStatic(rel) || taken[rel] {
			return nil
		}
		if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
			return nil
		}
		out = append(out, rel)
		return nil
	})
	sort.Strings(out)
	return out
}

// themeStatic reports whether MkDocs serves a theme folder's file as it
// is: its filter's patterns (*.py, *.pyc, *.html, *readme*,
// mkdocs_theme.yml, locales/*, Markdown, the static template
// sitemap.xml) leave the others out.
func themeStatic(rel string) bool {
	l := strings.ToLower(rel)
	switch {
	case isMarkdown(l), strings.HasPrefix(l, "locales/"), strings.Contains(l, "readme"), l == "mkdocs_theme.yml", l == "sitemap.xml":
		return false
	}
	switch path.Ext(l) {
	case ".py", ".pyc", ".html":
		return false
	}
	return true
}

// conflicts leaves out the pages whose URL another page has: x.md and
// x/README.md (or x/index.md) are both served at x/. MkDocs writes both,
// a folder's pages after its parent's, so the folder's page is what x/
// shows; within one folder the later by MkDocs's order wins, as
// mkdocs/structure/files.py excludes the other.
func (f *Files) conflicts(docsDir string) []string {
	byURL := map[string]string{}
	for _, pg := range f.Pages {
		u := strings.ToLower(pageDest(pg))
		prev, ok := byURL[u]
		if !ok || writtenBefore(prev, pg) {
			byURL[u] = pg
		}
	}
	var keep []string
	for _, pg := range f.Pages {
		win := byURL[strings.ToLower(pageDest(pg))]
		if win == pg {
			keep = append(keep, pg)
			continue
		}
		if f.Shadowed == nil {
			f.Shadowed = map[string]string{}
		}
		f.Shadowed[pg] = win
		f.Warnings = append(f.Warnings, Warning{File: path.Join(docsDir, pg), Msg: fmt.Sprintf("excluded from the site because it conflicts with '%s' (both are served at /%s, as in MkDocs the folder's page is what shows)", win, pageDest(pg))})
	}
	return keep
}

// pageDest is the URL path of a docs-relative page with directory URLs:
// a/b.md at a/b/, a/index.md and a/README.md at a/.
func pageDest(rel string) string {
	dir, base := path.Split(rel)
	stem := strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))
	if stem == "index" || stem == "readme" {
		return dir
	}
	return dir + stem + "/"
}

// writtenBefore reports whether MkDocs writes page a before page b: a
// folder's files before its subfolders', index and README first.
func writtenBefore(a, b string) bool {
	da, db := strings.Count(a, "/"), strings.Count(b, "/")
	if da != db {
		return da < db
	}
	key := func(s string) string {
		stem := strings.ToLower(strings.TrimSuffix(path.Base(s), path.Ext(s)))
		if stem == "index" || stem == "readme" {
			return "0" + s
		}
		return "1" + s
	}
	return key(a) < key(b)
}

// checkedOutLink reports whether a Markdown file is a symbolic link that
// git wrote as a file holding the target's path (core.symlinks=false, or
// a copy of a repository): one line, no newline, a relative path that
// leaves docs_dir or does not exist.
func checkedOutLink(file, root string) (string, bool) {
	fi, err := os.Lstat(file)
	if err != nil || fi.Size() > 256 {
		return "", false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	t := string(data)
	if t == "" || strings.ContainsAny(t, "\n \t#[]()") || !isMarkdown(t) || filepath.IsAbs(t) {
		return "", false
	}
	target := filepath.Join(filepath.Dir(file), filepath.FromSlash(t))
	if rel, err := filepath.Rel(root, target); err == nil && !strings.HasPrefix(rel, "..") && exists(target) {
		return "", false
	}
	return t, true
}
