package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
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

// Options configure Init.
type Options struct {
	// Name is the chart name: lowercase letters, digits and dashes.
	Name string
	// Dir is the directory to create (default: Name in the working directory).
	Dir string
	// Provider is one of Providers.
	Provider string
	// K8sVersion is the Kubernetes version, vMAJOR.MINOR.PATCH (default:
	// the provider's).
	K8sVersion string
}

var (
	chartName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,51}[a-z0-9])?$`)
	semver    = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
)

// Init writes a new chart and returns the files it wrote, relative to the
// chart directory. The directory must not exist: nothing is overwritten,
// and on error nothing is left behind.
func Init(o Options) (dir string, files []string, err error) {
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
	if o.K8sVersion == "" {
		o.K8sVersion = prov.DefaultK8s
	}
	if !semver.MatchString(o.K8sVersion) {
		return "", nil, fmt.Errorf("Kubernetes version %q: want vMAJOR.MINOR.PATCH, such as %s", o.K8sVersion, prov.DefaultK8s)
	}
	data := map[string]string{
		"Name":       o.Name,
		"K8sVersion": o.K8sVersion,
		"K0sVersion": o.K8sVersion + "+k0s.0",
	}
	root := path.Join("skeletons", prov.Name)
	out, err := RenderTree(skeletons, root, data)
	if err != nil {
		return "", nil, err
	}
	if o.Dir == "" {
		o.Dir = o.Name
	}
	return o.Dir, sortedKeys(out), WriteTree(o.Dir, out)
}

// RenderTree reads the skeleton below root in fsys: files ending in .tmpl
// are Go templates with [[ ]] delimiters (so Helm's {{ }} pass through),
// executed with data and written without the suffix; others are copied.
// The result maps root-relative names to contents.
func RenderTree(fsys fs.FS, root string, data any) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		content, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		if strings.HasSuffix(rel, ".tmpl") {
			rel = strings.TrimSuffix(rel, ".tmpl")
			t, err := template.New(rel).Delims("[[", "]]").Option("missingkey=error").Parse(string(content))
			if err != nil {
				return fmt.Errorf("skeleton %s: %w", p, err)
			}
			var buf bytes.Buffer
			if err := t.Execute(&buf, data); err != nil {
				return fmt.Errorf("skeleton %s: %w", p, err)
			}
			content = buf.Bytes()
		}
		out[rel] = content
		return nil
	})
	return out, err
}

// WriteTree creates dir with the files, through a temporary directory
// beside it and one rename, so a failure leaves nothing half-written.
func WriteTree(dir string, files map[string][]byte) error {
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("%s already exists: choose another directory or remove it", dir)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	for name, content := range files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
