package scaffold

import (
	"embed"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/skeleton"
)

// skeletons holds one chart skeleton per provider set. Files ending in
// .tmpl are Go templates with [[ ]] delimiters, so Helm's {{ }} pass
// through untouched.
//
//go:embed all:skeletons
var skeletons embed.FS

// Provider describes a provider set a chart can be scaffolded for.
type Provider struct {
	Name        string
	Description string
	// DefaultK8s is the Kubernetes version clusters get by default.
	DefaultK8s string
}

// Providers lists the skeletons, by name.
var Providers = []Provider{
	{"docker", "Cluster API Docker (CAPD) infrastructure with a kubeadm control plane and workers: local and CI clusters", "v1.34.0"},
	{"k0smotron", "k0smotron remote machines (existing Linux hosts over SSH) with a k0s control plane and workers", "v1.34.1"},
	{"inmemory", "CAPD's in-memory backend (simulated machines, no containers) with a kubeadm control plane and workers: a template's lifecycle twin for kbook run --k0rdent", "v1.34.0"},
}

// ProviderNames lists the provider names, for messages and flag help.
func ProviderNames() []string {
	var out []string
	for _, p := range Providers {
		out = append(out, p.Name)
	}
	return out
}

// ChartOptions are one new chart's: what Init writes.
type ChartOptions struct {
	// Name is the chart name: lowercase letters, digits and dashes.
	Name string
	// Dir is the directory to create (default: Name in the working directory).
	Dir string
	// Provider is one of Providers.
	Provider string
	// K8sVersion is the Kubernetes version, vMAJOR.MINOR.PATCH (default:
	// the provider's, or ImageK8sVersion).
	K8sVersion string
	// MachineImage is the node image the docker provider's machines boot
	// from ("": kindest/node of K8sVersion), and ImageK8sVersion the
	// Kubernetes version it runs when known: K8sVersion defaults to it and
	// must be it.
	MachineImage    string
	ImageK8sVersion string
	// LoadBalancerRepository and LoadBalancerTag name the docker
	// provider's load balancer image, REPOSITORY/haproxy:TAG ("": CAPD's
	// default, kindest/haproxy).
	LoadBalancerRepository, LoadBalancerTag string
}

// imagesProvider is the provider whose charts take MachineImage and the
// load balancer image.
const imagesProvider = "docker"

var (
	chartName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,51}[a-z0-9])?$`)
	semver    = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
)

// Init writes a new chart and returns the files it wrote, relative to the
// chart directory. The directory must not exist: nothing is overwritten,
// and on error nothing is left behind.
func Init(o ChartOptions) (dir string, files []string, err error) {
	if !chartName.MatchString(o.Name) {
		return "", nil, fmt.Errorf("chart name %q: use lowercase letters, digits and dashes (at most 53 characters), starting and ending with a letter or digit", o.Name)
	}
	var prov *Provider
	for i := range Providers {
		if Providers[i].Name == o.Provider {
			prov = &Providers[i]
		}
	}
	if prov == nil {
		return "", nil, fmt.Errorf("provider %q: want one of %s", o.Provider, strings.Join(ProviderNames(), ", "))
	}
	if (o.MachineImage != "" || o.LoadBalancerRepository != "" || o.LoadBalancerTag != "") && prov.Name != imagesProvider {
		return "", nil, fmt.Errorf("a machine or load balancer image goes with --provider %s (CAPD's docker machines), not %s", imagesProvider, prov.Name)
	}
	if o.K8sVersion == "" {
		o.K8sVersion = prov.DefaultK8s
		if o.ImageK8sVersion != "" {
			o.K8sVersion = o.ImageK8sVersion
		}
	}
	if !semver.MatchString(o.K8sVersion) {
		return "", nil, fmt.Errorf("Kubernetes version %q: want vMAJOR.MINOR.PATCH, such as %s", o.K8sVersion, prov.DefaultK8s)
	}
	if o.ImageK8sVersion != "" && o.ImageK8sVersion != o.K8sVersion {
		return "", nil, fmt.Errorf("Kubernetes version %s: the node image %s runs %s, and kubeadm there cannot set up another", o.K8sVersion, o.MachineImage, o.ImageK8sVersion)
	}
	data := map[string]string{
		"Name":                   o.Name,
		"K8sVersion":             o.K8sVersion,
		"K0sVersion":             o.K8sVersion + "+k0s.0",
		"MachineImage":           o.MachineImage,
		"LoadBalancerRepository": o.LoadBalancerRepository,
		"LoadBalancerTag":        o.LoadBalancerTag,
	}
	root := path.Join("skeletons", prov.Name)
	out, err := skeleton.Render(skeletons, root, data)
	if err != nil {
		return "", nil, err
	}
	if o.Dir == "" {
		o.Dir = o.Name
	}
	return o.Dir, skeleton.Names(out), skeleton.Write(o.Dir, out)
}
