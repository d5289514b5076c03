package chain

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubeversion"
	"github.com/k0rdent/kbook/internal/yamldoc"
)

// The kinds chain validation reads.
const (
	KindClusterTemplateChain = k0rdent.KindClusterTemplateChain
	KindServiceTemplateChain = k0rdent.KindServiceTemplateChain
	KindClusterTemplate      = k0rdent.KindClusterTemplate
	KindServiceTemplate      = k0rdent.KindServiceTemplate
)

// templateKindOf is the kind of template a chain kind lists.
var templateKindOf = map[string]string{
	KindClusterTemplateChain: KindClusterTemplate,
	KindServiceTemplateChain: KindServiceTemplate,
}

// Chain is one ClusterTemplateChain or ServiceTemplateChain.
type Chain struct {
	Kind      string      `json:"kind"`
	Name      string      `json:"name"`
	Namespace string      `json:"namespace,omitempty"`
	Managed   bool        `json:"-"` // labelled k0rdent.mirantis.com/managed: "true"
	File      string      `json:"file"`
	Line      int         `json:"line"`
	Supported []Supported `json:"supportedTemplates"`
}

// Supported is one entry of spec.supportedTemplates.
type Supported struct {
	Name     string    `json:"name"`
	Line     int       `json:"line"`
	Upgrades []Upgrade `json:"availableUpgrades,omitempty"`
}

// Upgrade is one entry of availableUpgrades.
type Upgrade struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Line    int    `json:"line"`
}

// Template is what chain validation knows of one template: from a
// ClusterTemplate or ServiceTemplate object or from a chart folder.
type Template struct {
	Kind      string `json:"kind,omitempty"` // empty for a chart folder: either kind
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// ChartName and ChartVersion are spec.helm.chartSpec's (or the chart's).
	ChartName    string `json:"chart,omitempty"`
	ChartVersion string `json:"chartVersion,omitempty"`
	// K8s is the Kubernetes version a cluster built from it runs with the
	// template's defaults (ClusterTemplates).
	K8s  kubeversion.Source `json:"k8s"`
	File string             `json:"file"`
	Line int                `json:"line,omitempty"`
}

// K8sVersion is the template's Kubernetes version, "" when unknown.
func (t *Template) K8sVersion() string { return t.K8s.Version.String() }

// Inputs are the chains and templates read from the paths given.
type Inputs struct {
	Chains    []*Chain
	Templates []*Template
}

// Load reads PATHs: YAML files with chains and templates (several
// documents, or a List), chart folders or archives (the template named
// <chart>-<version with dots as dashes>, as kcm names its own), and
// folders holding those. Anything it cannot read is an error naming the
// file and line.
func Load(paths ...string) (*Inputs, error) {
	in := &Inputs{}
	for _, p := range paths {
		if err := in.load(p, true); err != nil {
			return nil, err
		}
	}
	return in, nil
}

func (in *Inputs) load(p string, top bool) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	switch {
	case fi.IsDir() && exists(filepath.Join(p, "Chart.yaml")):
		return in.loadChart(p)
	case fi.IsDir():
		entries, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		n := len(in.Chains) + len(in.Templates)
		for _, e := range entries {
			sub := filepath.Join(p, e.Name())
			switch {
			case e.IsDir() && exists(filepath.Join(sub, "Chart.yaml")):
				err = in.loadChart(sub)
			case !e.IsDir() && isYAML(e.Name()):
				err = in.loadFile(sub, false)
			case !e.IsDir() && strings.HasSuffix(e.Name(), ".tgz"):
				err = in.loadChart(sub)
			}
			if err != nil {
				return err
			}
		}
		if top && len(in.Chains)+len(in.Templates) == n {
			return findings.Inputf(p, 0, "no chain, template or chart in this folder")
		}
		return nil
	case strings.HasSuffix(p, ".tgz"):
		return in.loadChart(p)
	default:
		return in.loadFile(p, top)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// loadChart reads a chart as the template kcm would name after it.
func (in *Inputs) loadChart(p string) error {
	if err := inputfile.CheckChart(p); err != nil {
		return findings.Inputf(p, 0, "%v", err)
	}
	ch, err := loader.Load(p)
	if err != nil {
		return findings.Inputf(p, 0, "chart: %v", err)
	}
	md := ch.Metadata
	t := &Template{
		Kind:         chartKind(md.Annotations),
		Name:         k0rdent.TemplateName(md.Name, md.Version),
		ChartName:    md.Name,
		ChartVersion: md.Version,
		File:         filepath.ToSlash(filepath.Join(p, "Chart.yaml")),
	}
	k8s, err := kubeversion.FromTemplate("", md.Annotations, ch.Values, nil)
	if err != nil {
		return findings.Inputf(filepath.Join(p, "Chart.yaml"), 0, "%v", err)
	}
	t.K8s = k8s
	in.Templates = append(in.Templates, t)
	return nil
}

// chartKind is ClusterTemplate for a chart that names CAPI providers (kcm
// reads cluster.x-k8s.io/provider for ClusterTemplates), else unknown: a
// chart folder may be a ServiceTemplate's.
func chartKind(ann map[string]string) string {
	if ann[k0rdent.ProviderLabel] != "" {
		return KindClusterTemplate
	}
	return ""
}

// loadFile reads every document of a YAML file. When strict, a file with
// nothing chain validation reads is an error.
func (in *Inputs) loadFile(file string, strict bool) error {
	data, err := inputfile.ReadFile(file)
	if err != nil {
		return err
	}
	name := filepath.ToSlash(file)
	docs, err := yamldoc.Documents(name, data, "")
	if err != nil {
		return err
	}
	found := 0
	for _, doc := range docs {
		n, err := in.loadObject(name, doc)
		if err != nil {
			return err
		}
		found += n
	}
	if strict && found == 0 {
		return findings.Inputf(name, 0, "no ClusterTemplateChain, ServiceTemplateChain, ClusterTemplate or ServiceTemplate in this file")
	}
	return nil
}

// object is the part of a k0rdent object chain validation reads.
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace"`
		Labels    map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Items []yaml.Node `yaml:"items"`
	Spec  struct {
		Helm struct {
			ChartSpec struct {
				Chart   string `yaml:"chart"`
				Version string `yaml:"version"`
			} `yaml:"chartSpec"`
		} `yaml:"helm"`
		K8sVersion string `yaml:"k8sVersion"`
	} `yaml:"spec"`
	Status struct {
		K8sVersion string `yaml:"k8sVersion"`
	} `yaml:"status"`
}

func (in *Inputs) loadObject(file string, n *yaml.Node) (int, error) {
	var o object
	if err := n.Decode(&o); err != nil {
		return 0, findings.Inputf(file, n.Line, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if o.Kind == "List" || strings.HasSuffix(o.Kind, "List") && len(o.Items) > 0 {
		total := 0
		for i := range o.Items {
			k, err := in.loadObject(file, &o.Items[i])
			if err != nil {
				return 0, err
			}
			total += k
		}
		return total, nil
	}
	if !strings.HasPrefix(o.APIVersion, k0rdent.Group+"/") {
		return 0, nil
	}
	if o.Metadata.Name == "" && slices.Contains([]string{KindClusterTemplateChain, KindServiceTemplateChain, KindClusterTemplate, KindServiceTemplate}, o.Kind) {
		return 0, findings.Inputf(file, n.Line, "%s without metadata.name", o.Kind)
	}
	switch o.Kind {
	case KindClusterTemplateChain, KindServiceTemplateChain:
		c, err := parseChain(file, n, o)
		if err != nil {
			return 0, err
		}
		in.Chains = append(in.Chains, c)
		return 1, nil
	case KindClusterTemplate, KindServiceTemplate:
		t := &Template{Kind: o.Kind, Name: o.Metadata.Name, Namespace: o.Metadata.Namespace,
			ChartName: o.Spec.Helm.ChartSpec.Chart, ChartVersion: o.Spec.Helm.ChartSpec.Version,
			File: file, Line: n.Line}
		if o.Kind == KindClusterTemplate {
			v := o.Spec.K8sVersion
			kind := kubeversion.FromSpec
			if v == "" && o.Status.K8sVersion != "" {
				v, kind = o.Status.K8sVersion, "status.k8sVersion"
			}
			if v != "" {
				pv, err := kubeversion.Parse(v)
				if err != nil {
					return 0, findings.Inputf(file, n.Line, "%s %s: spec.k8sVersion: %v", o.Kind, o.Metadata.Name, err)
				}
				t.K8s = kubeversion.Source{Version: pv, Kind: kind, Declared: true}
			}
		}
		in.Templates = append(in.Templates, t)
		return 1, nil
	}
	return 0, nil
}

// chainSpec is spec of a template chain, with positions.
func parseChain(file string, n *yaml.Node, o object) (*Chain, error) {
	c := &Chain{Kind: o.Kind, Name: o.Metadata.Name, Namespace: o.Metadata.Namespace, File: file, Line: n.Line,
		Managed: o.Metadata.Labels[k0rdent.ManagedLabel] == "true"}
	spec := mapValue(n, "spec")
	list := mapValue(spec, "supportedTemplates")
	if list == nil {
		return c, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, findings.Inputf(file, list.Line, "spec.supportedTemplates: want a list")
	}
	for i, st := range list.Content {
		name := mapValue(st, "name")
		if name == nil || name.Value == "" {
			return nil, findings.Inputf(file, st.Line, "spec.supportedTemplates[%d].name: Required value", i)
		}
		s := Supported{Name: name.Value, Line: st.Line}
		ups := mapValue(st, "availableUpgrades")
		if ups != nil && ups.Kind != yaml.SequenceNode {
			return nil, findings.Inputf(file, ups.Line, "spec.supportedTemplates[%d].availableUpgrades: want a list", i)
		}
		if ups != nil {
			for j, u := range ups.Content {
				un := mapValue(u, "name")
				if un == nil || un.Value == "" {
					return nil, findings.Inputf(file, u.Line, "spec.supportedTemplates[%d].availableUpgrades[%d].name: Required value", i, j)
				}
				up := Upgrade{Name: un.Value, Line: u.Line}
				if v := mapValue(u, "version"); v != nil {
					up.Version = v.Value
				}
				s.Upgrades = append(s.Upgrades, up)
			}
		}
		c.Supported = append(c.Supported, s)
	}
	return c, nil
}

// mapValue returns the value of key in a mapping node (the last of
// duplicate keys, as yamldoc reads them).
func mapValue(n *yaml.Node, key string) *yaml.Node {
	_, v := yamldoc.Entry(n, key)
	return yamldoc.Deref(v)
}
