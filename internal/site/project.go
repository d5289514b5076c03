package site

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/mkdocs"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/site/links"
	"github.com/k0rdent/kbook/internal/sitetools"
)

// Project is a docs repository: its configuration, authored pages and
// runbooks, read and checked before anything is built.
type Project struct {
	// Dir is the docs root.
	Dir    string
	Config *docsrepo.Config
	// Pages are the Markdown files of Content and the Markdown files of
	// Runbooks that hold no steps, by site path.
	Pages []*Page
	// Runbooks are the runbooks below Config.Runbooks (an MkDocs
	// project's: the pages of docs_dir with testscript blocks).
	Runbooks []*runbook.Runbook
	// MkDocs is the MkDocs project of a folder with mkdocs.yml (nil for
	// a kbook docs repository); its pages are translated into the
	// generated content instead of mounted.
	MkDocs *MkDocsSite
	// PageErrors are the errors of the pages WithPageErrors kept (none
	// without it: Load fails at the first).
	PageErrors []error
}

// Page is one Markdown source of the site.
type Page struct {
	// File is the source path relative to the docs root ("content/a/b.md").
	File string
	// Path is the path below the site's content root ("a/b.md").
	Path string
	// Runbook is set for runbook pages.
	Runbook *runbook.Runbook
	// Source is the file content.
	Source []byte
	// Body is the page as written into the generated content (an MkDocs
	// page, translated, with JSON front matter); nil: Source is mounted.
	Body []byte
	// Lines maps the lines of Body (index 0 = line 1) to Source lines.
	Lines []int
	// Front is front matter kbook adds to a runbook page of an MkDocs
	// project (title, linkTitle, weight), under the runbook's own.
	Front map[string]any
	// Theme is what kbook's theme shows of an MkDocs page beyond its front
	// matter (its folder's nav name, its previous and next page in the
	// nav): written under the page's kbook key for Hugo, never into an
	// import's front matter.
	Theme map[string]any
	// Render is the runbook parsed from the translated page: its blocks
	// are what the page shows (Runbook is what runs).
	Render *runbook.Runbook
}

// URL is the page's path below the version root, as Hugo writes it
// (links.PageURL): "a/b/" for a/b.md, "a/" for a/_index.md or
// a/index.md, "" for the home, in lower case.
func (p *Page) URL() string { return links.PageURL(p.Path) }

// LoadOption configures Load.
type LoadOption func(*loadOptions)

type loadOptions struct {
	tools      sitetools.Mode
	pageErrors bool
}

// WithSiteTools chooses where the icon sets of an MkDocs project's pages
// come from (default sitetools.Auto).
func WithSiteTools(m sitetools.Mode) LoadOption {
	return func(o *loadOptions) { o.tools = m }
}

// WithPageErrors makes an MkDocs page whose translation fails (a macro
// error) no error of Load: the error, a findings.InputError at the page's
// line, is added to the Project's PageErrors and the page kept as
// written, so that kbook check reports it beside everything else it
// finds instead of stopping at it. A project loaded so is not rendered.
func WithPageErrors() LoadOption {
	return func(o *loadOptions) { o.pageErrors = true }
}

// Load reads a docs repository: kbook.yaml, content/ and runbooks/, or
// an MkDocs project (a folder with mkdocs.yml, and optionally kbook.yaml
// beside it for versions and run settings).
// Any problem is returned as a *findings.InputError naming the file and
// line.
func Load(dir string, opts ...LoadOption) (*Project, error) {
	var o loadOptions
	for _, opt := range opts {
		opt(&o)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, &findings.InputError{File: ".", Err: errors.New("no such directory: give the docs repository (kbook init docs DIR makes one)")}
	}
	if mkdocs.Find(dir) != "" {
		return loadMkDocs(dir, o)
	}
	cfg, err := docsrepo.LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	if !exists(filepath.Join(dir, docsrepo.ConfigFile)) && !exists(filepath.Join(dir, cfg.Content)) && !exists(filepath.Join(dir, cfg.Runbooks)) {
		return nil, findings.Inputf(".", 0, "not a docs repository: no %s, %s/ or %s/ (kbook init docs DIR makes one)", docsrepo.ConfigFile, cfg.Content, cfg.Runbooks)
	}
	p := &Project{Dir: dir, Config: cfg}
	byURL := map[string]string{}
	add := func(pg *Page) error {
		u := pg.URL()
		if prev, dup := byURL[u]; dup {
			return findings.Inputf(pg.File, 0, "page /%s is also made by %s: rename one of them", u, prev)
		}
		byURL[u] = pg.File
		p.Pages = append(p.Pages, pg)
		return nil
	}
	if err := walkMarkdown(dir, cfg.Content, func(rel, file string, src []byte) error {
		if err := docsrepo.CheckFrontMatter(file, src); err != nil {
			return err
		}
		pg := &Page{File: file, Path: rel, Source: src}
		rb, err := contentRunbook(dir, cfg, file, src)
		if err != nil {
			return err
		}
		if rb != nil {
			pg.Runbook = rb
			p.Runbooks = append(p.Runbooks, rb)
		}
		return add(pg)
	}); err != nil {
		return nil, err
	}
	err = walkMarkdown(dir, cfg.Runbooks, func(rel, file string, src []byte) error {
		site := filepath.ToSlash(filepath.Join("runbooks", rel))
		if strings.EqualFold(filepath.Ext(rel), ".txtar") {
			site = strings.TrimSuffix(site, filepath.Ext(site)) + ".md"
		}
		rb, err := runbook.Parse(filepath.Join(dir, file), src)
		if err != nil {
			return docsrepo.RelError(dir, err)
		}
		rb.Path = file
		pg := &Page{File: file, Path: site, Source: src}
		if len(rb.Steps) > 0 {
			pg.Runbook = rb
			p.Runbooks = append(p.Runbooks, rb)
		} else if rb.Format == runbook.Txtar {
			return nil
		}
		return add(pg)
	}, ".txtar")
	if err != nil {
		return nil, err
	}
	sort.Slice(p.Pages, func(i, j int) bool { return p.Pages[i].Path < p.Pages[j].Path })
	return p, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// walkMarkdown calls fn for every Markdown file (and files with the extra
// extensions) below root/sub, skipping hidden and _-prefixed directories.
func walkMarkdown(root, sub string, fn func(rel, file string, src []byte) error, extra ...string) error {
	base := filepath.Join(root, sub)
	if _, err := os.Stat(base); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != base && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := strings.ToLower(filepath.Ext(name))
		ok := ext == ".md" || ext == ".markdown"
		for _, e := range extra {
			ok = ok || ext == e
		}
		if !ok {
			return nil
		}
		src, err := inputfile.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, path)
		file := filepath.ToSlash(filepath.Join(sub, rel))
		return fn(filepath.ToSlash(rel), file, src)
	})
}

// contentRunbook parses a page of content/ as a runbook when it runs its
// shell blocks (run: shell in its front matter, or kbook.yaml's
// run.pages lists it) and has one: kbook's own pages run the examples
// that can run, and show their marks, as a runbook page does. nil for
// any other page: authored content is mounted as it is.
func contentRunbook(dir string, cfg *docsrepo.Config, file string, src []byte) (*runbook.Runbook, error) {
	listed := cfg.Run.ShellPage(file)
	if !listed && !bytes.Contains(src, []byte("run:")) && !runbook.HasRunFlag(src) {
		return nil, nil
	}
	rb, err := runbook.Parse(filepath.Join(dir, file), src)
	if err == nil && listed {
		err = rb.RunShellBlocks("kbook.yaml run.pages")
	}
	if err != nil {
		return nil, docsrepo.RelError(dir, err)
	}
	if rb.ShellPage() == "" || len(rb.Steps) == 0 {
		return nil, nil
	}
	rb.Path = file
	return rb, nil
}

// ContentRunbooks are the runbooks among the pages of content/ (of a kbook
// docs repository: contentRunbook), by docs-relative path.
func (p *Project) ContentRunbooks() []string {
	var out []string
	for _, rb := range p.Runbooks {
		if !strings.HasPrefix(rb.Path, p.Config.Runbooks+"/") && p.MkDocs == nil {
			out = append(out, rb.Path)
		}
	}
	return out
}

// Runbook returns the runbook with the given docs-relative path.
func (p *Project) Runbook(path string) *runbook.Runbook {
	for _, rb := range p.Runbooks {
		if rb.Path == path {
			return rb
		}
	}
	return nil
}

// RunbookPaths are what kbook run is given to run the project's
// runbooks: the runbooks folder and the pages of content/ that run their
// shell blocks, or an MkDocs project's runbook pages
// (they may be anywhere in docs_dir, among pages that are no runbooks).
func (p *Project) RunbookPaths() []string {
	if p.MkDocs == nil {
		out := []string{filepath.Join(p.Dir, p.Config.Runbooks)}
		for _, f := range p.ContentRunbooks() {
			out = append(out, filepath.Join(p.Dir, filepath.FromSlash(f)))
		}
		return out
	}
	var out []string
	for _, rb := range p.Runbooks {
		out = append(out, filepath.Join(p.Dir, filepath.FromSlash(rb.Path)))
	}
	return out
}

// ExpandRunbookPathsAllowEmpty is ExpandRunbookPaths for kbook check,
// which loads (and so translates) the whole project: an MkDocs project
// without runbooks is no error, it is returned in empty.
// The projects are loaded through l, so that kbook check's link check
// takes the same Load.
func (l *Loader) ExpandRunbookPathsAllowEmpty(paths []string) (out, empty []string, err error) {
	for _, path := range paths {
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() || mkdocs.Find(path) == "" {
			out = append(out, path)
			continue
		}
		p, err := l.Load(path)
		if err != nil {
			return nil, nil, docsrepo.RelError(path, err)
		}
		if len(p.Runbooks) == 0 {
			empty = append(empty, path)
			continue
		}
		out = append(out, p.RunbookPaths()...)
	}
	return out, empty, nil
}

// Loader loads each docs repository once. kbook check needs an MkDocs
// project twice, for its runbook pages and for its links, and Load of one
// reads and translates every page. The zero Loader is ready; it is not
// safe for concurrent use.
type Loader struct {
	// Options are Load's, for every project.
	Options  []LoadOption
	projects map[string]*Project // by absolute folder
	// Reads counts the projects read from disk (Load calls): tests and
	// benchmarks see with it that a command loads a project once.
	Reads int
}

// Load is Load, once per folder: a later call for the same folder (by
// absolute path) returns what the first read, with Dir the folder as
// given this time (the rest is shared: callers do not change it).
func (l *Loader) Load(dir string) (*Project, error) {
	key, err := filepath.Abs(dir)
	if err != nil {
		key = dir
	}
	if p, ok := l.projects[key]; ok {
		c := *p
		c.Dir = dir
		return &c, nil
	}
	l.Reads++
	p, err := Load(dir, l.Options...)
	if err != nil {
		return nil, err
	}
	if l.projects == nil {
		l.projects = map[string]*Project{}
	}
	l.projects[key] = p
	return p, nil
}
