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
)

// Files are what MkDocs builds from docs_dir.
type Files struct {
	// Pages are the Markdown pages, docs-relative and slash-separated,
	// sorted.
	Pages []string
	// Assets are the other files (images, downloads, CSS), served as they are.
	Assets []string
	// Warnings are files skipped with a reason (a dangling symlink, a
	// README.md beside an index.md, a nav entry naming no page).
	Warnings []Warning
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
		return nil, &Error{File: p.File, Line: p.Line("docs_dir"), Msg: fmt.Sprintf("docs_dir %s: no such folder", p.DocsDir)}
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
	for _, it := range p.NavPages() {
		if !have[it.Page] && p.Validation.Nav.NotFound == "warn" {
			out.Warnings = append(out.Warnings, Warning{File: p.File, Line: it.Line, Msg: fmt.Sprintf("nav: %s is not a page of docs_dir %s", it.Page, p.DocsDir)})
		}
	}
	sort.Strings(out.Pages)
	sort.Strings(out.Assets)
	return out, nil
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
