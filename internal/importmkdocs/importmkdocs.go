package importmkdocs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/frontmatter"
	"github.com/k0rdent/kbook/internal/mkdocs"
	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/site"
	"go.yaml.in/yaml/v3"
)

// Report says what kbook import mkdocs wrote and what needs a hand.
type Report struct {
	// Out is the docs repository written.
	Out string
	// Pages, Runbooks and Assets count the guides (content/), runbooks
	// (runbooks/) and other files written.
	Pages, Runbooks, Assets int
	// Notes are what the import could not carry over, once each.
	Notes []string
}

// importTo writes the MkDocs project in dir as a kbook docs
// repository in out: kbook.yaml, content/ with Hugo front matter (titles
// and weights from the nav, a folder's index.md or README.md as its
// _index.md) and bodies translated from MkDocs's Markdown, the runbooks
// (pages with testscript blocks) in runbooks/, and docs_dir's other files
// beside the pages. out must not exist or be empty; it is written
// atomically: on any error nothing is left.
func importTo(dir, out string) (*Report, error) {
	if mkdocs.Find(dir) == "" {
		return nil, &findings.InputError{File: dir, Err: errors.New("no mkdocs.yml: not an MkDocs project")}
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return nil, &findings.InputError{File: out, Err: errors.New("exists and is not empty: give a new folder with --out")}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &findings.InputError{File: out, Err: err}
	}
	p, err := site.Load(dir)
	if err != nil {
		return nil, err
	}
	if p.MkDocs == nil {
		return nil, &findings.InputError{File: dir, Err: errors.New("not an MkDocs project")}
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, ".kbook-import-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	rep, err := writeImport(p, tmp)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(out) // an empty folder given as --out
	if err := os.Rename(tmp, out); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	rep.Out = out
	return rep, nil
}

// importedConfig is the kbook.yaml an import writes.
type importedConfig struct {
	Title       string              `yaml:"title"`
	Description string              `yaml:"description,omitempty"`
	Repo        string              `yaml:"repo,omitempty"`
	Links       docsrepo.LinkPolicy `yaml:"links"`
	Variables   map[string]any      `yaml:"variables,omitempty"`
}

func writeImport(p *site.Project, dst string) (*Report, error) {
	ms, mk := p.MkDocs, p.MkDocs.Config
	rep := &Report{Notes: ms.Notes()}
	c := p.Config
	kc, err := yaml.Marshal(importedConfig{Title: c.Title, Description: c.Description, Repo: c.Repo, Links: c.Links})
	if err != nil {
		return nil, err
	}
	head := "# Imported from " + mk.File + " by kbook import mkdocs. The macros' variables were\n# substituted into the pages; versions: and run: are kbook's own.\n"
	if err := write(filepath.Join(dst, docsrepo.ConfigFile), append([]byte(head), kc...)); err != nil {
		return nil, err
	}
	moved := map[string]string{} // docs-relative page → its path in the import
	for _, pg := range p.Pages {
		moved[strings.TrimPrefix(pg.File, mk.DocsDir+"/")] = importedPath(pg, mk.DocsDir)
	}
	for _, pg := range p.Pages {
		target, data, err := importedPage(pg, mk.DocsDir)
		if err != nil {
			return nil, err
		}
		data = relinkImported(data, strings.TrimPrefix(pg.File, mk.DocsDir+"/"), target, moved)
		if pg.Runbook != nil {
			rep.Runbooks++
		} else {
			rep.Pages++
		}
		if err := write(filepath.Join(dst, filepath.FromSlash(target)), data); err != nil {
			return nil, err
		}
	}
	if err := site.CopyAssets(p, filepath.Join(dst, "content")); err != nil {
		return nil, err
	}
	rep.Assets = len(ms.Assets)
	if mods := mk.MacroModules(); len(mods) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s:%d: macros modules %s are Python and cannot run: their macros are left in the pages", mk.File, mk.Line("plugins"), strings.Join(mods, ", ")))
	}
	if n := navNotFolders(mk.Nav, ""); n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s:%d: %d nav sections group pages of other folders; kbook's sidebar follows folders, so they keep their order (weights) but not their section", mk.File, mk.Line("nav"), n))
	}
	var links []string
	for _, it := range flatNav(mk.Nav) {
		if it.URL != "" {
			links = append(links, it.URL)
		}
	}
	if len(links) > 0 {
		sort.Strings(links)
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s:%d: nav links to %s are not pages: add them to a page (or site/ layouts) by hand", mk.File, mk.Line("nav"), strings.Join(links, ", ")))
	}
	return rep, nil
}

// importedPage is a page as kbook's content/ or runbooks/ holds it.
func importedPage(pg *site.Page, docsDir string) (string, []byte, error) {
	body := frontmatter.Body(pg.Body)
	body = bytes.TrimLeft(body, "\n")
	front := pg.Front
	var target string
	if pg.Runbook != nil {
		// A runbook's front matter takes its own keys only.
		front = map[string]any{}
		for _, k := range []string{"title", "description", "requires", "timeout", "tags", "weight", "inputs", "crds"} {
			if v, ok := pg.Front[k]; ok {
				front[k] = v
			}
		}
	}
	target = importedPath(pg, docsDir)
	fm, err := yaml.Marshal(front)
	if err != nil {
		return "", nil, fmt.Errorf("%s: front matter: %w", pg.File, err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(fm)
	b.WriteString("---\n\n")
	b.Write(body)
	return target, b.Bytes(), nil
}

// importedPath is where a page goes in the import: runbooks/ for a
// runbook, content/ for the others.
func importedPath(pg *site.Page, docsDir string) string {
	if pg.Runbook != nil {
		return path.Join("runbooks", strings.TrimPrefix(pg.File, docsDir+"/"))
	}
	return path.Join("content", pg.Path)
}

var mdLinkTarget = regexp.MustCompile(`\]\(([^)\s#]+\.md)(#[^)\s]*)?(\s+"[^"]*")?\)`)

// relinkImported rewrites a page's relative links to other pages for
// where both are in the import (a runbook moved to runbooks/, a folder's
// index.md now its _index.md).
func relinkImported(data []byte, from, to string, moved map[string]string) []byte {
	return mdLinkTarget.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := mdLinkTarget.FindSubmatch(m)
		target := string(sub[1])
		if mkdocs.IsExternal(target) || strings.HasPrefix(target, "/") {
			return m
		}
		dst, ok := moved[path.Clean(path.Join(path.Dir(from), target))]
		if !ok {
			return m
		}
		rel, err := filepath.Rel(path.Dir(to), dst)
		if err != nil {
			return m
		}
		return []byte("](" + filepath.ToSlash(rel) + string(sub[2]) + string(sub[3]) + ")")
	})
}

// navNotFolders counts the nav sections whose pages are not all in one folder.
func navNotFolders(items []*mkdocs.NavItem, _ string) int {
	n := 0
	for _, it := range items {
		if !it.IsSection() {
			continue
		}
		dirs := map[string]bool{}
		for _, c := range flatNav(it.Children) {
			if c.Page != "" {
				dirs[strings.SplitN(c.Page, "/", 2)[0]] = strings.Contains(c.Page, "/")
			}
		}
		if len(dirs) > 1 || (len(dirs) == 1 && !anyTrue(dirs)) {
			n++
		}
		n += navNotFolders(it.Children, "")
	}
	return n
}

func anyTrue(m map[string]bool) bool {
	for _, v := range m {
		if v {
			return true
		}
	}
	return false
}

func flatNav(items []*mkdocs.NavItem) []*mkdocs.NavItem {
	var out []*mkdocs.NavItem
	for _, it := range items {
		out = append(out, it)
		out = append(out, flatNav(it.Children)...)
	}
	return out
}

// Options are kbook import mkdocs's.
type Options struct {
	// Dir is the MkDocs project (a folder with mkdocs.yml).
	Dir string
	// Out is the folder the docs repository is written to, new or empty
	// (default: Dir's name + "-kbook", beside the working directory).
	Out string
}

// Import is kbook import mkdocs: importTo o.Out, with a page's error
// named under o.Dir. Every error is bad input; a context already done
// imports nothing.
func Import(ctx context.Context, o Options) (*Report, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	out := o.Out
	if out == "" {
		abs, err := filepath.Abs(o.Dir)
		if err != nil {
			return nil, findings.Input(err)
		}
		out = filepath.Base(abs) + "-kbook"
	}
	rep, err := importTo(o.Dir, out)
	if err != nil {
		return nil, findings.Input(docsrepo.ErrorUnder(o.Dir, err))
	}
	return rep, nil
}

// Write says what the import wrote and what needs a hand.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "kbook import: wrote %s: %s, %s, %s\n", r.Out, plural.Count(r.Pages, "page"),
		plural.Count(r.Runbooks, "runbook"), plural.Count(r.Assets, "file"))
	if len(r.Notes) > 0 {
		fmt.Fprintf(&b, "needs a hand (%d):\n", len(r.Notes))
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// write writes a file of the import, making its folder.
func write(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}
