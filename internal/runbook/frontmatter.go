package runbook

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/frontmatter"
	"github.com/k0rdent/kbook/internal/outmatch"
)

// UnmarshalYAML reads a Go duration string such as "90s" or "10m".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: timeout %q is not a duration such as 90s or 10m", n.Line, n.Value)
	}
	if v <= 0 {
		return fmt.Errorf("line %d: timeout must be positive, got %q", n.Line, n.Value)
	}
	d.Duration = v
	return nil
}

// MarshalYAML writes the duration as a string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// splitFrontMatter returns the page's front matter YAML (package
// frontmatter finds it); a block opened with --- that is never closed is
// an error at line 1.
func splitFrontMatter(path string, src []byte) ([]byte, error) {
	b := frontmatter.Split(src)
	if b.Unclosed {
		return nil, errorf(path, 1, "front matter opened with --- is never closed with a --- line")
	}
	return b.YAML, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// parseMeta decodes front matter; fm starts on source line 2.
func parseMeta(path string, fm []byte) (Meta, error) {
	var doc metaDoc
	if len(bytes.TrimSpace(fm)) == 0 {
		return doc.Meta, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(fm))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return doc.Meta, yamlError(path, err)
	}
	m := doc.Meta
	// A second pass over the node tree finds the line of each requires entry.
	var root yaml.Node
	if err := yaml.Unmarshal(fm, &root); err != nil {
		return m, yamlError(path, err)
	}
	if len(root.Content) == 1 {
		top := root.Content[0]
		for i := 0; i+1 < len(top.Content); i += 2 {
			var lines *[]int
			switch top.Content[i].Value {
			case "requires":
				lines = &m.RequiresLines
			case "inputs":
				lines = &m.InputsLines
			case "crds":
				lines = &m.CRDsLines
			default:
				continue
			}
			for _, item := range top.Content[i+1].Content {
				*lines = append(*lines, item.Line+1)
			}
		}
	}
	switch m.Run {
	case "", RunShell:
	default:
		return m, errorf(path, keyLine(&root, "run"), "front matter: run: %q: the one value is %q (run the page's bash, sh, shell and console blocks too)", m.Run, RunShell)
	}
	if _, err := outmatch.ParseMode(m.Output); err != nil {
		return m, errorf(path, keyLine(&root, "output"), "front matter: output: %v", err)
	}
	for i, r := range m.Requires {
		if err := checkRequirement(r); err != nil {
			line := 1
			if i < len(m.RequiresLines) {
				line = m.RequiresLines[i]
			}
			return m, errorf(path, line, "front matter: %v", err)
		}
	}
	return m, nil
}

// keyLine is the source line of a top-level front matter key, or 1.
func keyLine(root *yaml.Node, key string) int {
	if len(root.Content) == 1 {
		top := root.Content[0]
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value == key {
				return top.Content[i].Line + 1
			}
		}
	}
	return 1
}

// PageKeys are the front matter keys of a page that Hugo or MkDocs-material
// read and the runner does not: a runbook may set them (it is a page of
// the docs too), kbook run ignores them, and kbook build passes them on.
var PageKeys = []string{
	// Hugo
	"linkTitle", "summary", "slug", "url", "type", "layout", "draft", "headless", "toc",
	"aliases", "keywords", "categories", "date", "lastmod", "publishDate", "expiryDate",
	"sitemap", "params", "menu", "menus", "build", "cascade", "outputs", "markup", "translationKey",
	// MkDocs-material
	"hide", "icon", "status", "template", "search", "subtitle", "comments", "authors",
}

// metaDoc is the front matter as decoded: Meta, and the page keys that
// are accepted and ignored.
type metaDoc struct {
	Meta       `yaml:",inline"`
	LinkTitle  any `yaml:"linkTitle"`
	Summary    any `yaml:"summary"`
	Slug       any `yaml:"slug"`
	URL        any `yaml:"url"`
	Type       any `yaml:"type"`
	Layout     any `yaml:"layout"`
	Draft      any `yaml:"draft"`
	Headless   any `yaml:"headless"`
	TOC        any `yaml:"toc"`
	Aliases    any `yaml:"aliases"`
	Keywords   any `yaml:"keywords"`
	Categories any `yaml:"categories"`
	Date       any `yaml:"date"`
	Lastmod    any `yaml:"lastmod"`
	Publish    any `yaml:"publishDate"`
	Expiry     any `yaml:"expiryDate"`
	Sitemap    any `yaml:"sitemap"`
	Params     any `yaml:"params"`
	Menu       any `yaml:"menu"`
	Menus      any `yaml:"menus"`
	Build      any `yaml:"build"`
	Cascade    any `yaml:"cascade"`
	Outputs    any `yaml:"outputs"`
	Markup     any `yaml:"markup"`
	TransKey   any `yaml:"translationKey"`
	Hide       any `yaml:"hide"`
	Icon       any `yaml:"icon"`
	Status     any `yaml:"status"`
	Template   any `yaml:"template"`
	Search     any `yaml:"search"`
	Subtitle   any `yaml:"subtitle"`
	Comments   any `yaml:"comments"`
	Authors    any `yaml:"authors"`
}

// yamlError turns a yaml error into a located error at the right source line
// (front matter YAML starts on line 2 of the file).
func yamlError(path string, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	line := 1
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		line = n + 1
		msg = msg[:m[0]] + msg[m[1]:]
	}
	msg = strings.Replace(msg, "in type runbook.metaDoc", "(known: title, description, requires, timeout, tags, weight, inputs, crds, run, output, and the page keys of Hugo and MkDocs-material: "+strings.Join(PageKeys, ", ")+")", 1)
	return errorf(path, line, "front matter: %s", msg)
}

// KnownRequirements lists the requirement names a runbook may declare
// besides exec:PROGRAM.
var KnownRequirements = []string{"cluster", "kind", "k0rdent", "kcm", "local", "kubeconfig", "nodes"}

func checkRequirement(r string) error {
	if prog, ok := strings.CutPrefix(r, "exec:"); ok {
		if prog == "" {
			return fmt.Errorf("requirement %q names no program", r)
		}
		return nil
	}
	if res, ok := strings.CutPrefix(r, "api:"); ok {
		if res == "" {
			return fmt.Errorf("requirement %q names no resource (api:RESOURCE.GROUP, such as api:clusters.cluster.x-k8s.io)", r)
		}
		return nil
	}
	for _, k := range KnownRequirements {
		if r == k {
			return nil
		}
	}
	return fmt.Errorf("unknown requirement %q (known: %s, exec:PROGRAM, api:RESOURCE.GROUP)", r, strings.Join(KnownRequirements, ", "))
}
