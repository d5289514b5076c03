package docsrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/overlay"
	"github.com/k0rdent/kbook/internal/pathglob"
	"go.yaml.in/yaml/v3"
)

// ConfigFile is the name of the optional configuration file at the root
// of a docs repository.
const ConfigFile = "kbook.yaml"

// Config is kbook.yaml.
type Config struct {
	// Title is the site title (default: the directory name).
	Title string `yaml:"title"`
	// Description is the site's one-line summary.
	Description string `yaml:"description"`
	// BaseURL is where the site is published, such as
	// https://acme.github.io/docs/ (default "/": host-relative links).
	BaseURL string `yaml:"baseURL"`
	// Repo is the repository's web address, for edit-this-page links
	// (https://github.com/acme/docs).
	Repo string `yaml:"repo"`
	// Branch is the branch edit links point at (default main).
	Branch string `yaml:"branch"`
	// Content, Runbooks and Site are the directories of guides, runbooks
	// and layout overrides (defaults content, runbooks, site).
	Content  string `yaml:"content"`
	Runbooks string `yaml:"runbooks"`
	Site     string `yaml:"site"`
	// DefaultAlias is the alias readers land on (default latest).
	DefaultAlias string `yaml:"defaultAlias"`
	// Versions are built by kbook build --all-versions, from git refs.
	Versions []VersionSpec `yaml:"versions"`
	// Run configures how kbook build runs the runbooks.
	Run RunConfig `yaml:"run"`
	// Links says what a broken link or anchor does to a build; an MkDocs
	// project's loader fills it from mkdocs.yml's strict and validation.
	Links LinkPolicy `yaml:"links"`
	// Variables are the macros' variables of an MkDocs project, added to
	// (and overriding) mkdocs.yml's extra.
	Variables map[string]any `yaml:"variables"`

	// mkdocsDocs is an MkDocs project's docs_dir, which Content then is:
	// MkDocs allows it outside the project (docs_dir: ../docs).
	mkdocsDocs string
}

// LinkPolicy says what a link problem does to a build. Each level is
// "error" (exit 2, nothing written), "warn" (reported with file:line, the
// site is still written), "info" or "ignore"; "" is kbook's default,
// error. Strict turns every warning into an error, as mkdocs build
// --strict does.
type LinkPolicy struct {
	Strict bool `yaml:"strict"`
	// NotFound is a link or image to a page or file that is not built.
	NotFound string `yaml:"notFound"`
	// Anchors is a link to an anchor its page does not have.
	Anchors string `yaml:"anchors"`
	// Absolute is a link written as an absolute path to the site's own pages.
	Absolute string `yaml:"absolute"`
}

// VersionSpec is one version of the docs, built from a git ref.
type VersionSpec struct {
	// Name is the version folder ("v0.2", "next").
	Name string `yaml:"name"`
	// Ref is the git tag, branch or commit it is built from (default:
	// the name; "next" defaults to the working tree).
	Ref string `yaml:"ref"`
	// Aliases are other folders that redirect to it ("latest").
	Aliases []string `yaml:"aliases"`
	// Title is the switcher label (default: the name).
	Title string `yaml:"title"`
	// Line is where the entry starts in kbook.yaml.
	Line int `yaml:"-"`
}

// RunConfig are the defaults of kbook build's run of the runbooks.
type RunConfig struct {
	// CRDs are directories or files of CRDs for the local API server,
	// relative to the docs root.
	CRDs []string `yaml:"crds"`
	// Pages are globs, relative to the docs root, of pages whose shell
	// blocks run as well as their testscript blocks, as front matter
	// run: shell makes one page's: docs/quickstarts/*.md, docs/**/*.md.
	Pages []string `yaml:"pages"`
	// Overlay are overlay rules, as the rules of a kbook.overlay.yaml
	// (package overlay), kept in kbook.yaml: they apply before that
	// file's. Checked when kbook.yaml loads; read for a run with
	// OverlayRules.
	Overlay yaml.Node `yaml:"overlay"`
}

// OverlayRules reads run.overlay's rules for a run of the docs
// repository at dir, fresh each time (a run counts what each rule
// matched); nil when kbook.yaml has none. Bad rules are an error at
// their line of dir's kbook.yaml.
func (c RunConfig) OverlayRules(dir string) (*overlay.Overlay, error) {
	if c.Overlay.Kind == 0 {
		return nil, nil
	}
	return overlay.ParseRules(filepath.Join(dir, ConfigFile), "run.overlay", &c.Overlay)
}

// ShellPage reports whether kbook.yaml's run.pages lists the page at rel
// (slash-separated, relative to the docs root).
func (c RunConfig) ShellPage(rel string) bool {
	for _, p := range c.Pages {
		if pathglob.Match(p, rel) {
			return true
		}
	}
	return false
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// LoadConfig reads DIR/kbook.yaml; a missing file gives the defaults.
func LoadConfig(dir string) (*Config, error) {
	c, err := readConfig(dir)
	if err != nil {
		return nil, err
	}
	return c, c.finish(dir)
}

// readConfig reads DIR/kbook.yaml as written (a missing file: nothing
// set), before defaults.
func readConfig(dir string) (*Config, error) {
	file := filepath.Join(dir, ConfigFile)
	data, err := inputfile.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		data = nil
	} else if inputfile.IsLimit(err) {
		return nil, err // it names the file
	} else if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	c := &Config{}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(c); err != nil {
			return nil, configError(ConfigFile, err) // docs-relative, as every site error
		}
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err == nil {
			setVersionLines(c, &root)
		}
	}
	return c, nil
}

// finish fills the defaults and checks the configuration.
func (c *Config) finish(dir string) error {
	c.defaults(dir)
	return c.check(ConfigFile) // docs-relative, as every site error
}

func (c *Config) defaults(dir string) {
	if c.Title == "" {
		abs, _ := filepath.Abs(dir)
		c.Title = filepath.Base(abs)
	}
	if c.BaseURL == "" {
		c.BaseURL = "/"
	}
	if !strings.HasSuffix(c.BaseURL, "/") {
		c.BaseURL += "/"
	}
	if c.Branch == "" {
		c.Branch = "main"
	}
	if c.Content == "" {
		c.Content = "content"
	}
	if c.Runbooks == "" {
		c.Runbooks = "runbooks"
	}
	if c.Site == "" {
		c.Site = "site"
	}
	if c.DefaultAlias == "" {
		c.DefaultAlias = "latest"
	}
	c.Repo = strings.TrimSuffix(c.Repo, "/")
}

func (c *Config) check(file string) error {
	seen := map[string]int{}
	for _, v := range c.Versions {
		if err := CheckVersionName(v.Name); err != nil {
			return &findings.InputError{File: file, Line: v.Line, Err: errors.New("versions: " + err.Error())}
		}
		if prev, dup := seen[v.Name]; dup {
			return findings.Inputf(file, v.Line, "versions: %s is already listed at line %d", v.Name, prev)
		}
		seen[v.Name] = v.Line
		for _, a := range v.Aliases {
			if err := CheckVersionName(a); err != nil {
				return &findings.InputError{File: file, Line: v.Line, Err: errors.New("versions: alias: " + err.Error())}
			}
		}
	}
	for _, p := range c.Run.Pages {
		if _, err := path.Match(p, ""); err != nil || p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(path.Clean(p), "..") {
			return findings.Inputf(file, 0, "run.pages: %q is not a glob of pages inside the docs repository (such as docs/quickstarts/*.md or docs/**/*.md)", p)
		}
	}
	if c.Run.Overlay.Kind != 0 {
		if _, err := overlay.ParseRules(file, "run.overlay", &c.Run.Overlay); err != nil {
			return err
		}
	}
	for _, d := range []string{c.Content, c.Runbooks, c.Site} {
		if d == c.mkdocsDocs && d == c.Content {
			continue
		}
		if filepath.IsAbs(d) || strings.HasPrefix(filepath.Clean(d), "..") {
			return findings.Inputf(file, 0, "directory %q must be inside the docs repository", d)
		}
	}
	return nil
}

var versionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CheckVersionName reports whether name can be a version or alias folder.
func CheckVersionName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty version name")
	case !versionName.MatchString(name):
		return fmt.Errorf("version %q: use letters, digits, '.', '_' and '-' only (it becomes a folder name)", name)
	case reservedFolder[name]:
		return fmt.Errorf("version %q: the name is reserved for the site's own files", name)
	}
	return nil
}

// Reserved reports whether name is a root entry of a site's output that
// is not a version (versions.json, index.html, ...).
func Reserved(name string) bool { return reservedFolder[name] }

// reservedFolder are root entries of the output that are not versions.
var reservedFolder = map[string]bool{"versions.json": true, "index.html": true, "404.html": true, "sitemap.xml": true, "pagefind": true}

func setVersionLines(c *Config, root *yaml.Node) {
	if len(root.Content) != 1 {
		return
	}
	top := root.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "versions" {
			continue
		}
		for j, item := range top.Content[i+1].Content {
			if j < len(c.Versions) {
				c.Versions[j].Line = item.Line
			}
		}
	}
}

func configError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	line := 0
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[:m[0]] + msg[m[1]:]
	}
	msg = strings.NewReplacer(
		"in type docsrepo.Config", "(known: title, description, baseURL, repo, branch, content, runbooks, site, defaultAlias, versions, run, links, variables)",
		"in type docsrepo.RunConfig", "in run (known: crds, pages, overlay)",
		"in type docsrepo.LinkPolicy", "in links (known: strict, notFound, anchors, absolute)",
		"in type docsrepo.VersionSpec", "in versions (known: name, ref, aliases, title)",
	).Replace(msg)
	return &findings.InputError{File: file, Line: line, Err: errors.New(msg)}
}
