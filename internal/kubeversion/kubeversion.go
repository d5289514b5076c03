package kubeversion

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/k0rdent/kbook/internal/k0rdent"
)

// Version is a Kubernetes version: the semantic version without build
// metadata (v1.32.5+k0s.0 is Kubernetes v1.32.5).
type Version struct {
	v *semver.Version
	// Raw is the version as written (v1.32.5+k0s.0).
	Raw string
}

// Parse reads a Kubernetes version as kcm does (Masterminds semver, a
// leading v allowed, build metadata such as +k0s.0 ignored).
func Parse(s string) (Version, error) {
	s = strings.TrimSpace(s)
	v, err := semver.NewVersion(s)
	if err != nil {
		return Version{}, fmt.Errorf("%q is not a version: %w", s, err)
	}
	// Drop build metadata: it is no part of the Kubernetes version.
	nv, err := semver.NewVersion(fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch()))
	if err != nil {
		return Version{}, err
	}
	if v.Prerelease() != "" {
		w, err := nv.SetPrerelease(v.Prerelease())
		if err != nil {
			return Version{}, err
		}
		nv = &w
	}
	return Version{v: nv, Raw: s}, nil
}

// MustParse is Parse for constants in tests; it panics on error.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// IsZero reports whether v was never set.
func (v Version) IsZero() bool { return v.v == nil }

// Major, Minor and Patch are the version's numbers.
func (v Version) Major() uint64 { return v.v.Major() }

// Minor is the minor version number.
func (v Version) Minor() uint64 { return v.v.Minor() }

// Patch is the patch version number.
func (v Version) Patch() uint64 { return v.v.Patch() }

// String is the Kubernetes version with a leading v: v1.32.5.
func (v Version) String() string {
	if v.v == nil {
		return ""
	}
	return "v" + v.v.String()
}

// MinorString is v1.32.
func (v Version) MinorString() string { return fmt.Sprintf("v%d.%d", v.Major(), v.Minor()) }

// Compare returns -1, 0 or 1 as v is older than, equal to or newer than w.
func (v Version) Compare(w Version) int { return v.v.Compare(w.v) }

// Semver is the version for constraint checks.
func (v Version) Semver() *semver.Version { return v.v }

// Satisfies reports whether v meets a ServiceTemplate's Kubernetes
// constraint, checked as kcm checks it
// (internal/util/validation/cluster_template.go,
// ClusterTemplateK8sCompatibility: semver.NewConstraint(...).Check). kcm
// checks the template's declared version as written; build metadata does
// not take part in a constraint check either way.
func (v Version) Satisfies(constraint string) (bool, error) {
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return false, fmt.Errorf("constraint %q: %w", constraint, err)
	}
	return c.Check(v.v), nil
}

// minorsBetween is how many minor versions w is ahead of v (negative when
// behind); only meaningful within one major version.
func minorsBetween(v, w Version) int { return int(w.Minor()) - int(v.Minor()) }

// Source says where a version was found.
type Source struct {
	// Version is the Kubernetes version (zero when none was found).
	Version Version `json:"-"`
	// Kind is what declared it: "spec.k8sVersion",
	// "annotation k0rdent.mirantis.com/k8s-version", "config" or
	// "chart default" (values), or "rendered" (a control plane object).
	Kind string `json:"source"`
	// Path is the values path (k0s.version) or the field of the rendered
	// object, when there is one.
	Path string `json:"path,omitempty"`
	// Declared reports whether kcm knows the version (spec.k8sVersion or
	// the annotation): only then does kcm check ServiceTemplate
	// constraints.
	Declared bool `json:"declared"`
}

// String describes the source: "v1.32.5 (config k0s.version)".
func (s Source) String() string {
	if s.Version.IsZero() {
		return "unknown"
	}
	where := s.Kind
	if s.Path != "" {
		where += " " + s.Path
	}
	return s.Version.String() + " (" + where + ")"
}

// The source kinds.
const (
	FromSpec         = "spec.k8sVersion"
	FromAnnotation   = "annotation " + AnnotationK8sVersion
	FromConfig       = "config"
	FromChartDefault = "chart default"
	FromRendered     = "rendered"
)

// AnnotationK8sVersion is the Chart.yaml annotation with a ClusterTemplate's
// exact Kubernetes version (kcm: ChartAnnotationKubernetesVersion).
const AnnotationK8sVersion = k0rdent.K8sVersionAnnotation

// valuePaths are the values that hold the Kubernetes version of the
// templates kcm ships, in the order tried: k0s-based templates
// (k0s.version, v1.32.5+k0s.0), managed EKS and AKS (kubernetes.version),
// GKE (version, null to let GKE pick), and two spellings custom templates
// use.
var valuePaths = [][]string{
	{"k0s", "version"},
	{"kubernetes", "version"},
	{"k8sVersion"},
	{"kubernetesVersion"},
	{"version"},
}

// FromTemplate returns the Kubernetes version of a cluster built from a
// template: the declared version (spec.k8sVersion, else the chart
// annotation) when there is one, else the first version value of
// valuePaths, taken from config when it sets it and from the chart
// defaults otherwise. A declared version that does not parse is an error,
// as it is for kcm (the template is invalid); an unparsable value is an
// error naming its path.
func FromTemplate(specVersion string, annotations map[string]string, defaults, config map[string]any) (Source, error) {
	switch {
	case specVersion != "":
		v, err := Parse(specVersion)
		if err != nil {
			return Source{}, fmt.Errorf("spec.k8sVersion: %w", err)
		}
		return Source{Version: v, Kind: FromSpec, Declared: true}, nil
	case annotations[AnnotationK8sVersion] != "":
		v, err := Parse(annotations[AnnotationK8sVersion])
		if err != nil {
			return Source{}, fmt.Errorf("annotation %s: %w", AnnotationK8sVersion, err)
		}
		return Source{Version: v, Kind: FromAnnotation, Declared: true}, nil
	}
	return FromValues(defaults, config)
}

// FromValues finds the version in values: config first, then defaults,
// for each path of valuePaths. A zero Source means none was found.
func FromValues(defaults, config map[string]any) (Source, error) {
	for _, p := range valuePaths {
		for _, layer := range []struct {
			kind string
			vals map[string]any
		}{{FromConfig, config}, {FromChartDefault, defaults}} {
			raw, ok := lookup(layer.vals, p)
			if !ok {
				continue
			}
			s, ok := raw.(string)
			if !ok || s == "" {
				// null (GKE: let the cloud pick) or not a string: this
				// layer does not say; a config null overrides the default.
				if raw == nil && layer.kind == FromConfig {
					break
				}
				continue
			}
			path := strings.Join(p, ".")
			v, err := Parse(s)
			if err != nil {
				return Source{}, fmt.Errorf("values %s: %w", path, err)
			}
			return Source{Version: v, Kind: layer.kind, Path: path}, nil
		}
	}
	return Source{}, nil
}

// lookup returns the value at path in m.
func lookup(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = mm[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// k0sSuffix is the build suffix of k0s versions.
var k0sSuffix = regexp.MustCompile(`\+k0s\.\d+$`)

// StripK0s removes the +k0s.N suffix: v1.32.5+k0s.0 → v1.32.5.
func StripK0s(s string) string { return k0sSuffix.ReplaceAllString(s, "") }

// MarshalJSON writes the version with where it came from.
func (s Source) MarshalJSON() ([]byte, error) {
	type src struct {
		Version  string `json:"version"`
		Kind     string `json:"source,omitempty"`
		Path     string `json:"path,omitempty"`
		Declared bool   `json:"declared"`
	}
	return json.Marshal(src{s.Version.String(), s.Kind, s.Path, s.Declared})
}
