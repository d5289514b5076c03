package upgrade

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/kubeversion"
	"github.com/k0rdent/kbook/internal/template"
	"github.com/k0rdent/kbook/internal/yamldoc"
)

// Where findings point: the file and line a value comes from, as far as
// the inputs say (a live deployment's config has no file, an archive's
// values.yaml no path on disk: the finding names the chart then).

// fpath is the values path as findings.Path: list indexes as ints.
func (p vpath) fpath() findings.Path {
	out := make(findings.Path, len(p))
	for i, k := range p {
		out[i] = k
		if n, err := strconv.Atoi(k); err == nil {
			out[i] = n
		}
	}
	return out
}

// dotted splits a values path written a.b.c (kubeversion's sources).
func dotted(p string) findings.Path {
	var out findings.Path
	for _, k := range strings.Split(p, ".") {
		out = append(out, k)
	}
	return out
}

// configLine is the line of p in the deployment's config file (the key's,
// or its deepest part's that is there), 0 when the config has no file.
func (c *checker) configLine(p findings.Path) (line int, exact bool) {
	n := c.in.Deployment.ConfigNode
	if n == nil {
		return 0, false
	}
	_, line, exact = yamldoc.Lookup(n, p)
	return line, exact
}

// chartLine is the line of p in the chart's file (values.yaml,
// Chart.yaml), as the chart holds it; 0 when it is not there.
func chartLine(cd *chartData, file string, p findings.Path) int {
	for _, f := range cd.chart.Raw {
		if f.Name != file {
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(f.Data, &doc); err != nil || len(doc.Content) == 0 {
			return 0
		}
		if _, line, exact := yamldoc.Lookup(doc.Content[0], p); exact {
			return line
		}
	}
	return 0
}

// valueAt locates a values path of the deployment's values on side cd:
// in the config when it sets it, else in the chart's values.yaml.
func (c *checker) valueAt(cd *chartData, p findings.Path) (file string, line int) {
	if line, exact := c.configLine(p); exact {
		return c.in.Deployment.ConfigSource, line
	}
	if line := chartLine(cd, "values.yaml", p); line > 0 {
		return cd.path + "/values.yaml", line
	}
	return "", 0
}

// versionAt locates where side cd's Kubernetes version is set, as its
// source says: the config, the chart's values.yaml or Chart.yaml
// annotation, or the template that rendered the control plane.
func (c *checker) versionAt(cd *chartData, src kubeversion.Source, objs []template.Object) (file string, line int) {
	switch src.Kind {
	case kubeversion.FromConfig:
		if src.Path != "" {
			line, _ := c.configLine(dotted(src.Path))
			return c.in.Deployment.ConfigSource, line
		}
		return c.in.Deployment.ConfigSource, 0
	case kubeversion.FromChartDefault:
		return cd.path + "/values.yaml", chartLine(cd, "values.yaml", dotted(src.Path))
	case kubeversion.FromAnnotation:
		return cd.path + "/Chart.yaml", chartLine(cd, "Chart.yaml", findings.Path{"annotations", kubeversion.AnnotationK8sVersion})
	case kubeversion.FromRendered:
		for _, o := range objs {
			if isControlPlane(o) && o.Unstructured.GetKind()+" "+o.Unstructured.GetName()+" spec.version" == src.Path {
				return cd.path + "/" + o.Template, 0
			}
		}
	}
	return "", 0
}
