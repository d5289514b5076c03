package manifest

import (
	"cmp"
	"fmt"
	"os"
	"regexp"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/schema"
)

// Options configure ForPath, ForChart and Manifest.
type Options struct {
	// Repo is the HelmRepository (in kcm's system namespace) the chart is
	// published in.
	Repo string
	// Name of the ProviderTemplate (default <chart>-<version, dots as dashes>).
	Name string
	// Interval of the chart source (default 10m0s).
	Interval string
	// Config is the provider entry's config (Helm values), or nil.
	Config map[string]any
	// Schemas, when set, checks both objects against the real CRDs
	// (ProviderTemplate and Management of the k0rdent version).
	Schemas *schema.Validator
	// Format is how Manifest writes the objects: yaml (also "") or
	// json, a v1 List (output.ManifestsAs).
	Format string
	// CRDs, for Manifest, are the files or folders of k0rdent's CRDs that
	// Schemas is read from (none: not checked).
	CRDs []string
	// ConfigFile, for Manifest, is the values file Config is read from
	// (empty: none).
	ConfigFile string
}

// Objects are what `kbook provider manifest` prints: the ProviderTemplate
// that makes kcm pull the chart, and the Management.spec.providers entry
// that enables it.
type Objects struct {
	ProviderTemplate map[string]any
	// Entry is one item of Management.spec.providers.
	Entry map[string]any
}

// Manifest is kbook provider manifest: the YAML of the objects of chart
// built with o, its schemas from the CRD files o.CRDs and its config from
// the values file o.ConfigFile. Whatever stops it is bad input (a
// findings.InputError): nothing is written.
func Manifest(chart string, o Options) ([]byte, error) {
	m, err := fromFiles(chart, o)
	if err == nil {
		var data []byte
		if data, err = m.YAML(); err == nil {
			if data, err = output.ManifestsAs(o.Format, data); err == nil {
				return data, nil
			}
		}
	}
	return nil, &findings.InputError{Err: err}
}

func fromFiles(chart string, o Options) (*Objects, error) {
	if len(o.CRDs) > 0 {
		v, err := schema.FromFiles(o.CRDs...)
		if err != nil {
			return nil, err
		}
		o.Schemas = v
	}
	if config := o.ConfigFile; config != "" {
		data, err := os.ReadFile(config)
		if err != nil {
			return nil, err
		}
		if err := yaml.Unmarshal(data, &o.Config); err != nil {
			return nil, fmt.Errorf("%s: %w", config, err)
		}
	}
	return ForPath(chart, o)
}

var dns1123 = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// ForPath loads the chart at path and builds its objects. Bad options and
// a chart that does not load are errors; so are objects the CRDs
// (Options.Schemas) reject.
func ForPath(path string, o Options) (*Objects, error) {
	if o.Repo == "" {
		return nil, fmt.Errorf("--repo: the name of the HelmRepository (in kcm-system) the chart is published in is required")
	}
	if !dns1123.MatchString(o.Repo) {
		return nil, fmt.Errorf("--repo %q: not a valid object name", o.Repo)
	}
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("%s: the chart does not load: %w", path, err)
	}
	return ForChart(ch, o)
}

// ForChart builds the objects of a loaded chart (ForPath's, for a chart
// made in memory).
func ForChart(ch *chart.Chart, o Options) (*Objects, error) {
	if o.Repo == "" || !dns1123.MatchString(o.Repo) {
		return nil, fmt.Errorf("repository %q: not a valid HelmRepository name", o.Repo)
	}
	md := ch.Metadata
	name := cmp.Or(o.Name, k0rdent.TemplateName(md.Name, md.Version))
	if len(name) > 253 || !dns1123.MatchString(name) {
		return nil, fmt.Errorf("template name %q: not a valid object name", name)
	}
	pt := map[string]any{
		"apiVersion": k0rdent.APIVersion,
		"kind":       k0rdent.KindProviderTemplate,
		"metadata": map[string]any{
			"name": name,
			// kcm keeps its own ProviderTemplates on uninstall, as the
			// Management still references them.
			"annotations": map[string]any{"helm.sh/resource-policy": "keep"},
		},
		"spec": map[string]any{
			"helm": map[string]any{
				"chartSpec": map[string]any{
					"chart":             md.Name,
					"version":           md.Version,
					"interval":          cmp.Or(o.Interval, "10m0s"),
					"reconcileStrategy": "ChartVersion",
					"sourceRef":         map[string]any{"kind": k0rdent.KindHelmRepository, "name": o.Repo},
				},
			},
		},
	}
	entry := map[string]any{"name": md.Name, "template": name}
	if len(o.Config) > 0 {
		entry["config"] = o.Config
	}
	m := &Objects{ProviderTemplate: pt, Entry: entry}
	if o.Schemas != nil {
		if err := m.check(o.Schemas); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// check validates the ProviderTemplate, and a Management holding the
// entry (with a placeholder spec.release), against the CRDs as the API
// server would on create.
func (m *Objects) check(v *schema.Validator) error {
	mgmt := map[string]any{
		"apiVersion": k0rdent.APIVersion, "kind": k0rdent.KindManagement,
		"metadata": map[string]any{"name": "kcm"},
		"spec":     map[string]any{"release": "kcm-1-1-4", "providers": []any{m.Entry}},
	}
	for _, obj := range []map[string]any{m.ProviderTemplate, mgmt} {
		u := &unstructured.Unstructured{Object: deepCopy(obj)}
		if errs := v.Validate(u); len(errs) > 0 {
			return fmt.Errorf("%s %s: the CRD rejects it: %s", u.GetKind(), u.GetName(), errs.ToAggregate())
		}
	}
	return nil
}

func deepCopy(m map[string]any) map[string]any {
	data, _ := yaml.Marshal(m)
	var out map[string]any
	_ = yaml.Unmarshal(data, &out)
	return out
}

// YAML renders the ProviderTemplate and, as a comment-introduced second
// document, a Management patch holding the providers entry.
func (m *Objects) YAML() ([]byte, error) {
	pt, err := yaml.Marshal(m.ProviderTemplate)
	if err != nil {
		return nil, err
	}
	entry, err := yaml.Marshal(map[string]any{"spec": map[string]any{"providers": []any{m.Entry}}})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Write(pt)
	b.WriteString("---\n# Enable it: add this entry to Management.spec.providers, e.g.\n")
	fmt.Fprintf(&b, "#   kubectl patch management kcm --type=json -p '[{\"op\":\"add\",\"path\":\"/spec/providers/-\",\"value\":{\"name\":%q,\"template\":%q}}]'\n", m.Entry["name"], m.Entry["template"])
	for _, l := range strings.Split(strings.TrimRight(string(entry), "\n"), "\n") {
		b.WriteString("# " + l + "\n")
	}
	return []byte(b.String()), nil
}
