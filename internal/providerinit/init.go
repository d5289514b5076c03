// Package providerinit writes the skeleton of a k0rdent ProviderTemplate
// chart for a custom Cluster API infrastructure provider (kbook provider
// init): Chart.yaml with the annotations kcm reads, the
// cluster-api-operator InfrastructureProvider, the ProviderInterface, the
// ClusterRoles aggregated to Cluster API's and kcm's managers and a
// credential resource template. The result passes kbook provider
// validate as written.
package providerinit

import (
	"embed"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/scaffold"
)

// skeleton holds the chart; .tmpl files are Go templates with [[ ]]
// delimiters, so Helm's {{ }} pass through.
//
//go:embed all:skeleton
var skeleton embed.FS

// Options configure Init.
type Options struct {
	// Name is the provider name, as in infrastructure-<Name>: lower-case
	// letters, digits and dashes.
	Name string
	// Dir is the directory to create (default cluster-api-provider-<Name>).
	Dir string
	// Group is the API group of the provider's kinds (default
	// infrastructure.cluster.x-k8s.io).
	Group string
	// APIVersion is the CRD version implementing the v1beta2 contract
	// (default v1alpha1).
	APIVersion string
	// Version is the provider release the chart installs (default v0.1.0).
	Version string
	// ComponentsURL is where the operator fetches the release's
	// components (default a placeholder under releases.example.com).
	ComponentsURL string
	// Kind is the kinds' prefix (default: Name in CamelCase): <Kind>Cluster, <Kind>Machine.
	Kind string
}

var (
	nameRE    = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$`)
	groupRE   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`)
	versionRE = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	semverRE  = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)
	kindRE    = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

// Init writes the chart and returns its directory and files (relative to
// it). The directory must not exist; on error nothing is left behind.
func Init(o Options) (string, []string, error) {
	if !nameRE.MatchString(o.Name) {
		return "", nil, fmt.Errorf("provider name %q: use lower-case letters, digits and dashes (at most 32), as in infrastructure-<name>", o.Name)
	}
	if o.Group == "" {
		o.Group = "infrastructure.cluster.x-k8s.io"
	}
	if o.APIVersion == "" {
		o.APIVersion = "v1alpha1"
	}
	if o.Version == "" {
		o.Version = "v0.1.0"
	}
	if o.Kind == "" {
		for _, p := range strings.Split(o.Name, "-") {
			o.Kind += strings.ToUpper(p[:1]) + p[1:]
		}
	}
	if o.ComponentsURL == "" {
		o.ComponentsURL = fmt.Sprintf("https://releases.example.com/cluster-api-provider-%s/%s/infrastructure-components.yaml", o.Name, o.Version)
	}
	switch {
	case !groupRE.MatchString(o.Group):
		return "", nil, fmt.Errorf("--group %q: not an API group (a DNS name such as infrastructure.acme.io)", o.Group)
	case !versionRE.MatchString(o.APIVersion):
		return "", nil, fmt.Errorf("--api-version %q: want a Kubernetes API version such as v1alpha1 or v1beta2", o.APIVersion)
	case !semverRE.MatchString(o.Version):
		return "", nil, fmt.Errorf("--version %q: want vMAJOR.MINOR.PATCH", o.Version)
	case !kindRE.MatchString(o.Kind):
		return "", nil, fmt.Errorf("--kind %q: want a CamelCase kind prefix such as Acme", o.Kind)
	case !strings.HasPrefix(o.ComponentsURL, "https://") && !strings.HasPrefix(o.ComponentsURL, "http://"):
		return "", nil, fmt.Errorf("--components-url %q: want an https:// URL of infrastructure-components.yaml", o.ComponentsURL)
	}
	data := map[string]string{"Name": o.Name, "Group": o.Group, "APIVersion": o.APIVersion, "Version": o.Version,
		"ComponentsURL": o.ComponentsURL, "Kind": o.Kind, "Lower": strings.ToLower(o.Kind)}
	files, err := scaffold.RenderTree(skeleton, "skeleton/chart", data)
	if err != nil {
		return "", nil, err
	}
	if o.Dir == "" {
		o.Dir = "cluster-api-provider-" + o.Name
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return o.Dir, names, scaffold.WriteTree(o.Dir, files)
}
