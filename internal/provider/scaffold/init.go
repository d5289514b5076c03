package scaffold

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"go/format"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/skeleton"
)

// skeleton holds the chart; .tmpl files are Go templates with [[ ]]
// delimiters, so Helm's {{ }} pass through.
//
//go:embed all:skeleton
var skeletonFS embed.FS

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
	// components (default: the GitHub release of Module's repository, else a
	// placeholder), in a form clusterctl reads (provider.CheckFetchURL).
	ComponentsURL string
	// Kind is the kinds' prefix (default: Name in CamelCase): <Kind>Cluster, <Kind>Machine.
	Kind string

	// Controller adds the Go provider around the chart.
	Controller bool
	// Module is the Go module path of the provider (default
	// example.com/cluster-api-provider-<Name>); with Controller only.
	Module string
	// Image is the controller image's repository (default
	// registry.example.com/cluster-api-provider-<Name>); with Controller only.
	Image string
}

// The modules of a Controller skeleton: the controller-runtime and
// Kubernetes libraries and the controller-gen that kbook's own example
// provider (examples/providers/inventory) is built and generated with, so
// the two build from one module cache. The skeleton reads Cluster API's
// Cluster and Machine as unstructured objects at the v1beta2 contract's
// paths and needs no cluster-api module. A test checks them against
// kbook's go.mod and the example's Makefile.
const (
	ControllerRuntimeVersion = "v0.22.5"
	KubernetesVersion        = "v0.34.12"
	// ControllerToolsVersion is the controller-gen the skeleton's
	// Makefile runs and whose output the skeleton ships.
	ControllerToolsVersion = "v0.19.0"
	// Contract is the Cluster API contract the skeleton implements.
	Contract       = "v1beta2"
	k0rdentVersion = "v1.11.4"
	goVersion      = "1.26"
)

var (
	nameRE    = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$`)
	groupRE   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`)
	versionRE = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	semverRE  = regexp.MustCompile(`^v(\d+)\.(\d+)\.\d+(-[0-9A-Za-z.-]+)?$`)
	moduleRE  = regexp.MustCompile(`^[a-z0-9][-a-z0-9.]*\.[a-z]+(/[A-Za-z0-9._~-]+)*$`)
	imageRE   = regexp.MustCompile(`^[a-z0-9][-a-z0-9.:]*(/[a-z0-9._-]+)+$`)
	kindRE    = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

// Init writes the chart and returns its directory and files (relative to
// it). The directory must not exist; on error nothing is left behind.
func Init(o Options) (string, []string, error) {
	if !nameRE.MatchString(o.Name) {
		return "", nil, fmt.Errorf("provider name %q: use lower-case letters, digits and dashes (at most 32), as in infrastructure-<name>", o.Name)
	}
	if o.Group == "" {
		o.Group = k0rdent.InfrastructureGroup
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
	if !o.Controller && (o.Module != "" || o.Image != "") {
		return "", nil, fmt.Errorf("--module and --image describe the Go provider: add --controller, or leave them out for the chart alone")
	}
	if o.Module == "" {
		o.Module = "example.com/cluster-api-provider-" + o.Name
	}
	if o.Image == "" {
		o.Image = "registry.example.com/cluster-api-provider-" + o.Name
	}
	if o.ComponentsURL == "" {
		o.ComponentsURL = defaultComponentsURL(o)
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
	}
	if err := provider.CheckFetchURL(o.ComponentsURL); err != nil {
		return "", nil, fmt.Errorf("--components-url: %w; the cluster-api-operator would not install the provider", err)
	}
	switch {
	case o.Controller && !moduleRE.MatchString(o.Module):
		return "", nil, fmt.Errorf("--module %q: want a Go module path such as github.com/acme/cluster-api-provider-acme", o.Module)
	case o.Controller && !imageRE.MatchString(o.Image):
		return "", nil, fmt.Errorf("--image %q: want an image repository without a tag, such as registry.acme.io/capi/acme-controller", o.Image)
	}
	sv := semverRE.FindStringSubmatch(o.Version)
	data := map[string]string{"Name": o.Name, "Group": o.Group, "APIVersion": o.APIVersion, "Version": o.Version,
		"ComponentsURL": o.ComponentsURL, "Kind": o.Kind, "Lower": strings.ToLower(o.Kind),
		"Module": o.Module, "Image": o.Image, "Major": sv[1], "Minor": sv[2],
		"ControllerRuntimeVersion": ControllerRuntimeVersion, "KubernetesVersion": KubernetesVersion,
		"ControllerToolsVersion": ControllerToolsVersion, "K0rdentVersion": k0rdentVersion, "GoVersion": goVersion}
	files, err := render(data, o.Controller)
	if err != nil {
		return "", nil, err
	}
	if o.Dir == "" {
		o.Dir = "cluster-api-provider-" + o.Name
	}
	return o.Dir, skeleton.Names(files), skeleton.Write(o.Dir, files)
}

// render returns the files of the skeleton: the chart alone, or the
// controller project with the chart in chart/.
func render(data map[string]string, controller bool) (map[string][]byte, error) {
	chart, err := skeleton.Render(skeletonFS, "skeleton/chart", data)
	if err != nil || !controller {
		return chart, err
	}
	tree, err := skeleton.Render(skeletonFS, "skeleton/controller", data)
	if err != nil {
		return nil, err
	}
	// File names hold {version}, {group} and {lower}: the API package
	// and the CRD files controller-gen names <group>_<plural>.yaml.
	names := strings.NewReplacer("{version}", data["APIVersion"], "{group}", data["Group"], "{lower}", data["Lower"])
	files := map[string][]byte{}
	for name, content := range tree {
		name = names.Replace(name)
		// controller-gen orders deepcopy functions by type name and
		// ClusterRole rules by group: names other than the skeleton's
		// sort differently.
		switch path.Base(name) {
		case "zz_generated.deepcopy.go":
			content = sortDeepCopy(content)
		case "role.yaml":
			content = sortRules(content)
		}
		if strings.HasSuffix(name, ".go") {
			// Kind names of other lengths than the skeleton's shift the
			// alignment gofmt wants.
			if content, err = format.Source(content); err != nil {
				return nil, fmt.Errorf("skeleton %s: %w", name, err)
			}
		}
		files[name] = content
	}
	for name, content := range chart {
		files["chart/"+name] = content
	}
	files["infrastructure-components.yaml"] = components(files)
	return files, nil
}

// components joins the release's infrastructure-components.yaml as the
// skeleton's `make components` does: the manager's objects, the CRDs in
// file name order, the ClusterRole, the bindings.
func components(files map[string][]byte) []byte {
	parts := []string{"config/manager/manager.yaml"}
	var crds []string
	for name := range files {
		if path.Dir(name) == "config/crd/bases" && strings.HasSuffix(name, ".yaml") {
			crds = append(crds, name)
		}
	}
	slices.Sort(crds)
	parts = append(append(parts, crds...), "config/rbac/role.yaml", "config/rbac/bindings.yaml")
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(files[p])
	}
	return b.Bytes()
}

// deepCopyDoc starts each type's functions in controller-gen's deepcopy file.
const deepCopyDoc = "// DeepCopyInto is an autogenerated deepcopy function"

// sortDeepCopy orders the deepcopy file's types by name, as controller-gen
// does.
func sortDeepCopy(src []byte) []byte {
	parts := strings.Split(string(src), deepCopyDoc)
	blocks := parts[1:]
	typeName := func(b string) string {
		_, after, _ := strings.Cut(b, "func (in *")
		name, _, _ := strings.Cut(after, ")")
		return name
	}
	for i := range blocks {
		blocks[i] = deepCopyDoc + strings.TrimRight(blocks[i], "\n")
	}
	slices.SortStableFunc(blocks, func(a, b string) int { return strings.Compare(typeName(a), typeName(b)) })
	return []byte(parts[0] + strings.Join(blocks, "\n\n") + "\n")
}

// sortRules orders a ClusterRole's rules as controller-gen does: by
// "groups + resources" (each list joined by &).
func sortRules(src []byte) []byte {
	head, body, ok := strings.Cut(string(src), "\nrules:\n")
	if !ok {
		return src
	}
	rules := strings.Split(body, "- apiGroups:\n")
	key := func(r string) string {
		var groups, resources []string
		list := &groups
		for _, l := range strings.Split(r, "\n") {
			switch {
			case l == "  resources:":
				list = &resources
			case l == "  verbs:":
				list = nil
			case list != nil && strings.HasPrefix(l, "  - "):
				*list = append(*list, strings.Trim(strings.TrimPrefix(l, "  - "), `"`))
			}
		}
		return strings.Join(groups, "&") + " + " + strings.Join(resources, "&")
	}
	items := rules[1:]
	slices.SortStableFunc(items, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	return []byte(head + "\nrules:\n" + rules[0] + "- apiGroups:\n" + strings.Join(items, "- apiGroups:\n"))
}

// defaultComponentsURL is where the release's components are, as
// clusterctl's repository client reads it (a GitHub release): the
// module's repository when it is on GitHub, else a placeholder to replace.
func defaultComponentsURL(o Options) string {
	repo := "example/cluster-api-provider-" + o.Name
	if parts := strings.Split(o.Module, "/"); o.Controller && len(parts) >= 3 && parts[0] == "github.com" {
		repo = parts[1] + "/" + parts[2]
	}
	return fmt.Sprintf("https://github.com/%s/releases/%s/infrastructure-components.yaml", repo, o.Version)
}

// New is kbook provider init: it writes the provider as Init does and says what it created and what
// to run next: make build and validate for a Go provider, validate for a
// chart (the chart alone: the release's infrastructure-components.yaml and
// metadata.yaml, which the scaffold does not write, join it once they
// exist). Each hint runs green as printed (cmd/kbook's
// TestScaffoldNextHints).
func New(ctx context.Context, o Options) (skeleton.Created, error) {
	if err := ctx.Err(); err != nil {
		return skeleton.Created{}, err
	}
	dir, files, err := Init(o)
	if err != nil {
		return skeleton.Created{}, err
	}
	next := "kbook provider validate " + dir
	if o.Controller {
		next = "cd " + dir + " && make build && kbook provider validate infrastructure-components.yaml metadata.yaml chart"
	}
	return skeleton.Created{Dir: dir, Files: files, Next: next}, nil
}
