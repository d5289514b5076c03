package mkdocs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"go.yaml.in/yaml/v3"
)

// ConfigFile is the name of an MkDocs project's configuration.
const ConfigFile = "mkdocs.yml"

// Project is an MkDocs project as mkdocs.yml describes it.
type Project struct {
	// Dir is the folder holding the configuration.
	Dir string
	// File is the configuration's name below Dir (mkdocs.yml or mkdocs.yaml).
	File string
	// SiteName, SiteDescription, SiteURL, RepoURL and EditURI are
	// mkdocs.yml's keys of those names.
	SiteName        string
	SiteDescription string
	SiteURL         string
	RepoURL         string
	EditURI         string
	// DocsDir is docs_dir relative to Dir, slash-separated ("docs"); it
	// may lie outside Dir ("../docs"), as MkDocs allows.
	DocsDir string
	// SameDir is set when docs_dir is the project folder itself, which
	// the same-dir plugin allows: the files at its top that are not
	// pages, scripts, stylesheets or CNAME are then not the site's, nor
	// is site_dir.
	SameDir bool
	// SiteDir is site_dir relative to Dir ("site"): where mkdocs build
	// writes.
	SiteDir string
	// UseDirectoryURLs is use_directory_urls (default true: a/b.md is
	// served at a/b/).
	UseDirectoryURLs bool
	// Nav is the nav tree; nil when mkdocs.yml has none (MkDocs then
	// makes one of every page: AutoNav).
	Nav []*NavItem
	// Extra is mkdocs.yml's extra mapping: the macros' variables.
	Extra map[string]any
	// Extensions are the markdown_extensions by name, with their options.
	Extensions map[string]map[string]any
	// Plugins are the plugins by name, with their options.
	Plugins map[string]map[string]any
	// Redirects are the redirects plugin's redirect_maps: an old page
	// (docs-relative .md path) to a page or an absolute URL.
	Redirects map[string]string
	// Strict is strict: true (a warning fails the build).
	Strict bool
	// Validation is MkDocs 1.6's validation, defaults filled in.
	Validation Validation
	// CustomDir is theme.custom_dir relative to Dir ("" for none).
	CustomDir string
	// Raw is mkdocs.yml's content as values (the macros' config
	// variable), with docs_dir and site_name filled in.
	Raw map[string]any
	// UnknownPlugins are plugins kbook does not implement, sorted.
	UnknownPlugins []string
	// Warnings are what kbook skips or cannot do, each at its line.
	Warnings []Warning

	exclude       *matcher
	lines         map[string]int
	unknownPlugin int
}

// Validation is what MkDocs does with a problem of the nav or a link:
// "warn", "info" or "ignore" (MkDocs 1.6's names; absolute links may also
// be "relative_to_docs").
type Validation struct {
	Nav   NavValidation
	Links LinkValidation
}

// NavValidation is validation.nav.
type NavValidation struct {
	OmittedFiles  string `yaml:"omitted_files"`
	NotFound      string `yaml:"not_found"`
	AbsoluteLinks string `yaml:"absolute_links"`
}

// LinkValidation is validation.links.
type LinkValidation struct {
	NotFound          string `yaml:"not_found"`
	Anchors           string `yaml:"anchors"`
	AbsoluteLinks     string `yaml:"absolute_links"`
	UnrecognizedLinks string `yaml:"unrecognized_links"`
}

// Warning is a problem that does not stop the build, at a file's line.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
	}
	return w.File + ": " + w.Msg
}

// knownPlugins are the plugins kbook does what they do: search is
// Pagefind's, macros and include-markdown are translated per page, exclude
// and redirects are read here, the nav plugins' patterns in mkdocs.yml's
// nav expanded (navglob.go); the others only change how MkDocs looks or
// publishes.
var knownPlugins = map[string]bool{
	"search": true, "macros": true, "include-markdown": true, "exclude": true,
	"redirects": true, "offline": true, "tags": true, "same-dir": true,
	"gh-admonitions": true, "callouts": true, "github-admonitions": true,
	awesomePages: true, literateNav: true,
}

// Find returns the configuration file of dir ("mkdocs.yml" or
// "mkdocs.yaml"), "" when dir is no MkDocs project.
func Find(dir string) string {
	for _, n := range []string{ConfigFile, "mkdocs.yaml"} {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && !fi.IsDir() {
			return n
		}
	}
	return ""
}

// Load reads the MkDocs project in dir. Errors are *findings.InputError
// at a line of mkdocs.yml.
func Load(dir string) (*Project, error) {
	name := Find(dir)
	if name == "" {
		return nil, &findings.InputError{File: ConfigFile, Err: errors.New("no such file: not an MkDocs project")}
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return Parse(dir, name, data)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// Parse reads mkdocs.yml's content data; dir is the project folder and
// name the file's name for errors.
func Parse(dir, name string, data []byte) (*Project, error) {
	p := &Project{Dir: dir, File: name, DocsDir: "docs", SiteDir: "site", UseDirectoryURLs: true, lines: map[string]int{},
		Extensions: map[string]map[string]any{}, Plugins: map[string]map[string]any{}, Redirects: map[string]string{}}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line := 0
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.TrimPrefix(err.Error(), m[0])
		}
		return nil, &findings.InputError{File: name, Line: nearestLine(data, line, msg), Err: errors.New(msg)}
	}
	if len(root.Content) == 0 {
		return nil, &findings.InputError{File: name, Line: 1, Err: errors.New("empty configuration: MkDocs needs at least site_name")}
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, &findings.InputError{File: name, Line: top.Line, Err: errors.New("want key: value lines (a YAML mapping)")}
	}
	top, err := p.inherit(top, dir, name, 0)
	if err != nil {
		return nil, err
	}
	if err := p.read(top); err != nil {
		return nil, err
	}
	if p.SiteName == "" {
		return nil, &findings.InputError{File: name, Line: 1, Err: errors.New("site_name is required (MkDocs refuses a configuration without it)")}
	}
	return p, nil
}

// inherit merges the configuration that top's INHERIT names (relative
// to the folder of file, below dir) under top, as MkDocs's yaml_load
// does: mappings merged key by key, the inheriting file's values winning,
// lists and other values replaced whole; a parent may inherit in turn.
func (p *Project) inherit(top *yaml.Node, dir, file string, depth int) (*yaml.Node, error) {
	var ref *yaml.Node
	rest := &yaml.Node{Kind: yaml.MappingNode, Tag: top.Tag, Line: top.Line, Column: top.Column}
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "INHERIT" {
			ref = resolve(top.Content[i+1])
			continue
		}
		rest.Content = append(rest.Content, top.Content[i], top.Content[i+1])
	}
	if ref == nil {
		return top, nil
	}
	if depth > 8 {
		return nil, &findings.InputError{File: file, Line: ref.Line, Err: errors.New("INHERIT: inherited configurations nested deeper than 8 (does one inherit itself?)")}
	}
	rel := filepath.ToSlash(filepath.Join(path.Dir(file), ref.Value))
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, findings.Inputf(file, ref.Line, "INHERIT: inherited config file '%s' does not exist at '%s'", ref.Value, rel)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &findings.InputError{File: rel, Err: errors.New(strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	if len(root.Content) == 0 {
		return rest, nil
	}
	parent := root.Content[0]
	if parent.Kind != yaml.MappingNode {
		return nil, &findings.InputError{File: rel, Line: parent.Line, Err: errors.New("want key: value lines (a YAML mapping)")}
	}
	if parent, err = p.inherit(parent, dir, rel, depth+1); err != nil {
		return nil, err
	}
	return mergeNodes(parent, rest), nil
}

// mergeNodes is mergedeep's merge of two mappings: b's keys over a's,
// mappings merged recursively.
func mergeNodes(a, b *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: a.Tag, Line: b.Line, Column: b.Column}
	out.Content = append(out.Content, a.Content...)
	for i := 0; i+1 < len(b.Content); i += 2 {
		k, v := b.Content[i], b.Content[i+1]
		found := false
		for j := 0; j+1 < len(out.Content); j += 2 {
			if out.Content[j].Value != k.Value {
				continue
			}
			found = true
			if av, bv := resolve(out.Content[j+1]), resolve(v); av.Kind == yaml.MappingNode && bv.Kind == yaml.MappingNode {
				out.Content[j+1] = mergeNodes(av, bv)
			} else {
				out.Content[j], out.Content[j+1] = k, v
			}
		}
		if !found {
			out.Content = append(out.Content, k, v)
		}
	}
	return out
}

func (p *Project) errorf(n *yaml.Node, format string, args ...any) error {
	return findings.Inputf(p.File, n.Line, format, args...)
}

func (p *Project) warnf(line int, format string, args ...any) {
	p.Warnings = append(p.Warnings, Warning{File: p.File, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// Line is the line of a key of mkdocs.yml (0 if absent): a top-level
// key ("theme"), a key of its mapping ("theme.logo") or an item of its
// list ("extra_css.1", from 0).
func (p *Project) Line(key string) int { return p.lines[key] }

// subLines records the lines of the keys or items of a top-level value.
func (p *Project) subLines(key string, v *yaml.Node) {
	if v == nil {
		return
	}
	switch v.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			p.lines[key+"."+v.Content[i].Value] = v.Content[i].Line
		}
	case yaml.SequenceNode:
		for i, it := range v.Content {
			p.lines[fmt.Sprintf("%s.%d", key, i)] = it.Line
		}
	}
}

func (p *Project) read(top *yaml.Node) error {
	var excludeDocs string
	var excludeGlobs, excludeRegex []string
	var excludeLine int
	p.Raw = map[string]any{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], resolve(top.Content[i+1])
		p.lines[k.Value] = k.Line
		p.subLines(k.Value, v)
		if x, err := value(v); err == nil {
			p.Raw[k.Value] = x
		}
		str := func() (string, error) {
			s, err := scalar(v)
			if err != nil {
				return "", p.errorf(v, "%s: %v", k.Value, err)
			}
			return s, nil
		}
		var err error
		switch k.Value {
		case "site_name":
			p.SiteName, err = str()
		case "site_description":
			p.SiteDescription, err = str()
		case "site_url":
			p.SiteURL, err = str()
		case "repo_url":
			p.RepoURL, err = str()
		case "edit_uri":
			p.EditURI, err = str()
		case "docs_dir":
			var d string
			if d, err = str(); err == nil {
				p.DocsDir = p.projectRel(d)
			}
		case "site_dir":
			var d string
			if d, err = str(); err == nil {
				p.SiteDir = p.projectRel(d)
			}
		case "use_directory_urls":
			p.UseDirectoryURLs, err = boolean(v)
		case "strict":
			p.Strict, err = boolean(v)
		case "extra":
			x, cerr := value(v)
			if m, ok := x.(map[string]any); ok {
				p.Extra = m
			} else if cerr != nil || x != nil {
				return p.errorf(v, "extra: want a mapping of variables")
			}
		case "nav":
			p.Nav, err = p.readNav(v)
			if err == nil && p.Nav == nil {
				p.Nav = []*NavItem{}
			}
		case "markdown_extensions":
			err = p.readNamed(v, k.Value, p.Extensions, nil)
		case "plugins":
			err = p.readNamed(v, k.Value, p.Plugins, func(name string, line int) { p.plugin(name, line) })
		case "exclude_docs":
			excludeDocs, err = str()
			excludeLine = v.Line
		case "validation":
			err = p.readValidation(v)
		case "theme":
			err = p.readTheme(v)
		}
		if err != nil {
			return err
		}
	}
	if p.DocsDir == "." {
		// MkDocs refuses docs_dir as the folder holding mkdocs.yml; the
		// same-dir plugin lifts that check.
		if _, ok := p.Plugins["same-dir"]; !ok {
			return &findings.InputError{File: p.File, Line: p.Line("docs_dir"), Err: errors.New("docs_dir must not be the folder holding " + p.File + ": MkDocs refuses it too (\"should not be the parent directory of the config file\"), unless the same-dir plugin is enabled")}
		}
		p.SameDir = true
	} else if p.within(p.DocsDir, p.SiteDir) {
		return findings.Inputf(p.File, p.dirsLine(), "docs_dir %s is within site_dir %s: MkDocs refuses it too (\"the 'docs_dir' should not be within the 'site_dir'\")", p.DocsDir, p.SiteDir)
	} else if p.within(p.SiteDir, p.DocsDir) {
		return findings.Inputf(p.File, p.dirsLine(), "site_dir %s is within docs_dir %s: MkDocs refuses it too (\"the 'site_dir' should not be within the 'docs_dir'\")", p.SiteDir, p.DocsDir)
	}
	if ex, ok := p.Plugins["exclude"]; ok {
		excludeGlobs = strings_(ex["glob"])
		excludeRegex = strings_(ex["regex"])
	}
	if rd, ok := p.Plugins["redirects"]; ok {
		if m, ok := rd["redirect_maps"].(map[string]any); ok {
			for from, to := range m {
				if s, ok := to.(string); ok {
					p.Redirects[filepath.ToSlash(filepath.Clean(from))] = s
				}
			}
		}
	}
	m, err := newMatcher(excludeDocs, excludeGlobs, excludeRegex)
	if err != nil {
		return &findings.InputError{File: p.File, Line: excludeLine, Err: errors.New("exclude: " + err.Error())}
	}
	p.exclude = m
	p.Validation.defaults(p.Validation)
	p.Raw["docs_dir"], p.Raw["site_dir"], p.Raw["site_name"] = p.DocsDir, p.SiteDir, p.SiteName
	if _, ok := p.Raw["extra"].(map[string]any); !ok {
		p.Raw["extra"] = map[string]any{}
	}
	p.dropNavPatterns()
	sort.Strings(p.UnknownPlugins)
	if len(p.UnknownPlugins) > 0 {
		p.warnf(p.unknownPlugin, "plugins kbook does not run, skipped: %s", strings.Join(p.UnknownPlugins, ", "))
	}
	return nil
}

func (p *Project) plugin(name string, line int) {
	if !knownPlugins[name] {
		if len(p.UnknownPlugins) == 0 {
			p.unknownPlugin = line
		}
		p.UnknownPlugins = append(p.UnknownPlugins, name)
	}
}

// readNamed reads markdown_extensions or plugins: a list of names or of
// one-key mappings name: options, or a mapping of names to options.
func (p *Project) readNamed(v *yaml.Node, key string, into map[string]map[string]any, seen func(string, int)) error {
	add := func(kn, vn *yaml.Node) error {
		name, err := scalar(kn)
		if err != nil || name == "" {
			return p.errorf(kn, "%s: want a name", key)
		}
		var opts map[string]any
		if vn != nil {
			x, err := value(vn)
			if err != nil {
				return p.errorf(vn, "%s: %s: %v", key, name, err)
			}
			switch o := x.(type) {
			case map[string]any:
				opts = o
			case nil:
			default:
				return p.errorf(vn, "%s: %s: want its options as key: value lines", key, name)
			}
		}
		if prev, ok := into[name]; ok && prev != nil {
			// Listed twice (k0s lists pymdownx.superfences twice): the
			// options merge, the later winning, as Python-Markdown's do.
			for k, x := range opts {
				prev[k] = x
			}
		} else {
			into[name] = opts
			if seen != nil {
				seen(name, kn.Line)
			}
		}
		return nil
	}
	switch v.Kind {
	case yaml.SequenceNode:
		for _, item := range v.Content {
			item = resolve(item)
			switch item.Kind {
			case yaml.ScalarNode:
				if err := add(item, nil); err != nil {
					return err
				}
			case yaml.MappingNode:
				for j := 0; j+1 < len(item.Content); j += 2 {
					if err := add(item.Content[j], resolve(item.Content[j+1])); err != nil {
						return err
					}
				}
			default:
				return p.errorf(item, "%s: want a name or name: options", key)
			}
		}
	case yaml.MappingNode:
		for j := 0; j+1 < len(v.Content); j += 2 {
			if err := add(v.Content[j], resolve(v.Content[j+1])); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if v.Tag != "!!null" {
			return p.errorf(v, "%s: want a list", key)
		}
	default:
		return p.errorf(v, "%s: want a list", key)
	}
	return nil
}

var levels = map[string]bool{"warn": true, "info": true, "ignore": true}

func (p *Project) readValidation(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return p.errorf(v, "validation: want nav:, links: or the shorthand keys")
	}
	set := func(n *yaml.Node, dst *string, extra ...string) error {
		s, err := scalar(n)
		if err != nil {
			return p.errorf(n, "validation: %v", err)
		}
		ok := levels[s]
		for _, e := range extra {
			ok = ok || s == e
		}
		if !ok {
			return p.errorf(n, "validation: %q: want warn, info or ignore", s)
		}
		*dst = s
		return nil
	}
	val := &p.Validation
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, x := v.Content[i].Value, resolve(v.Content[i+1])
		var err error
		switch k {
		case "nav", "links":
			if x.Kind != yaml.MappingNode {
				return p.errorf(x, "validation.%s: want key: level lines", k)
			}
			for j := 0; j+1 < len(x.Content); j += 2 {
				kk, xx := x.Content[j].Value, resolve(x.Content[j+1])
				var dst *string
				switch k + "." + kk {
				case "nav.omitted_files":
					dst = &val.Nav.OmittedFiles
				case "nav.not_found":
					dst = &val.Nav.NotFound
				case "nav.absolute_links":
					dst = &val.Nav.AbsoluteLinks
				case "links.not_found":
					dst = &val.Links.NotFound
				case "links.anchors":
					dst = &val.Links.Anchors
				case "links.absolute_links":
					dst = &val.Links.AbsoluteLinks
				case "links.unrecognized_links":
					dst = &val.Links.UnrecognizedLinks
				default:
					return p.errorf(x.Content[j], "validation.%s: unknown key %s", k, kk)
				}
				if err := set(xx, dst, "relative_to_docs"); err != nil {
					return err
				}
			}
		// MkDocs 1.6's shorthand sets nav and links at once.
		case "omitted_files":
			err = set(x, &val.Nav.OmittedFiles)
		case "not_found":
			if err = set(x, &val.Nav.NotFound); err == nil {
				val.Links.NotFound = val.Nav.NotFound
			}
		case "absolute_links":
			if err = set(x, &val.Nav.AbsoluteLinks, "relative_to_docs"); err == nil {
				val.Links.AbsoluteLinks = val.Nav.AbsoluteLinks
			}
		case "anchors":
			err = set(x, &val.Links.Anchors)
		case "unrecognized_links":
			err = set(x, &val.Links.UnrecognizedLinks)
		default:
			return p.errorf(v.Content[i], "validation: unknown key %s", k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// defaults fills MkDocs 1.6's defaults into the levels left unset.
func (v *Validation) defaults(Validation) {
	def := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	def(&v.Nav.OmittedFiles, "info")
	def(&v.Nav.NotFound, "warn")
	def(&v.Nav.AbsoluteLinks, "info")
	def(&v.Links.NotFound, "warn")
	def(&v.Links.Anchors, "info")
	def(&v.Links.AbsoluteLinks, "info")
	def(&v.Links.UnrecognizedLinks, "info")
}

func (p *Project) readTheme(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return nil // theme: material
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		if v.Content[i].Value != "custom_dir" {
			continue
		}
		d, err := scalar(resolve(v.Content[i+1]))
		if err != nil {
			return p.errorf(v.Content[i+1], "theme.custom_dir: %v", err)
		}
		d = filepath.ToSlash(filepath.Clean(d))
		p.CustomDir = d
		p.warnf(v.Content[i].Line, "theme.custom_dir %s: MkDocs theme templates are not used by kbook's theme (its other files are served, as MkDocs serves them; none is a page)", d)
	}
	return nil
}

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// scalar is a scalar's text; !ENV takes the environment variable.
func scalar(n *yaml.Node) (string, error) {
	x, err := value(n)
	if err != nil {
		return "", err
	}
	switch s := x.(type) {
	case string:
		return s, nil
	case nil:
		return "", nil
	case bool, int, float64:
		return fmt.Sprint(s), nil
	}
	return "", fmt.Errorf("want a single value")
}

func boolean(n *yaml.Node) (bool, error) {
	x, err := value(n)
	if err != nil {
		return false, err
	}
	switch b := x.(type) {
	case bool:
		return b, nil
	case nil:
		return false, nil
	case string:
		if b == "" {
			return false, nil
		}
	}
	return false, fmt.Errorf("line %d: want true or false", n.Line)
}

// value converts a YAML node to Go values (maps, slices, scalars) with
// MkDocs's tags: !ENV NAME or !ENV [NAME, ..., default] is the first set
// variable (else the default), !!python/name:x and !!python/object... are
// the text "x" (Python objects kbook cannot make), !relative is its path.
func value(n *yaml.Node) (any, error) {
	n = resolve(n)
	if n == nil {
		return nil, nil
	}
	switch {
	case n.Tag == "!ENV":
		return envValue(n)
	case strings.HasPrefix(n.Tag, "!!python/") || strings.HasPrefix(n.Tag, "tag:yaml.org,2002:python/"):
		t := strings.TrimPrefix(strings.TrimPrefix(n.Tag, "!!"), "tag:yaml.org,2002:")
		_, name, _ := strings.Cut(t, ":")
		if name == "" {
			name = n.Value
		}
		return name, nil
	case n.Tag == "!relative":
		return n.Value, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" && k.Tag == "!!merge" {
				x, err := value(v)
				if err != nil {
					return nil, err
				}
				if mm, ok := x.(map[string]any); ok {
					for kk, vv := range mm {
						if _, set := m[kk]; !set {
							m[kk] = vv
						}
					}
				}
				continue
			}
			x, err := value(v)
			if err != nil {
				return nil, err
			}
			m[k.Value] = x
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			x, err := value(c)
			if err != nil {
				return nil, err
			}
			s = append(s, x)
		}
		return s, nil
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
			return n.Value, nil // another local tag: its text
		}
		var x any
		if err := n.Decode(&x); err != nil {
			return n.Value, nil
		}
		return x, nil
	}
	return nil, nil
}

func envValue(n *yaml.Node) (any, error) {
	var names []*yaml.Node
	switch n.Kind {
	case yaml.ScalarNode:
		names = []*yaml.Node{n}
	case yaml.SequenceNode:
		names = n.Content
	default:
		return nil, fmt.Errorf("line %d: !ENV takes a variable name or a list of names and a default", n.Line)
	}
	for i, c := range names {
		if i == len(names)-1 && len(names) > 1 {
			// The last item is the default, any YAML value.
			plain := *c
			plain.Tag = ""
			var x any
			_ = plain.Decode(&x)
			return x, nil
		}
		if v, ok := os.LookupEnv(c.Value); ok {
			var x any
			if err := yaml.Unmarshal([]byte(v), &x); err == nil {
				if _, isStr := x.(string); !isStr {
					return x, nil
				}
			}
			return v, nil
		}
	}
	return nil, nil
}

// strings_ is a list of strings from a YAML value (one string or a list).
func strings_(x any) []string {
	switch v := x.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, s := range v {
			if str, ok := s.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

// exists reports whether path exists (a dangling symlink does not).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// nearestLine is the line a YAML syntax error is reported at: the parser
// names where the construct began ("[a" opened on line 2 and never
// closed); the first line whose prefix of the file fails with the same
// message is nearer to where the reader must look.
func nearestLine(data []byte, line int, msg string) int {
	lines := strings.SplitAfter(string(data), "\n")
	for n := max(line, 1); n <= len(lines); n++ {
		var node yaml.Node
		err := yaml.Unmarshal([]byte(strings.Join(lines[:n], "")), &node)
		if err != nil && strings.HasSuffix(err.Error(), msg) {
			return n
		}
	}
	return line
}

// MacroModules are the macros plugin's Python modules, which kbook
// cannot run.
func (p *Project) MacroModules() []string { return strings_(p.Plugins["macros"]["modules"]) }

// projectRel is a docs_dir or site_dir of mkdocs.yml relative to the
// project folder, slash-separated. MkDocs reads a relative one from the
// folder holding mkdocs.yml and takes an absolute one as it is; either
// may lie outside the project (docs_dir: ../docs).
func (p *Project) projectRel(d string) string {
	if filepath.IsAbs(d) {
		if abs, err := filepath.Abs(p.Dir); err == nil {
			if rel, err := filepath.Rel(abs, d); err == nil {
				d = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(d))
}

// within reports whether the project-relative folder a is b or inside it.
func (p *Project) within(a, b string) bool {
	abs, err := filepath.Abs(p.Dir)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(filepath.Join(abs, filepath.FromSlash(b)), filepath.Join(abs, filepath.FromSlash(a)))
	return err == nil && rel != ".." && !strings.HasPrefix(filepath.ToSlash(rel), "../")
}

// dirsLine is the line of site_dir, else of docs_dir: where a clash of
// the two is reported.
func (p *Project) dirsLine() int {
	if l := p.Line("site_dir"); l > 0 {
		return l
	}
	return p.Line("docs_dir")
}
