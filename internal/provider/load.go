package provider

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/yamldoc"
)

// Object is one YAML document of the inputs: a CRD, a ClusterRole, a
// Deployment, a ProviderInterface...
type Object struct {
	// File is where the object is, as a path from the working directory:
	// the components file, a file of a CRD folder, or chart/templates/x.yaml
	// for an object a chart renders.
	File string
	// Root is the document's mapping node; its lines are lines of File
	// (for a chart template that uses Helm actions, of the rendered text,
	// see Object.line).
	Root *yaml.Node

	APIVersion, Kind, Name, Namespace string

	// Chart is the chart that rendered the object, nil otherwise.
	Chart *Chart
	// source is the template text when the object was rendered from a
	// template with actions: lines are then looked up in it.
	source []byte
	// fields is Root decoded, once (see Fields).
	fields map[string]any
}

// Fields returns the object as unstructured data (decoded once), for the
// checks shared with other validators (kubesec); positions go back to
// lines through Object.line.
func (o *Object) Fields() map[string]any {
	if o.fields == nil {
		if err := o.Root.Decode(&o.fields); err != nil || o.fields == nil {
			o.fields = map[string]any{} // a mapping with keys YAML cannot make strings of
		}
	}
	return o.fields
}

// Group is the API group of the object's apiVersion.
func (o *Object) Group() string {
	g, _, ok := strings.Cut(o.APIVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// ID names the object in messages: "CustomResourceDefinition awsclusters.infrastructure.cluster.x-k8s.io".
func (o *Object) ID() string {
	if o.Namespace != "" {
		return o.Kind + " " + o.Namespace + "/" + o.Name
	}
	return o.Kind + " " + o.Name
}

// line returns the line of the field at p in the object, or of its
// deepest existing parent. For an object rendered from a template with
// Helm actions the rendered lines are not the template's: the line of the
// first template line naming the last key found is used instead.
func (o *Object) line(p findings.Path) int {
	n, line := at(o.Root, p...)
	if o.source == nil {
		return line
	}
	_ = n
	key := ""
	for i := len(p) - 1; i >= 0 && key == ""; i-- {
		if s, ok := p[i].(string); ok {
			key = s
		}
	}
	if key != "" {
		for i, l := range strings.Split(string(o.source), "\n") {
			t := strings.TrimLeft(strings.TrimLeft(l, " "), "- ")
			if strings.HasPrefix(t, key+":") || strings.HasPrefix(t, `"`+key+`":`) {
				return i + 1
			}
		}
	}
	return 1
}

// Chart is a ProviderTemplate chart among the inputs.
type Chart struct {
	// Path is the chart directory or archive as given.
	Path  string
	Chart *chart.Chart
	// Meta is Chart.yaml's root node, for lines.
	Meta *yaml.Node
	// RenderError is set when the chart did not render.
	RenderError *findings.Finding
}

// File is the path of a chart file from the working directory.
func (c *Chart) File(name string) string { return filepath.ToSlash(filepath.Join(c.Path, name)) }

// Set is everything given to Validate, loaded: objects of components
// files, CRD folders and rendered charts, clusterctl metadata and charts.
type Set struct {
	Inputs  []string
	Objects []*Object
	// Metadata are clusterctl metadata.yaml documents.
	Metadata []*Object
	Charts   []*Chart
	// texts are the raw components files, for clusterctl variables.
	texts []text
}

type text struct {
	file string
	data []byte
}

// CRDs returns the CustomResourceDefinitions of the set.
func (s *Set) CRDs() []*Object { return s.ofKind("apiextensions.k8s.io", "CustomResourceDefinition") }

func (s *Set) ofKind(group, kind string) []*Object {
	var out []*Object
	for _, o := range s.Objects {
		if o.Kind == kind && o.Group() == group {
			out = append(out, o)
		}
	}
	return out
}

// Load reads the inputs of `kbook provider validate`: components YAML
// files (multi-document, as released), folders of YAML files (CRD bases),
// ProviderTemplate charts (directories with a Chart.yaml, or .tgz
// archives), rendered as kcm renders them, and clusterctl metadata.yaml
// files. A path that does not exist or a file that is not YAML is an
// error naming the file and line.
func Load(paths []string, opts RenderOptions) (*Set, error) {
	s := &Set{Inputs: paths}
	for _, p := range paths {
		if err := s.load(p, opts); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Set) load(p string, opts RenderOptions) error {
	fi, err := os.Stat(p)
	if err != nil {
		return findings.Inputf(p, 0, "%w", errors.Unwrap(err))
	}
	switch {
	case fi.IsDir() && exists(filepath.Join(p, "Chart.yaml")):
		return s.loadChart(p, opts)
	case fi.IsDir():
		var files []string
		err := filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && f != p && (strings.HasPrefix(d.Name(), ".") || exists(filepath.Join(f, "Chart.yaml"))) {
				return fs.SkipDir
			}
			if !d.IsDir() && isYAML(f) {
				files = append(files, f)
			}
			return nil
		})
		if err != nil {
			return findings.Inputf(p, 0, "%w", err)
		}
		if len(files) == 0 {
			return findings.Inputf(p, 0, "no .yaml or .yml files in the folder")
		}
		slices.Sort(files)
		for _, f := range files {
			if err := s.loadFile(f); err != nil {
				return err
			}
		}
		return nil
	case strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".tar.gz"):
		return s.loadChart(p, opts)
	default:
		return s.loadFile(p)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func isYAML(f string) bool {
	ext := strings.ToLower(filepath.Ext(f))
	return ext == ".yaml" || ext == ".yml"
}

// loadFile reads a multi-document YAML file.
func (s *Set) loadFile(f string) error {
	data, err := os.ReadFile(f)
	if err != nil {
		return findings.Inputf(f, 0, "%w", errors.Unwrap(err))
	}
	file := filepath.ToSlash(f)
	objs, err := parseDocuments(file, data)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if o.Kind == "Metadata" && strings.HasPrefix(o.APIVersion, k0rdent.ClusterctlGroup+"/") {
			s.Metadata = append(s.Metadata, o)
			continue
		}
		s.Objects = append(s.Objects, o)
	}
	if len(objs) > 0 && !(len(objs) == 1 && objs[0].Kind == "Metadata") {
		s.texts = append(s.texts, text{file: file, data: data})
	}
	return nil
}

// parseDocuments splits a YAML stream into objects. Empty documents are
// skipped; a document that is not a mapping with apiVersion and kind is an
// error, as is YAML that does not parse.
func parseDocuments(file string, data []byte) ([]*Object, error) {
	docs, err := yamldoc.Documents(file, data, "the YAML does not parse: ")
	if err != nil {
		return nil, err
	}
	var out []*Object
	for _, doc := range docs {
		root := deref(doc)
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			continue
		}
		if root.Kind != yaml.MappingNode {
			return nil, findings.Inputf(file, root.Line, "a document is not a Kubernetes object (a YAML mapping with apiVersion and kind)")
		}
		o := &Object{File: file, Root: root,
			APIVersion: str(root, "apiVersion"), Kind: str(root, "kind"),
			Name: str(root, "metadata", "name"), Namespace: str(root, "metadata", "namespace")}
		if o.APIVersion == "" || o.Kind == "" {
			return nil, findings.Inputf(file, root.Line, "a document has no apiVersion or kind: not a Kubernetes object")
		}
		out = append(out, o)
	}
	return out, nil
}

// loadChart loads a ProviderTemplate chart with Helm's loader and renders
// it as kcm does (see render.go).
func (s *Set) loadChart(p string, opts RenderOptions) error {
	ch, err := loader.Load(p)
	if err != nil {
		return findings.Inputf(p, findings.LineIn(err.Error()), "the chart does not load: %w", err)
	}
	c := &Chart{Path: filepath.ToSlash(p), Chart: ch}
	for _, f := range ch.Raw {
		if f.Name == "Chart.yaml" {
			var doc yaml.Node
			if yaml.Unmarshal(f.Data, &doc) == nil && len(doc.Content) > 0 {
				c.Meta = doc.Content[0]
			}
		}
	}
	s.Charts = append(s.Charts, c)
	objs, rf := render(c, opts)
	if rf != nil {
		c.RenderError = rf
		return nil
	}
	s.Objects = append(s.Objects, objs...)
	return nil
}
